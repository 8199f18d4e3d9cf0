package align

import (
	"slices"

	openai "github.com/sashabaranov/go-openai"

	"github.com/contextkit/compact"
)

// Origins lines up an engine's output with the converted history it was
// given (see Messages) and finds the input message behind each tool result
// or tool-calling turn the engine changed (a pruned result, shortened
// arguments), so that an adapter keeps that message's other fields.
//
// A tool call id names the input message when one message holds it. Agents
// reuse ids (tau-bench style agents number their calls afresh each turn),
// so when several input messages hold it, the position decides: a candidate
// between the input messages given back before the output message and the
// one kept after it, the same-id output messages of that stretch taking the
// last candidates in order (a compaction keeps the end of a history and
// folds its start), else the first candidate after what was given back
// before it. An ambiguous id never leaves the message without its origin
// while a candidate is left.
type Origins struct {
	// Match and Sub are Messages' answer: for each output message, the
	// input message it reproduces, or the one it took the place of (-1
	// for none).
	Match, Sub []int
	// Used marks the input messages given back already: those the output
	// reproduced, and each one Result or Call returned. An adapter marks
	// those it rebuilds a changed message from by other means.
	Used []bool

	out            []compact.Message
	results, calls map[string][]int // id -> input messages holding it, in order
	from           []int            // for each output message, the input message it came from, or -1
}

// NewOrigins aligns out, an engine's output, with in, the converted
// history, and indexes the ids of in's tool results and calls, leaving out
// the messages skip names (nil skips none).
func NewOrigins(in, out []compact.Message, skip func(j int) bool) *Origins {
	o := &Origins{out: out, Used: make([]bool, len(in)), results: map[string][]int{}, calls: map[string][]int{}}
	o.Match, o.Sub = Messages(in, out)
	o.from = slices.Clone(o.Match)
	for _, j := range o.Match {
		if j >= 0 {
			o.Used[j] = true
		}
	}
	for j, v := range in {
		switch {
		case skip != nil && skip(j):
		case v.Role == compact.RoleTool:
			o.results[v.ToolCallID] = append(o.results[v.ToolCallID], j)
		case v.Role == compact.RoleAssistant:
			for k, c := range v.ToolCalls {
				if !slices.ContainsFunc(v.ToolCalls[:k], func(d openai.ToolCall) bool { return d.ID == c.ID }) {
					o.calls[c.ID] = append(o.calls[c.ID], j)
				}
			}
		}
	}
	return o
}

// Result returns the input tool result behind output message i, a tool
// result with call id id that the engine changed, and marks it used; false
// when no input result with that id is left.
func (o *Origins) Result(i int, id string) (int, bool) {
	return o.take(i, id, o.results, func(m compact.Message) bool {
		return m.Role == compact.RoleTool && m.ToolCallID == id
	})
}

// Call returns the input assistant turn behind output message i, an
// assistant turn that makes a call with id id and that the engine changed,
// and marks it used; false when no input turn with that call is left.
func (o *Origins) Call(i int, id string) (int, bool) {
	return o.take(i, id, o.calls, func(m compact.Message) bool {
		return m.Role == compact.RoleAssistant && slices.ContainsFunc(m.ToolCalls, func(c openai.ToolCall) bool { return c.ID == id })
	})
}

// take picks, for output message i, the input message among in[id] that
// the position names (see Origins), and marks it used.
func (o *Origins) take(i int, id string, in map[string][]int, same func(compact.Message) bool) (int, bool) {
	var cands []int
	for _, j := range in[id] {
		if !o.Used[j] {
			cands = append(cands, j)
		}
	}
	j, ok := o.pick(i, cands, same)
	if !ok {
		return 0, false
	}
	o.Used[j] = true
	if i >= 0 && i < len(o.from) {
		o.from[i] = j
	}
	return j, true
}

// pick is the candidate for output message i; see Origins.
func (o *Origins) pick(i int, cands []int, same func(compact.Message) bool) (int, bool) {
	switch {
	case len(cands) == 0:
		return 0, false
	case len(cands) == 1:
		return cands[0], true
	}
	lo, hi, end := -1, len(o.Used), len(o.out)
	for k := min(i, len(o.from)) - 1; k >= 0; k-- {
		if o.from[k] >= 0 {
			lo = o.from[k]
			break
		}
	}
	for k := i + 1; k < len(o.Match); k++ {
		if o.Match[k] >= 0 {
			hi, end = o.Match[k], k
			break
		}
	}
	var inside []int
	for _, j := range cands {
		if j > lo && j < hi {
			inside = append(inside, j)
		}
	}
	if len(inside) > 0 {
		n := 0 // the same-id output messages from i to the next one kept
		for k := max(i, 0); k < end && k < len(o.out); k++ {
			if same(o.out[k]) {
				n++
			}
		}
		return inside[max(len(inside)-n, 0)], true
	}
	for _, j := range cands {
		if j > lo {
			return j, true
		}
	}
	return cands[0], true
}
