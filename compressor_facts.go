package compact

import "context"

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

// factsTarget returns the summary target for req: base, or, when the facts
// index of the range (and of the summary it updates) needs more than the
// share of base it gets, enough for the whole index to take that share
// (see extractive.FactsRoom), up to limit (a third of the threshold) and
// half of the tokens folded.
func (c *Compressor) factsTarget(ctx context.Context, req SummaryRequest, base, limit, folded int) int {
	limit = min(limit, folded/2)
	if limit <= base {
		return base
	}
	grown := c.facts.factsRoom(ctx, req, limit)
	return max(base, min(grown, limit))
}
