package eino

import (
	"fmt"

	"github.com/cloudwego/eino/schema"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/internal/align"
)

// Restore converts msgs, an engine's output for c.Messages, back to eino
// messages. Every message the engine kept unchanged comes back as a copy of
// the original (the same value, byte for byte when encoded); messages the
// engine changed or wrote are converted as the package doc describes. It
// does not modify msgs.
//
// A restored message is a new *schema.Message holding a copy of the
// original's top-level struct; values nested deeper (parts, tool calls,
// Extra maps, ResponseMeta) are shared with the history c was made from.
// Neither is modified here, so a host that changes them in place should
// copy them first.
//
// A message of msgs with both Content and MultiContent is an error
// (compact.Validate's, naming it), since converting it would keep one and
// drop the other.
func (c *Conversion) Restore(msgs []compact.Message) ([]*schema.Message, error) {
	if err := align.BothContents(msgs); err != nil {
		return nil, fmt.Errorf("eino: %w", err)
	}
	o := align.NewOrigins(c.views, msgs, nil)
	out := make([]*schema.Message, 0, len(msgs))
	for i, m := range msgs {
		if j := o.Match[i]; j >= 0 {
			cp := *c.hist[j]
			out = append(out, &cp)
			continue
		}
		if j, lead, had, ok := align.Shared(c.views, m, o.Used); ok && c.hist[j].Role == schema.User {
			o.Used[j] = true
			out = append(out, withLead(c.hist[j], lead, had))
			continue
		}
		cand := o.Sub[i]
		if cand < 0 && i == 0 && len(c.views) > 0 {
			cand = 0 // a first message that may extend the first input message
		}
		u, ok := c.changed(m, i, cand, o)
		if !ok {
			return nil, fmt.Errorf("eino: message %d: %w: a message with no role", i, compact.ErrInvalidHistory)
		}
		out = append(out, u)
	}
	if len(out) == 0 && len(c.hist) == 0 {
		return c.hist, nil
	}
	return out, nil
}

// FromMessages converts a go-openai history, with no original messages
// behind it, to eino messages: each message to one of the same role,
// string content as Content, a user message's parts as
// UserInputMultiContent, an assistant's as AssistantGenMultiContent, any
// other role's as MultiContent, tool calls, call ids,
// names and reasoning content as eino's fields of the same names. A message
// with both Content and MultiContent is an error naming it, as
// compact.Validate reports it. msgs is not modified.
func FromMessages(msgs []compact.Message) ([]*schema.Message, error) {
	return (&Conversion{}).Restore(msgs)
}
