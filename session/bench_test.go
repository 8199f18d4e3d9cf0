package session

import (
	"context"
	"fmt"
	"testing"

	"github.com/contextkit/compact"
)

// BenchmarkSessionAppendShouldCompress measures a host's per-turn
// bookkeeping on a long session: append a user message and the reply, then
// ask whether to compact. The cost should not grow with the history; the
// "background" rows are the same with background compaction on (the soft
// mark is far off: no compaction starts), and the "recount" rows are what
// a host pays without a running count (counting the whole history each
// turn), for comparison.
func BenchmarkSessionAppendShouldCompress(b *testing.B) {
	turn := []compact.Message{
		user("Run the tests again and tell me which ones still fail."),
		asst("Two tests still fail: TestStoreFlush and TestStoreReopen. Both time out on the lock."),
	}
	// The history is rebuilt every refill turns so that a long benchmark
	// measures a session of about n messages, not of n plus 2·b.N.
	const refill = 2048
	ctx := context.Background()
	for _, n := range []int{1_000, 10_000} {
		base := chatHistory("bench", n)
		newEngine := func() *compact.Compressor {
			return compact.New(compact.WithContextWindow(1_000_000), compact.WithThresholdBounds(0, 0),
				compact.WithTokenCounter(byteCounter{}))
		}
		for _, mode := range []struct {
			name string
			opts []Option
		}{{"session", nil}, {"background", []Option{WithBackground(true)}}} {
			b.Run(fmt.Sprintf("%s/messages=%d", mode.name, n), func(b *testing.B) {
				benchmarkTurns(b, ctx, base, turn, refill, newEngine, mode.opts)
			})
		}
		b.Run(fmt.Sprintf("recount/messages=%d", n), func(b *testing.B) {
			var msgs []compact.Message
			c := newEngine()
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if i%refill == 0 {
					b.StopTimer()
					msgs = compact.Clone(base)
					b.StartTimer()
				}
				msgs = append(msgs, turn...)
				_ = c.ShouldCompressMessages(msgs)
			}
		})
	}
}

// benchmarkTurns is the session rows of BenchmarkSessionAppendShouldCompress:
// a turn appended and the question asked, b.N times, on a session of base
// rebuilt every refill turns.
func benchmarkTurns(b *testing.B, ctx context.Context, base, turn []compact.Message, refill int,
	newEngine func() *compact.Compressor, opts []Option) {
	var s *Session
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if i%refill == 0 {
			b.StopTimer()
			var err error
			if s, err = Open(context.Background(), "bench", newEngine(), opts...); err != nil {
				b.Fatal(err)
			}
			if err := s.Append(ctx, base...); err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
		}
		if err := s.Append(ctx, turn...); err != nil {
			b.Fatal(err)
		}
		_ = s.ShouldCompress()
	}
}
