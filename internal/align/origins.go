package align

import "github.com/contextkit/compact"

// Origins finds the input message behind a message an engine changed (a
// pruned tool result, shortened arguments), by the tool-call ids they
// share: a tool result by its call id, a tool-calling assistant turn by its
// first call's id. An id that two input messages hold names neither. Each
// input message stands behind one output message at most: the ones the
// output reproduced unchanged are taken from the start, and Of and Claim
// take the others.
type Origins struct {
	results, calls map[string]int
	used           []bool
}

// NewOrigins indexes in, the views of an input history, for out's messages
// that match (as Messages returns it) does not pair with an input message.
// Messages skip reports (nil skips none) are never an origin.
func NewOrigins(in []compact.Message, match []int, skip func(j int) bool) *Origins {
	o := &Origins{results: map[string]int{}, calls: map[string]int{}, used: make([]bool, len(in))}
	for _, j := range match {
		if j >= 0 {
			o.used[j] = true
		}
	}
	put := func(m map[string]int, id string, j int) {
		if _, dup := m[id]; dup {
			m[id] = -1
			return
		}
		m[id] = j
	}
	for j, v := range in {
		switch {
		case skip != nil && skip(j):
		case v.Role == compact.RoleTool:
			put(o.results, v.ToolCallID, j)
		case v.Role == compact.RoleAssistant:
			for _, call := range v.ToolCalls {
				put(o.calls, call.ID, j)
			}
		}
	}
	return o
}

// Of returns the input message m stands for by its tool-call ids, and takes
// it; false when m is neither a tool result nor a tool-calling assistant
// turn, when no one input message holds its id, or when that message is
// taken.
func (o *Origins) Of(m compact.Message) (int, bool) {
	var j int
	var ok bool
	switch {
	case m.Role == compact.RoleTool:
		j, ok = o.results[m.ToolCallID]
	case m.Role == compact.RoleAssistant && len(m.ToolCalls) > 0:
		j, ok = o.calls[m.ToolCalls[0].ID]
	}
	if !ok || j < 0 {
		return 0, false
	}
	return j, o.Claim(j)
}

// Free reports whether input message j is not taken.
func (o *Origins) Free(j int) bool { return j >= 0 && j < len(o.used) && !o.used[j] }

// Claim takes input message j, and reports whether it was free.
func (o *Origins) Claim(j int) bool {
	if !o.Free(j) {
		return false
	}
	o.used[j] = true
	return true
}
