package compact

import (
	"strings"
	"testing"
)

// BenchmarkBuildHandoffPacket builds a packet from every transcript
// available (its messages, and their text again as a long summary, so the
// summary is cut too), and writes one into a temporary directory.
func BenchmarkBuildHandoffPacket(b *testing.B) {
	all := allTranscripts(b)
	var ins []HandoffInput
	for _, name := range sortedNames(all) {
		var sb strings.Builder
		for _, m := range all[name] {
			sb.WriteString(Text(m))
		}
		ins = append(ins, HandoffInput{SessionID: name, Model: "gpt-4o", Compactions: 2,
			Summary: sb.String(), Messages: all[name], OpenTasks: []string{"finish"}})
	}
	b.Run("build", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			BuildHandoffPacket(ins[i%len(ins)])
		}
	})
	b.Run("write", func(b *testing.B) {
		root := b.TempDir()
		packet := []byte(BuildHandoffPacket(ins[0]))
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			if _, err := WriteHandoffPacket(root, "h", "p"+itoa(i)+".md", packet); err != nil {
				b.Fatal(err)
			}
		}
	})
}
