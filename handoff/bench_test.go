package handoff

import (
	"strconv"
	"strings"
	"testing"

	"github.com/contextkit/compact/internal/msg"
	"github.com/contextkit/compact/internal/msgtest"
)

// BenchmarkBuildHandoffPacket builds a packet from every transcript
// available (its messages, and their text again as a long summary, so the
// summary is cut too), and writes one into a temporary directory.
func BenchmarkBuildHandoffPacket(b *testing.B) {
	all := msgtest.All(b)
	var ins []Input
	for _, name := range msgtest.Names(all) {
		var sb strings.Builder
		for _, m := range all[name] {
			sb.WriteString(msg.Text(m))
		}
		ins = append(ins, Input{SessionID: name, Model: "gpt-4o", Compactions: 2,
			Summary: sb.String(), Messages: all[name], OpenTasks: []string{"finish"}})
	}
	b.Run("build", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			Build(ins[i%len(ins)])
		}
	})
	b.Run("write", func(b *testing.B) {
		root := b.TempDir()
		packet := []byte(Build(ins[0]))
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			if _, err := Write(root, "h", "p"+strconv.Itoa(i)+".md", packet); err != nil {
				b.Fatal(err)
			}
		}
	})
}
