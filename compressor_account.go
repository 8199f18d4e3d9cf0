package compact

import (
	"strings"

	"github.com/contextkit/compact/internal/msg"
	"github.com/contextkit/compact/prune"
)

// The fates of an input message (MessageFate.Fate).
const (
	fateKept    = "kept"
	fatePruned  = "pruned"
	fateFolded  = "folded"
	fateCarried = "carried"
	fateLifted  = "lifted"
	fateShort   = "shortened"
	fateMerged  = "merged"
	fateDropped = "dropped"
)

// account fills res.Account: what the compaction did with each message of
// msgs, the caller's input. Messages a repair dropped or merged are
// accounted as such; the others by the index the repaired history gave
// them, through the layout assemble builds (system messages and head in
// place, then the summary, the lifted message and the tail) or, for a
// pruning alone, in place.
func (c *Compressor) account(msgs []Message, res *Result) {
	dropped, merged := map[int]bool{}, map[int]bool{}
	for _, rp := range res.Repairs {
		switch rp.Kind {
		case RepairKind(msg.RepairDroppedResult):
			dropped[rp.Index] = true
		case RepairKind(msg.RepairMergedSeam):
			merged[rp.Index] = true
		}
	}
	pruned := make(map[int]prune.Kind, len(res.Pruned))
	for _, ch := range res.Pruned {
		if _, ok := pruned[ch.Index]; !ok {
			pruned[ch.Index] = ch.Kind
		}
	}
	carried := make(map[int]bool, len(res.CarriedFrom))
	for _, i := range res.CarriedFrom {
		carried[i] = true
	}
	tools := callNames(msgs)
	out := make([]MessageFate, len(msgs))
	w := -1      // the message's index in the history after repair
	joined := -1 // where the last message not dropped went
	for i, m := range msgs {
		a := MessageFate{Index: i, Role: m.Role, Tool: tools[i], Tokens: c.cfg.counter.CountMessage(m), Output: -1}
		switch {
		case dropped[i]:
			a.Fate = fateDropped
		case merged[i] && w >= 0:
			a.Fate, a.Output = fateMerged, joined
		default:
			w++
			a.Fate, a.Output = res.placed(w)
			if k, ok := pruned[w]; ok && (a.Fate == fateKept || a.Fate == fateLifted) {
				a.Fate, a.Prune = fatePruned, k
			}
			if a.Fate == fateFolded && carried[w] {
				a.Fate = fateCarried
			}
			if a.Output == res.Shortened && res.Shortened >= 0 {
				a.Fate = fateShort
			}
		}
		if a.Fate != fateDropped {
			joined = a.Output
		}
		out[i] = a
	}
	res.Account = out
}

// placed returns the fate and output index of message w of the history
// res compacted.
func (res *Result) placed(w int) (string, int) {
	switch {
	case res.SummaryIndex < 0 || w < res.SummarizedFrom:
		return fateKept, w
	case w == res.Lifted:
		return fateLifted, res.SummaryIndex + 1
	case w <= res.SummarizedTo:
		return fateFolded, res.SummaryIndex
	}
	at := res.SummaryIndex + w - res.SummarizedTo
	if res.Lifted >= 0 {
		at++
	}
	return fateKept, at
}

// callNames returns, for each message, the tool a result answers (paired
// as Validate pairs) or the tools an assistant turn calls.
func callNames(msgs []Message) []string {
	names := toolNames(msgs)
	for i, m := range msgs {
		if m.Role != RoleTool && len(m.ToolCalls) > 0 {
			calls := make([]string, len(m.ToolCalls))
			for k, tc := range m.ToolCalls {
				calls[k] = tc.Function.Name
			}
			names[i] = strings.Join(calls, ", ")
		}
	}
	return names
}
