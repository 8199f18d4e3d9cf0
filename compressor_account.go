package compact

import "strings"

// MessageFate is the account of one input message of a compaction: what
// it was and what the compaction did with it (see Result.Account).
type MessageFate struct {
	Index int    // its index in the input
	Role  string // its role
	// Tool is the tool a tool result answers, or the tools an assistant
	// turn calls (comma-separated); "" otherwise.
	Tool string
	// Tokens is its size in the input, as the Compressor counts it (the
	// estimate for the messages CompressHere or CompressBefore kept from
	// an engine that is not a RangeCompressor).
	Tokens int
	// Fate is one of:
	//   - "kept": in Result.Messages as it came in (a system prompt may
	//     have gained CompactionNote, once);
	//   - "pruned": in Result.Messages, changed by pruning (Prune says how);
	//   - "folded": folded into the summary;
	//   - "carried": a real user message of the summarised range, carried
	//     verbatim inside the summary message (the oldest of them may be
	//     cut in its middle to fit);
	//   - "lifted": the latest real user message, inside the summarised
	//     range, placed verbatim right after the summary;
	//   - "shortened": in Result.Messages cut in its middle so the request
	//     fits (the latest user message, under WithTrimOversized);
	//   - "merged": joined to the turn before it at a seam: one a repair's
	//     removal made (see WithRepair), or where a partial compaction
	//     through another engine rejoined the kept messages (see Join);
	//   - "dropped": a repair removed it, a tool result that answered no
	//     call.
	Fate string
	// Prune is what pruning did to it ("pruned" only).
	Prune PruneKind
	// Output is where it went in Result.Messages: its own index when kept,
	// pruned or lifted, the summary's when folded or carried, the turn it
	// joined when merged; -1 when dropped.
	Output int
}

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
		case repairDroppedResult:
			dropped[rp.Index] = true
		case repairMergedSeam:
			merged[rp.Index] = true
		}
	}
	pruned := make(map[int]PruneKind, len(res.Pruned))
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
