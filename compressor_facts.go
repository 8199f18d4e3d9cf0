package compact

import (
	"context"
	"strings"
)

// This file lets the summary's budget grow for a range dense in facts: a
// range of many short tool calls can hold more identifiers, paths and
// error lines than a fifth of its size has room for, and a successor that
// loses them repeats the work or gets it wrong.

// factsCapDivisor bounds the grown target: at most a third of the
// threshold. On held-out chains of the shared transcripts a quarter kept
// only about 90% of the error lines and paths at an 8,000-token window, a
// third 97-98%; the summary, the tail (a fifth) and a short head still fit
// under the threshold, though a long system prompt or head may not.
const factsCapDivisor = 3

// factBytesPerToken estimates the facts index's tokens from its bytes:
// identifiers, paths and error lines run denser than prose (about three
// bytes a token against four), and an estimate spares counting exactly
// on every compaction.
const factBytesPerToken = 3

// factsTarget returns the summary target for req: base, or, when the facts
// index of the range (and of the summary it updates) needs more than the
// share of base it gets (all but proseShare), enough for the whole index
// to take that share, up to a third of the threshold and half of the
// tokens folded. The index is measured as the extractive summarizer would
// write it with nothing left out but the paths only mentioned in prose or
// output (the first an index gives up), at factBytesPerToken.
func (c *Compressor) factsTarget(ctx context.Context, req SummaryRequest, base, threshold, folded int) int {
	limit := min(threshold/factsCapDivisor, folded/2)
	if limit <= base {
		return base
	}
	need := factsTokens(ctx, req, limit)
	grown := (need*100 + 100 - proseShare - 1) / (100 - proseShare)
	return max(base, min(grown, limit))
}

// factsTokens estimates the tokens the facts index of req takes, written as
// for a summary of target tokens with nothing trimmed: 0 when there are
// none, or when ctx ends first.
func factsTokens(ctx context.Context, req SummaryRequest, target int) int {
	d := &digest{factsOnly: true}
	if d.scan(ctx, req.Turns) != nil {
		return 0
	}
	d.mergePrevious(strings.TrimSpace(StripSummaryPrefix(req.PreviousSummary)), len(req.Turns) > 0)
	lim := NewExtractiveSummarizer().resolvedLimits(target)
	settleFiles(&d.files)
	var b strings.Builder
	newFactIndex(d, lim).render(&b)
	return (b.Len() + factBytesPerToken - 1) / factBytesPerToken
}
