package compact

import (
	"context"
	"strconv"
	"testing"

	"github.com/contextkit/compact/internal/msg"
	"github.com/contextkit/compact/tokens"
)

// benchTokens is the size of the history the compaction benchmarks use:
// a long agent session about to overflow a 200k-token window.
const benchTokens = 200_000

// history200k chains the shared transcripts with Join (system prompts
// after the first left out, the chain repeated) until it holds about
// benchTokens tokens as tc counts them; without the transcripts it grows a
// synthetic coding session instead. Broken pairing at the seams (a
// transcript ending on calls still running) is repaired. Counting leaves
// tc warm.
func history200k(b *testing.B, tc tokens.Counter) []Message {
	b.Helper()
	all := sharedTranscripts(b)
	if len(all) == 0 {
		n := 1000
		for tokens.CountMessages(tc, syntheticHistory(n)) < benchTokens {
			n += n / 4
		}
		return syntheticHistory(n)
	}
	names := sortedNames(all)
	var parts [][]Message
	size := 0
	for k := 0; size < benchTokens; k++ {
		msgs := all[names[k%len(names)]]
		if k > 0 {
			for len(msgs) > 0 && msg.IsSystem(msgs[0]) {
				msgs = msgs[1:]
			}
		}
		parts = append(parts, msgs)
		size += tokens.CountMessages(tc, msgs)
	}
	h := Join(parts...)
	if Validate(h) != nil {
		h, _ = RepairToolPairs(h)
	}
	if err := Validate(h); err != nil {
		b.Fatal(err)
	}
	tokens.CountMessages(tc, h) // the seams' merged messages
	return h
}

// instantSummary is a summarizer that costs nothing, so the benchmark
// measures the library's own work: planning the cut, counting, assembling,
// validating.
var instantSummary = SummarizerFunc(func(ctx context.Context, req SummaryRequest) (string, error) {
	return "The agent fixed the parser in internal/lexer/scan.go; tests pass.", nil
})

// BenchmarkCompress200k compacts a ~200k-token history, forced. With the
// instant summarizer it is the library's own cost of a compaction; with
// the extractive one, the default's whole cost. The exact counter is
// warmed first, as it is in a host that counted the history on the way.
//
//	go test -run '^$' -bench Compress200k -benchmem -count 3
func BenchmarkCompress200k(b *testing.B) {
	exact := newCounter(b, tokens.EncodingO200KBase)
	history := history200k(b, exact)
	for _, bc := range []struct {
		name  string
		s     Summarizer
		exact bool
	}{
		{"instant/exact-warm", instantSummary, true},
		{"instant/estimate", instantSummary, false},
		{"extractive/exact-warm", NewExtractiveSummarizer(nil), true},
	} {
		b.Run(bc.name, func(b *testing.B) {
			var tc tokens.Counter = tokens.Estimator{}
			if bc.exact {
				tc = exact
			}
			size := tokens.CountMessages(tc, history)
			c := New(WithContextWindow(benchTokens), WithSummarizer(bc.s), WithTokenCounter(tc))
			ctx := context.Background()
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := c.Compress(ctx, history, Force()); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(size), "tokens")
		})
	}
}

// BenchmarkShouldCompressAfterAppend is the per-turn check on a long
// history: one message appended, then "should I compact?". Counting the
// whole history again with a memoised counter costs a hash of every
// message; a Tally costs the new message alone.
//
//	go test -run '^$' -bench ShouldCompressAfterAppend -benchmem -count 3
func BenchmarkShouldCompressAfterAppend(b *testing.B) {
	history := history200k(b, newCounter(b, tokens.EncodingO200KBase))
	next := Message{Role: RoleTool, ToolCallID: "call_1", Content: "ok: 3 tests passed, 1 failed (TestParse: want 4, got 5) "}
	b.Run("messages", func(b *testing.B) {
		tc := newCounter(b, tokens.EncodingO200KBase)
		c := New(WithContextWindow(1_000_000), WithTokenCounter(tc))
		msgs := append(Clone(history), Message{})
		c.ShouldCompressMessages(msgs[:len(history)])
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			m := next
			m.Content += strconv.Itoa(i)
			msgs[len(history)] = m
			c.ShouldCompressMessages(msgs)
		}
		b.ReportMetric(float64(len(msgs)), "messages")
	})
	b.Run("tally", func(b *testing.B) {
		tc := newCounter(b, tokens.EncodingO200KBase)
		c := New(WithContextWindow(1_000_000), WithTokenCounter(tc))
		tally := tokens.NewTally(tc)
		tally.Reset(history)
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			m := next
			m.Content += strconv.Itoa(i)
			c.ShouldCompress(tally.Add(m))
		}
		b.ReportMetric(float64(len(history)), "messages")
	})
}

// BenchmarkFirstCompress200k is a host's first compaction of a
// conversation, as it happens once per conversation rather than in a loop:
// a fresh exact counter that has seen the history only through
// ShouldCompressMessages, then one forced compaction with the instant
// summarizer, which counts for the first time the text compaction makes
// (stand-ins, carried messages, the summary). Beside it, the same with the
// estimate counter; the goal is the exact counter within twice its time.
// Setting up each iteration (a new Compressor, counting the history) is
// not timed.
//
//	go test -run '^$' -bench FirstCompress200k -benchmem -benchtime 30x -count 3
func BenchmarkFirstCompress200k(b *testing.B) {
	history := history200k(b, newCounter(b, tokens.EncodingO200KBase))
	for _, bc := range []struct {
		name  string
		exact bool
	}{{"exact-warmed-by-should", true}, {"estimate", false}} {
		b.Run(bc.name, func(b *testing.B) {
			ctx := context.Background()
			size := 0
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				var tc tokens.Counter = tokens.Estimator{}
				if bc.exact {
					tc = newCounter(b, tokens.EncodingO200KBase)
				}
				c := New(WithContextWindow(benchTokens), WithSummarizer(instantSummary), WithTokenCounter(tc))
				c.ShouldCompressMessages(history)
				size = tokens.CountMessages(tc, history)
				b.StartTimer()
				if _, err := c.Compress(ctx, history, Force()); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(size), "tokens")
		})
	}
}
