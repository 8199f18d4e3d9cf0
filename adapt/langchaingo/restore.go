package langchaingo

import (
	"fmt"
	"slices"
	"sort"

	"github.com/tmc/langchaingo/llms"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/internal/align"
)

// segment is one message of an engine's output as parts, with the input
// parts it stands for when there are any.
type segment struct {
	role  llms.ChatMessageType
	parts []llms.ContentPart
	// idx holds, for each part, its index in the origin's message, or -1
	// for a part the input did not have.
	idx    []int
	origin *piece // the input parts it stands for, or nil
	exact  bool   // parts are origin's, unchanged
}

// Restore converts msgs, an engine's output for c.Messages, back to
// langchaingo's messages. Every message the engine kept unchanged comes
// back as the original message (the same role and parts); tool responses
// of one input message come back in one message again; messages the engine
// changed or wrote are converted as the package doc describes. It does not
// modify msgs.
//
// The restored history shares part values (a ToolCall's FunctionCall, a
// BinaryContent's bytes) with the history c was made from; neither is
// modified here.
//
// A message of msgs with both Content and MultiContent is an error
// (compact.Validate's, naming it), since converting it would keep one and
// drop the other.
func (c *Conversion) Restore(msgs []compact.Message) ([]llms.MessageContent, error) {
	if err := align.BothContents(msgs); err != nil {
		return nil, fmt.Errorf("langchaingo: %w", err)
	}
	o := align.NewOrigins(c.views, msgs, nil)
	names := map[string]string{}
	var segs []segment
	for i, m := range msgs {
		if m.Role == compact.RoleAssistant {
			// Only an assistant's calls become ToolCall parts: a tool
			// response is named after one of them, never after a call
			// another role carried, which no part keeps.
			for _, tc := range m.ToolCalls {
				names[tc.ID] = tc.Function.Name
			}
		}
		if j := o.Match[i]; j >= 0 {
			segs = append(segs, c.exactSegment(j))
			continue
		}
		s, ok := c.changedSegment(m, i, len(segs) == 0, o, names)
		if !ok {
			return nil, fmt.Errorf("langchaingo: message %d: %w: role %q has no place in a langchaingo history",
				i, compact.ErrInvalidHistory, m.Role)
		}
		segs = append(segs, s)
	}
	out := c.assemble(segs)
	if len(out) == 0 && len(c.hist) == 0 {
		return c.hist, nil
	}
	return out, nil
}

// msgOut is one message of a restored history while it is assembled.
type msgOut struct {
	segment
	msg          int // the input message (-1 for a new one)
	starts, ends bool
}

// assemble joins the segments that came from one input message (the tool
// responses of one message, say) and makes each a message: the input
// message itself when it came through whole and unchanged.
func (c *Conversion) assemble(segs []segment) []llms.MessageContent {
	var outs []msgOut
	for _, s := range segs {
		if n := len(outs); n > 0 && s.origin != nil && outs[n-1].msg == s.origin.msg && outs[n-1].role == s.role && !outs[n-1].ends {
			o := &outs[n-1]
			o.parts, o.idx = append(o.parts, s.parts...), append(o.idx, s.idx...)
			o.ends, o.exact = s.origin.last, o.exact && s.exact
			continue
		}
		o := msgOut{segment: s, msg: -1}
		if s.origin != nil {
			o.msg, o.starts, o.ends = s.origin.msg, s.origin.first, s.origin.last
		}
		if len(o.parts) == 0 && !o.exact {
			continue // a message with nothing a provider can carry
		}
		outs = append(outs, o)
	}
	out := make([]llms.MessageContent, 0, len(outs))
	for _, o := range outs {
		out = append(out, c.emit(o))
	}
	return out
}

// emit is an assembled message: the input message, its parts copied, when
// it is all of it, unchanged; otherwise a message with its parts in the
// input's order where they all come from the input.
func (c *Conversion) emit(o msgOut) llms.MessageContent {
	if o.msg < 0 {
		return llms.MessageContent{Role: o.role, Parts: o.parts}
	}
	orig := c.hist[o.msg]
	if o.exact && o.starts && o.ends && len(o.parts) == len(c.parts[o.msg]) {
		orig.Parts = slices.Clone(c.parts[o.msg])
		return orig
	}
	parts := o.parts
	if !slices.ContainsFunc(o.idx, func(i int) bool { return i < 0 }) {
		order := make([]int, len(parts))
		for i := range order {
			order[i] = i
		}
		sort.SliceStable(order, func(a, b int) bool { return o.idx[order[a]] < o.idx[order[b]] })
		parts = make([]llms.ContentPart, len(order))
		for i, k := range order {
			parts[i] = o.parts[k]
		}
	}
	return llms.MessageContent{Role: orig.Role, Parts: parts}
}
