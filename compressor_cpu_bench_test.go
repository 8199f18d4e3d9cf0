package compact

import (
	"context"
	"testing"
	"time"

	"github.com/contextkit/compact/internal/sharedtest"
	"github.com/contextkit/compact/tokens"
)

// engineMessages is how many messages of the joined shared transcripts the
// engine's CPU benchmark compacts (issue 22): about 261k tokens by
// o200k_base.
const engineMessages = 567

// joined567 is the first engineMessages messages of the shared transcripts
// joined (see joinedShared). It skips b when the transcripts are missing.
func joined567(b *testing.B) []Message {
	b.Helper()
	all := sharedTranscripts(b)
	if len(all) == 0 {
		sharedtest.Missing(b)
	}
	return joinedShared(b, all, engineMessages)
}

// joinedShared is the first n messages of the transcripts all joined in
// file order as `compact replay -join` joins them: the first keeps its
// system prompt, the later ones lose theirs, and a call left unanswered is
// removed.
func joinedShared(tb testing.TB, all map[string][]Message, n int) []Message {
	tb.Helper()
	var parts [][]Message
	for i, name := range sortedNames(all) {
		var part []Message
		for _, m := range all[name] {
			if i == 0 || m.Role != RoleSystem {
				part = append(part, m)
			}
		}
		parts = append(parts, part)
	}
	h, _ := RepairToolPairs(Join(parts...))
	if len(h) < n {
		tb.Fatalf("the joined transcripts hold %d messages, want at least %d", len(h), n)
	}
	h, _ = RepairToolPairs(h[:n])
	if err := Validate(h); err != nil {
		tb.Fatal(err)
	}
	return h
}

// validPrefix returns the longest valid history[:k] with k <= n.
func validPrefix(b *testing.B, history []Message, n int) []Message {
	b.Helper()
	for k := min(n, len(history)); k > 0; k-- {
		if Validate(history[:k]) == nil {
			return history[:k]
		}
	}
	b.Fatal("no valid prefix")
	return nil
}

// BenchmarkEngineCPU is the engine's own CPU on a host's first compaction
// (issue 22): a fresh Compressor with a fresh exact counter, warmed by
// ShouldCompressMessages, then one forced compaction of joined567. With
// the instant summarizer it is the engine alone; with the extractive one,
// the default's whole cost. The -grown runs are the second compaction of
// a grown history, the -cold runs a fresh Compressor and counter that
// count everything themselves (see below; the rank tables are built once
// per process, BenchmarkBuildEncoding in tokens/internal/bpe times that). Setting up each iteration is not timed.
// cpu-ns/op is the process's CPU time in the timed part, which a loaded
// machine inflates less than the wall time.
//
//	go test -run '^$' -bench EngineCPU -benchmem -benchtime 20x -count 5
func BenchmarkEngineCPU(b *testing.B) {
	history := joined567(b)
	for _, bc := range []struct {
		name string
		s    func() Summarizer
	}{
		{"instant", func() Summarizer { return instantSummary }},
		{"extractive", func() Summarizer { return NewExtractiveSummarizer(nil) }},
	} {
		b.Run(bc.name, func(b *testing.B) {
			ctx := context.Background()
			size := 0
			var cpu time.Duration
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				tc := newCounter(b, tokens.EncodingO200KBase)
				c := New(WithContextWindow(benchTokens), WithSummarizer(bc.s()), WithTokenCounter(tc))
				c.ShouldCompressMessages(history)
				size = tokens.CountMessages(tc, history)
				b.StartTimer()
				t0 := cpuTime()
				if _, err := c.Compress(ctx, history, Force()); err != nil {
					b.Fatal(err)
				}
				cpu += cpuTime() - t0
			}
			b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
			b.ReportMetric(float64(size), "tokens")
		})
	}
	// Cold: a fresh Compressor and exact counter, nothing warmed.
	for _, bc := range []struct {
		name string
		s    func() Summarizer
	}{
		{"instant-cold", func() Summarizer { return instantSummary }},
		{"extractive-cold", func() Summarizer { return NewExtractiveSummarizer(nil) }},
	} {
		b.Run(bc.name, func(b *testing.B) {
			ctx := context.Background()
			var cpu time.Duration
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				tc := newCounter(b, tokens.EncodingO200KBase)
				c := New(WithContextWindow(benchTokens), WithSummarizer(bc.s()), WithTokenCounter(tc))
				b.StartTimer()
				t0 := cpuTime()
				if _, err := c.Compress(ctx, history, Force()); err != nil {
					b.Fatal(err)
				}
				cpu += cpuTime() - t0
			}
			b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
		})
	}
	// The second compaction of a grown history: the same Compressor
	// compacted the history's first nine tenths (not timed), and now the
	// whole, so what it remembers of the first is reused.
	first := validPrefix(b, history, len(history)*9/10)
	for _, bc := range []struct {
		name string
		s    func() Summarizer
	}{
		{"instant-grown", func() Summarizer { return instantSummary }},
		{"extractive-grown", func() Summarizer { return NewExtractiveSummarizer(nil) }},
	} {
		b.Run(bc.name, func(b *testing.B) {
			ctx := context.Background()
			var cpu time.Duration
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				tc := newCounter(b, tokens.EncodingO200KBase)
				c := New(WithContextWindow(benchTokens), WithSummarizer(bc.s()), WithTokenCounter(tc))
				c.ShouldCompressMessages(first)
				if _, err := c.Compress(ctx, first, Force()); err != nil {
					b.Fatal(err)
				}
				c.ShouldCompressMessages(history)
				b.StartTimer()
				t0 := cpuTime()
				if _, err := c.Compress(ctx, history, Force()); err != nil {
					b.Fatal(err)
				}
				cpu += cpuTime() - t0
			}
			b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
		})
	}
}
