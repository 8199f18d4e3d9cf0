package compact

import (
	"slices"
	"strings"

	"github.com/contextkit/compact/internal/msg"
	"github.com/contextkit/compact/prune"
)

// The fates of an input message (MessageFate.Fate).
const (
	fateKept     = "kept"
	fatePruned   = "pruned"
	fateFolded   = "folded"
	fateCarried  = "carried"
	fateLifted   = "lifted"
	fateShort    = "shortened"
	fateMerged   = "merged"
	fateDropped  = "dropped"
	fateRepaired = "repaired"
)

// account fills res.Account: what the compaction did with each message of
// in, the caller's input, of which work is the history compacted (in
// itself, or its repair). Messages a repair dropped or merged are
// accounted as such; the others by their index w in work, through the
// layout assemble builds (system messages and head in place, then the
// summary, the lifted message and the tail) or, for a pruning alone, in
// place. Until here the Result's input indexes index work; account turns
// them into in's. shared says the summary was merged in front of the turn
// after it (see WithUserFirst).
func (c *Compressor) account(in, work []Message, res *Result, shared bool) {
	dropped, merged := map[int]bool{}, map[int]bool{}
	repaired := map[int]RepairKind{}
	for _, rp := range res.Repairs {
		switch rp.Kind {
		case RepairDroppedResult:
			dropped[rp.Index] = true
		case RepairMergedSeam:
			merged[rp.Index] = true
		default:
			if _, ok := repaired[rp.Index]; !ok {
				repaired[rp.Index] = rp.Kind
			}
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
	// first and last are the input messages each message of work starts
	// and ends with: more than one where a repair merged turns.
	first, last := make([]int, len(work)), make([]int, len(work))
	tools := callNames(in)
	out := make([]MessageFate, len(in))
	w := -1      // the message's index in work
	joined := -1 // where the last message not dropped went
	for i, m := range in {
		a := MessageFate{Index: i, Role: m.Role, Tool: tools[i], Tokens: c.tc.CountMessage(m), Output: -1}
		switch {
		case dropped[i]:
			a.Fate = fateDropped
		case merged[i] && w >= 0:
			a.Fate, a.Output, last[w] = fateMerged, joined, i
		default:
			w++
			first[w], last[w] = i, i
			a.Fate, a.Output = res.placed(w, shared)
			if k, ok := pruned[w]; ok && (a.Fate == fateKept || a.Fate == fateLifted) {
				a.Fate, a.Prune = fatePruned, k
			}
			if a.Fate == fateFolded && carried[w] {
				a.Fate = fateCarried
			}
			if (a.Fate == fateKept || a.Fate == fateLifted) && !msg.EqualMessage(m, work[w]) {
				// A repair changed it: a call removed, a placeholder, or
				// the turn after it merged in.
				a.Fate, a.Repair = fateRepaired, repaired[i]
				if a.Repair == 0 {
					a.Repair = RepairMergedSeam
				}
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
	if res.Repairs == nil {
		return
	}
	// The Result's other input indexes become the input's too: a message of
	// the repair is the input message it starts with, the summarised range
	// ends with the last input message of its last message.
	if res.SummarizedFrom >= 0 {
		res.SummarizedFrom, res.SummarizedTo = first[res.SummarizedFrom], last[res.SummarizedTo]
	}
	if res.Lifted >= 0 {
		res.Lifted = first[res.Lifted]
	}
	res.CarriedFrom = slices.Clone(res.CarriedFrom)
	for k, w := range res.CarriedFrom {
		res.CarriedFrom[k] = first[w]
	}
	res.Pruned = slices.Clone(res.Pruned)
	for k := range res.Pruned {
		res.Pruned[k].Index = first[res.Pruned[k].Index]
	}
}

// placed returns the fate and output index of message w of the history
// res compacted. shared says the summary was merged in front of the turn
// after it (see WithUserFirst), which then has no message of its own.
func (res *Result) placed(w int, shared bool) (string, int) {
	merged := 0
	if shared {
		merged = 1
	}
	switch {
	case res.SummaryIndex < 0 || w < res.SummarizedFrom:
		return fateKept, w
	case w == res.Lifted:
		return fateLifted, res.SummaryIndex + 1 - merged
	case w <= res.SummarizedTo:
		return fateFolded, res.SummaryIndex
	}
	at := res.SummaryIndex + w - res.SummarizedTo - merged
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
