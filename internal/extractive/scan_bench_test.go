package extractive

import (
	"context"
	"testing"

	"github.com/contextkit/compact/internal/memo"
)

// BenchmarkScan times the scan alone on a ~1 MB history: facts is the
// facts measure's scan and index (FactsRoom), summary the summary's scan
// with its redacted views remembered as a Summarizer remembers them, so
// most redaction is not timed (about one message in eight shares a memo
// slot with another, and is redacted again each time).
// Run: go test -run '^$' -bench '^BenchmarkScan$' -benchmem -count 5
func BenchmarkScan(b *testing.B) {
	msgs, size := longHistory(b, 1<<20)
	ctx := context.Background()
	b.Run("facts", func(b *testing.B) {
		b.SetBytes(int64(size))
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			if FactsRoom(ctx, Request{Turns: msgs}, defaultTarget) == 0 {
				b.Fatal("no facts")
			}
		}
	})
	b.Run("summary", func(b *testing.B) {
		views := memo.NewTable[Message](viewMemoMessages)
		for _, m := range msgs {
			scanView(m, views)
		}
		b.SetBytes(int64(size))
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			d := &digest{views: views}
			if err := d.scanWith(ctx, msgs, nil); err != nil {
				b.Fatal(err)
			}
		}
	})
}
