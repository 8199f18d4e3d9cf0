package session

import (
	"context"
	"slices"

	openai "github.com/sashabaranov/go-openai"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/internal/msg"
	"github.com/contextkit/compact/session/store"
)

// calls names the tool each call id invoked, as learnt from the assistant
// turns a recall tool has read, and looks back in the log for the ones it
// has not seen.
type calls struct {
	s     *Session
	names map[string]string
}

func (s *Session) newCalls() *calls { return &calls{s: s, names: map[string]string{}} }

// maxCallNames bounds what calls remembers; past it, it starts over (a
// lookback finds any it forgot).
const maxCallNames = 4096

// learn records the calls an assistant turn makes.
func (c *calls) learn(m compact.Message) {
	if len(c.names)+len(m.ToolCalls) > maxCallNames {
		clear(c.names)
	}
	for _, tc := range m.ToolCalls {
		if tc.ID != "" {
			c.names[tc.ID] = tc.Function.Name
		}
	}
}

// callLookback is how far before a tool result a lookback searches for the
// call it answers, in reads of growing size: a result usually follows its
// call within a few messages, and within a turn always.
var callLookback = [...]int64{4, 28, 224}

// tool returns the name of the tool whose result r is: the message's own
// name, the call it answers among those learnt, or the call found reading
// back from r; "" for a message that is no tool result or when the call
// is not found.
func (c *calls) tool(ctx context.Context, r store.Record) (string, error) {
	m := r.Message
	if m.Role != compact.RoleTool {
		return "", nil
	}
	if m.Name != "" {
		return m.Name, nil
	}
	if m.ToolCallID == "" {
		return "", nil
	}
	if n, ok := c.names[m.ToolCallID]; ok {
		return n, nil
	}
	to := r.Seq - 1
	for _, n := range callLookback {
		if to < 1 {
			break
		}
		from := max(1, to-n+1)
		recs, err := c.s.store.Read(ctx, c.s.id, from, to)
		if err != nil {
			return "", err
		}
		for i := len(recs) - 1; i >= 0; i-- {
			for _, tc := range recs[i].Message.ToolCalls {
				if tc.ID == m.ToolCallID {
					c.names[tc.ID] = tc.Function.Name
					return tc.Function.Name, nil
				}
			}
		}
		to = from - 1
	}
	return "", nil
}

// callNames lists the tools an assistant turn calls, in order.
func callNames(m compact.Message) []string {
	if len(m.ToolCalls) == 0 {
		return nil
	}
	out := make([]string, len(m.ToolCalls))
	for i, tc := range m.ToolCalls {
		out[i] = tc.Function.Name
	}
	return out
}

// isRecallTool reports whether name is one of the recall tools.
func isRecallTool(name string) bool {
	return name == ToolSearch || name == ToolExpand || name == ToolDescribe
}

// recallSpans returns where, in store.SearchText(m), m's calls of the recall
// tools are written: each call's line, and the argument values
// msg.EscapedArguments adds for it. Each span is whole lines. nil when m calls
// no recall tool.
func recallSpans(m compact.Message) []span {
	if !slices.ContainsFunc(m.ToolCalls, func(tc openai.ToolCall) bool { return isRecallTool(tc.Function.Name) }) {
		return nil
	}
	var out []span
	pos := 0
	if text := compact.Text(m); text != "" {
		pos = len(text) + 1 // the text, then a line break
	}
	for i, tc := range m.ToolCalls {
		if i > 0 {
			pos++ // the line break between two calls
		}
		n := len(tc.Function.Name) + len("(") + len(tc.Function.Arguments) + len(")")
		if isRecallTool(tc.Function.Name) {
			out = append(out, span{pos, pos + n})
		}
		pos += n
	}
	// The decoded values follow, each call's after a line break.
	for _, tc := range m.ToolCalls {
		values := msg.EscapedArguments(compact.Message{ToolCalls: []openai.ToolCall{tc}})
		if values == "" {
			continue
		}
		pos++ // the line break before these values
		if isRecallTool(tc.Function.Name) {
			out = append(out, span{pos, pos + len(values)})
		}
		pos += len(values)
	}
	return out
}
