package compact

import (
	"context"
	"flag"
	"fmt"
	"testing"

	"github.com/contextkit/compact/internal/sharedtest"
	"github.com/contextkit/compact/tokens"
)

// pruneFigures turns on TestPruneFigures, which measures pruning on the
// shared transcripts chained into one history (a few seconds, exact
// counts):
//
//	go test -run TestPruneFigures -v -prune.figures .
var pruneFigures = flag.Bool("prune.figures", false, "measure pruning on the chained shared transcripts")

// chainedTranscripts joins the shared transcripts, in name order, into one
// long history (Join guards the seams; pairing is repaired where a
// transcript ends on calls that were never answered). With toolsOnly, only
// the transcripts that call tools are chained. nil when they are absent.
func chainedTranscripts(t testing.TB, toolsOnly bool) []Message {
	all := sharedTranscripts(t)
	var parts [][]Message
	for _, name := range sortedNames(all) {
		if !toolsOnly || callsTools(all[name]) {
			parts = append(parts, all[name])
		}
	}
	if len(parts) == 0 {
		return nil
	}
	chained, _ := RepairToolPairs(Join(parts...))
	return chained
}

func callsTools(msgs []Message) bool {
	for _, m := range msgs {
		if len(m.ToolCalls) > 0 {
			return true
		}
	}
	return false
}

// pruneBenchHistory is a history of about tokens tokens by tc: the chained
// transcripts (repeated if needed, or agent runs when they are absent),
// cut at a message boundary and repaired.
func pruneBenchHistory(b *testing.B, tokens int, tc tokens.Counter) []Message {
	src := chainedTranscripts(b, true)
	if src == nil {
		src = agentRun(200)
	}
	var out []Message
	total := 0
	for total < tokens {
		for _, m := range src {
			if total >= tokens {
				break
			}
			out = append(out, m)
			total += tc.CountMessage(m)
		}
	}
	out, _ = RepairToolPairs(out)
	return out
}

// BenchmarkPrune prunes a history of about 200k tokens with the default
// options: with the estimating counter (Prune's default), and with the
// exact counter a Compressor would pass, warm as it is on a history it has
// counted before.
func BenchmarkPrune(b *testing.B) {
	exact, err := tokens.ForModel("gpt-4o")
	if err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct {
		name string
		tc   tokens.Counter
	}{{"estimate", tokens.Estimate{}}, {"exact", exact}} {
		b.Run(bc.name, func(b *testing.B) {
			msgs := pruneBenchHistory(b, 200_000, bc.tc)
			res := Prune(msgs, WithTokenCounter(bc.tc)) // warms the exact counter's memo
			b.ResetTimer()
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				Prune(msgs, WithTokenCounter(bc.tc))
			}
			b.ReportMetric(float64(res.TokensBefore), "tokens-before")
			b.ReportMetric(float64(res.TokensAfter), "tokens-after")
			b.ReportMetric(float64(len(msgs)), "messages")
		})
	}
}

// countingSummarizer counts the calls it passes on to the extractive
// summarizer.
type countingSummarizer struct {
	s     Summarizer
	calls int
}

func (c *countingSummarizer) Summarize(ctx context.Context, req SummaryRequest) (string, error) {
	c.calls++
	return c.s.Summarize(ctx, req)
}

func (c *countingSummarizer) Name() string { return "extractive" }

// grow replays msgs as a host would, one message at a time, compacting
// with c whenever it says so. It returns how many compactions ran and how
// many of them pruning alone achieved.
func grow(t *testing.T, c *Compressor, tc tokens.Counter, msgs []Message) (compactions, pruneOnly int) {
	var h []Message
	tally := tokens.NewTally(tc)
	for _, m := range msgs {
		h = append(h, m)
		if !c.ShouldCompress(tally.Add(m)) {
			continue
		}
		res, err := c.Compress(context.Background(), h)
		if err != nil {
			t.Logf("compaction at %d messages: %v", len(h), err)
			continue
		}
		compactions++
		if res.SummaryIndex < 0 {
			pruneOnly++
		}
		h = res.Messages
		tally.Reset(h)
	}
	return compactions, pruneOnly
}

// TestPruneFigures measures pruning on the chained shared transcripts with
// exact counts: the tokens pruning alone reclaims, and, replaying the
// history as a growing conversation under a Compressor, how many
// compactions pruning alone achieved, and how many summarizer calls it
// saved against a Compressor that does not prune.
func TestPruneFigures(t *testing.T) {
	if !*pruneFigures {
		t.Skip("run with -prune.figures")
	}
	tc, err := tokens.ForModel("gpt-4o")
	if err != nil {
		t.Fatal(err)
	}
	for _, toolsOnly := range []bool{false, true} {
		msgs := chainedTranscripts(t, toolsOnly)
		if msgs == nil {
			sharedtest.Missing(t)
		}
		res := Prune(msgs, WithTokenCounter(tc))
		byKind := map[PruneKind][2]int{}
		for _, c := range res.Changes {
			k := byKind[c.Kind]
			byKind[c.Kind] = [2]int{k[0] + 1, k[1] + c.saved()}
		}
		t.Logf("chained history (tool-calling transcripts only: %v): %d messages, %d tokens; pruned alone (defaults): %d tokens (-%.1f%%)",
			toolsOnly, len(msgs), res.TokensBefore, res.TokensAfter, 100*float64(res.TokensBefore-res.TokensAfter)/float64(res.TokensBefore))
		for k := kindDeduplicated; k <= kindDemoted; k++ {
			if v, ok := byKind[k]; ok {
				t.Logf("  %-32s %4d messages, %6d tokens", k, v[0], v[1])
			}
		}
	}

	// The replay leaves out the chats without tools: they have nothing to
	// prune, and one of them is a single exchange of about 80k tokens that
	// no compaction can fit under a small threshold (it pauses).
	msgs := chainedTranscripts(t, true)
	t.Logf("replay of the tool-calling transcripts, one message at a time:")
	t.Logf("%-8s %-9s %-11s %-10s %-16s %s", "window", "threshold", "compactions", "prune-only", "summarizer calls", "without pruning: compactions = summarizer calls")
	for _, window := range []int{32_000, 64_000, DefaultContextWindow} {
		with := &countingSummarizer{s: NewExtractiveSummarizer()}
		c := New(WithContextWindow(window), WithTokenCounter(tc), WithSummarizer(with))
		n, only := grow(t, c, tc, msgs)
		without := &countingSummarizer{s: NewExtractiveSummarizer()}
		grow(t, New(WithContextWindow(window), WithTokenCounter(tc), WithSummarizer(without), WithPruning(false)), tc, msgs)
		t.Logf("%-8d %-9d %-11d %-10s %-16d %d", window, c.threshold(), n,
			fmt.Sprintf("%d (%.0f%%)", only, 100*float64(only)/float64(max(n, 1))), with.calls, without.calls)
	}
}
