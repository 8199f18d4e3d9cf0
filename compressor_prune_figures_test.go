package compact

import (
	"context"
	"flag"
	"fmt"
	"testing"

	"github.com/contextkit/compact/internal/msgtest"
	"github.com/contextkit/compact/internal/sharedtest"
	"github.com/contextkit/compact/prune"
	"github.com/contextkit/compact/tokens"
	"github.com/stretchr/testify/require"
)

// pruneFigures turns on TestPruneFigures, which measures pruning on the
// shared transcripts chained into one history (a few seconds, exact
// counts):
//
//	go test -run TestPruneFigures -v -prune.figures .
var pruneFigures = flag.Bool("prune.figures", false, "measure pruning on the chained shared transcripts")

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
	require.NoError(t, err)
	for _, toolsOnly := range []bool{false, true} {
		msgs := msgtest.SharedChain(t, toolsOnly)
		if msgs == nil {
			sharedtest.Missing(t)
		}
		res := prune.Apply(msgs, prune.WithTokenCounter(tc))
		byKind := map[prune.Kind][2]int{}
		for _, c := range res.Changes {
			k := byKind[c.Kind]
			byKind[c.Kind] = [2]int{k[0] + 1, k[1] + c.TokensBefore - c.TokensAfter}
		}
		t.Logf("chained history (tool-calling transcripts only: %v): %d messages, %d tokens; pruned alone (defaults): %d tokens (-%.1f%%)",
			toolsOnly, len(msgs), res.TokensBefore, res.TokensAfter, 100*float64(res.TokensBefore-res.TokensAfter)/float64(res.TokensBefore))
		for k := prune.Deduplicated; k <= prune.Demoted; k++ {
			if v, ok := byKind[k]; ok {
				t.Logf("  %-32s %4d messages, %6d tokens", k, v[0], v[1])
			}
		}
	}

	// The replay leaves out the chats without tools: they have nothing to
	// prune, and one of them is a single exchange of about 80k tokens that
	// no compaction can fit under a small threshold (it pauses).
	msgs := msgtest.SharedChain(t, true)
	t.Logf("replay of the tool-calling transcripts, one message at a time:")
	t.Logf("%-8s %-9s %-11s %-10s %-16s %s", "window", "threshold", "compactions", "prune-only", "summarizer calls", "without pruning: compactions = summarizer calls")
	for _, window := range []int{32_000, 64_000, DefaultContextWindow} {
		with := &countingSummarizer{s: NewExtractiveSummarizer(nil)}
		c := New(WithContextWindow(window), WithTokenCounter(tc), WithSummarizer(with))
		n, only := grow(t, c, tc, msgs)
		without := &countingSummarizer{s: NewExtractiveSummarizer(nil)}
		grow(t, New(WithContextWindow(window), WithTokenCounter(tc), WithSummarizer(without), WithPruning(false)), tc, msgs)
		t.Logf("%-8d %-9d %-11d %-10s %-16d %d", window, c.threshold(), n,
			fmt.Sprintf("%d (%.0f%%)", only, 100*float64(only)/float64(max(n, 1))), with.calls, without.calls)
	}
}
