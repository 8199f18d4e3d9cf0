package promptsize

import (
	"slices"

	"github.com/contextkit/compact/internal/msg"
	openai "github.com/sashabaranov/go-openai"
)

// How the rendering labels and drops blocks: the call a tool result
// answers, and the blocks kept when the whole is over caps.Total.

// toolNames returns, for each tool message, the name of the call it
// answers in the group of calls before it ("" when none): the pairing
// compact.RenderTurns labels results with, near enough for an estimate.
func toolNames(turns []msg.Message) []string {
	names := make([]string, len(turns))
	var calls []openai.ToolCall // the group's calls
	var answered []string       // the ids of those answered already
	var group map[string]string // the group, when it is too long to search
	for i, m := range turns {
		switch m.Role {
		case msg.RoleAssistant:
			calls, answered, group = m.ToolCalls, answered[:0], nil
			if len(calls) > searchedCalls {
				group = make(map[string]string, len(calls))
				for _, c := range calls {
					group[c.ID] = c.Function.Name
				}
			}
		case msg.RoleTool:
			id := m.ToolCallID
			if group != nil {
				names[i] = group[id]
				delete(group, id)
				continue
			}
			if slices.Contains(answered, id) {
				continue
			}
			for k := len(calls) - 1; k >= 0; k-- {
				if calls[k].ID == id { // the last of equal ids, as a map keeps
					names[i] = calls[k].Function.Name
					answered = append(answered, id)
					break
				}
			}
		default:
			calls, answered, group = nil, answered[:0], nil
		}
	}
	return names
}

// searchedCalls is the most calls a group has for toolNames to search
// them rather than map them.
const searchedCalls = 16

// fit marks the blocks compact.RenderTurns keeps when their sizes exceed
// caps.Total: the first real user message, the newest blocks that fit,
// those right after the first ask, then those before it. cut is the block
// kept though too long on its own, which the rendering cuts, or -1. size
// returns block i's length, estimating it when first asked.
func fit(turns []msg.Message, size func(int) int, caps Caps) (keep []bool, cut int) {
	budget := caps.Total - 2*(caps.GapMarker+len(caps.Separator))
	keep = make([]bool, len(turns))
	used := 0
	take := func(i int) bool {
		need := size(i) + len(caps.Separator)
		if used+need > budget {
			return false
		}
		keep[i] = true
		used += need
		return true
	}
	first := -1
	for i, m := range turns {
		if msg.IsRealUser(m) {
			first = i
			break
		}
	}
	anchor, cut := first, -1
	if anchor < 0 {
		anchor = len(turns) - 1
	}
	if !take(anchor) {
		cut = anchor
		keep[anchor] = true
		used = budget
	}
	if first < 0 {
		for i := anchor - 1; i >= 0 && take(i); i-- {
		}
		return keep, cut
	}
	for i := len(turns) - 1; i > anchor && take(i); i-- {
	}
	for i := anchor + 1; i < len(turns) && !keep[i] && take(i); i++ {
	}
	for i := 0; i < anchor && take(i); i++ {
	}
	return keep, cut
}
