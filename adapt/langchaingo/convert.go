package langchaingo

import (
	"fmt"
	"slices"

	"github.com/tmc/langchaingo/llms"

	"github.com/contextkit/compact"
)

// Conversion is a langchaingo history converted to compact's messages,
// with what Restore needs to give back the original message of everything
// an engine keeps.
type Conversion struct {
	// Messages is the history as compact reads it: one message for each
	// message, except that a tool message holding several tool call
	// responses is one compact tool message for each (then one user
	// message for any other part it holds). The caller may modify or hand
	// over this slice; Restore does not read it.
	Messages []compact.Message

	hist   []llms.MessageContent // the input, slice copied
	parts  [][]llms.ContentPart  // each message's parts as Convert saw them
	views  []compact.Message     // a private copy of Messages
	pieces []piece               // where each message came from
}

// piece records which parts of the input one converted message stands for:
// the parts idx of message msg. first and last say whether it is the first
// or the last converted message of its input message.
type piece struct {
	msg         int
	idx         []int
	first, last bool
}

// Convert converts msgs to compact's messages. It does not modify msgs, and
// keeps a copy of the slice and of each message's parts slice for Restore.
//
// A part inside a CachedContent (llms.WithCacheControl) reads as the part
// it wraps, and a part of a type this package does not read (a host's own)
// as its type and JSON, so the engine counts and summarises what every
// part says; Restore gives each back as it was.
//
// It fails only on what no message can express: a role langchaingo does
// not define, or a nil part, a nil pointer of a part type (such as a
// (*llms.TextContent)(nil), which encodes as null) or a cache wrapper
// around one. The error names the message and the part and wraps
// compact.ErrInvalidHistory. Parts in places a provider refuses (a tool
// call in a human message, say) convert as text, so the engine can still
// read them; Validate reports them.
func Convert(msgs []llms.MessageContent) (*Conversion, error) {
	c := &Conversion{hist: slices.Clone(msgs), parts: make([][]llms.ContentPart, len(msgs))}
	for k, m := range msgs {
		c.parts[k] = slices.Clone(m.Parts)
		for i, p := range m.Parts {
			if problem := partProblem(p); problem != "" {
				return nil, fmt.Errorf("langchaingo: message %d: %w: part %d %s", k, compact.ErrInvalidHistory, i, problem)
			}
		}
		if err := c.addMessage(k, m); err != nil {
			return nil, fmt.Errorf("langchaingo: message %d: %w: %w", k, compact.ErrInvalidHistory, err)
		}
	}
	c.Messages = compact.Clone(c.views)
	return c, nil
}

func (c *Conversion) add(m compact.Message, p piece) {
	c.views = append(c.views, m)
	c.pieces = append(c.pieces, p)
}

// addMessage converts message k.
func (c *Conversion) addMessage(k int, m llms.MessageContent) error {
	whole := piece{msg: k, idx: allParts(len(m.Parts)), first: true, last: true}
	switch m.Role {
	case llms.ChatMessageTypeSystem:
		c.add(userView(compact.RoleSystem, m.Parts), whole)
	case llms.ChatMessageTypeHuman, llms.ChatMessageTypeGeneric:
		c.add(userView(compact.RoleUser, m.Parts), whole)
	case llms.ChatMessageTypeFunction:
		c.add(functionView(m.Parts), whole)
	case llms.ChatMessageTypeAI:
		c.add(aiView(m.Parts), whole)
	case llms.ChatMessageTypeTool:
		var msgs []compact.Message
		var idx [][]int
		var rest []int
		for i, p := range m.Parts {
			if r, ok := asResponse(p); ok {
				msgs = append(msgs, compact.Message{Role: compact.RoleTool, ToolCallID: r.ToolCallID, Name: r.Name, Content: r.Content})
				idx = append(idx, []int{i})
				continue
			}
			rest = append(rest, i)
		}
		if len(rest) > 0 || len(msgs) == 0 {
			msgs, idx = append(msgs, userView(compact.RoleUser, pick(m.Parts, rest))), append(idx, rest)
		}
		for n, v := range msgs {
			c.add(v, piece{msg: k, idx: idx[n], first: n == 0, last: n == len(msgs)-1})
		}
	default:
		return fmt.Errorf("role %q", m.Role)
	}
	return nil
}

// allParts is 0, 1, ..., n-1.
func allParts(n int) []int {
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	return idx
}

// pick is parts[i] for each i of idx.
func pick(parts []llms.ContentPart, idx []int) []llms.ContentPart {
	out := make([]llms.ContentPart, len(idx))
	for n, i := range idx {
		out[n] = parts[i]
	}
	return out
}

// messageOf returns the index in the input of the message behind
// converted message i. Compress uses it to name the message behind an
// engine's validation error.
func (c *Conversion) messageOf(i int) int {
	if i < 0 || i >= len(c.pieces) {
		return -1
	}
	return c.pieces[i].msg
}
