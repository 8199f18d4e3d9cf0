package anthropicv1

import (
	"fmt"

	"github.com/contextkit/compact"
)

// FromMessages converts an OpenAI-style history, with no original blocks
// behind it, to a History with the Messages API's shape: leading system
// messages become the system prompt; text and images become blocks (an
// image as a base64 or URL source); tool calls become tool_use blocks
// (arguments that are not a JSON object are wrapped as {"arguments": ...});
// tool messages become tool_result blocks at the start of the user turn
// after the calls; consecutive user or assistant messages merge into one
// turn (an assistant turn's tool_use blocks after its other blocks, as one
// message's calls follow its text); a history that would open on an assistant turn opens on a short
// user turn instead; a tool call id used a second time (OpenAI allows it,
// Anthropic does not) gets a suffix, and so do the results that answer it.
// Reasoning content is left out: Anthropic takes thinking only with the
// signature it issued. A message with both Content and MultiContent is an
// error naming it, as compact.Validate reports it. msgs is not modified.
func FromMessages(msgs []compact.Message) (History, error) {
	return (&Conversion{}).Restore(uniqueCallIDs(msgs))
}

// uniqueCallIDs returns msgs with every tool call id used before renamed,
// in the call and in the result that answers it. A result answers the
// first call of its assistant turn with its id that no earlier result
// answered, as compact.Validate pairs them. msgs itself is returned when no
// id repeats.
func uniqueCallIDs(msgs []compact.Message) []compact.Message {
	seen := map[string]bool{}
	var out []compact.Message
	var open map[string][]string // id as written -> ids of the open calls, in call order
	for i, m := range msgs {
		switch m.Role {
		case compact.RoleAssistant:
			open = map[string][]string{}
			for k, c := range m.ToolCalls {
				id := c.ID
				for n := 2; seen[id]; n++ {
					id = fmt.Sprintf("%s_%d", c.ID, n)
				}
				seen[id] = true
				if id != c.ID {
					if out == nil {
						out = compact.Clone(msgs)
					}
					out[i].ToolCalls[k].ID = id
				}
				open[c.ID] = append(open[c.ID], id)
			}
		case compact.RoleTool:
			if ids := open[m.ToolCallID]; len(ids) > 0 {
				if ids[0] != m.ToolCallID {
					out[i].ToolCallID = ids[0]
				}
				open[m.ToolCallID] = ids[1:]
			}
		default:
			open = nil
		}
	}
	if out == nil {
		return msgs
	}
	return out
}
