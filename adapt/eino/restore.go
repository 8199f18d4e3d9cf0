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
func (c *Conversion) Restore(msgs []compact.Message) ([]*schema.Message, error) {
	match, sub := align.Messages(c.views, msgs)
	used := make([]bool, len(c.views))
	for _, j := range match {
		if j >= 0 {
			used[j] = true
		}
	}
	ids := align.NewIDs(c.views, nil)
	out := make([]*schema.Message, 0, len(msgs))
	for i, m := range msgs {
		if j := match[i]; j >= 0 {
			cp := *c.hist[j]
			out = append(out, &cp)
			continue
		}
		if j, lead, had, ok := align.Shared(c.views, m, used); ok && c.hist[j].Role == schema.User {
			used[j] = true
			out = append(out, withLead(c.hist[j], lead, had))
			continue
		}
		cand := sub[i]
		if cand < 0 && i == 0 && len(c.views) > 0 {
			cand = 0 // a first message that may extend the first input message
		}
		u, ok := c.changed(m, cand, used, ids)
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

// withLead returns a copy of u, a user message, with lead (a summary merged
// in front of it, see align.Shared) before its content, in place of the
// summary it had when had: joined to Content when it has one or no part
// list, else as a text part leading its part list.
func withLead(u *schema.Message, lead string, had bool) *schema.Message {
	cp := *u
	own := func(t string) string {
		if had {
			return align.OwnText(t)
		}
		return t
	}
	switch {
	case cp.Content != "" || !usesLists(&cp):
		cp.Content = lead + align.LeadSep + own(cp.Content)
	case len(cp.MultiContent) > 0:
		parts := cp.MultiContent
		if had && parts[0].Type == schema.ChatMessagePartTypeText {
			if parts = parts[1:]; own(u.MultiContent[0].Text) != "" {
				parts = append([]schema.ChatMessagePart{{Type: schema.ChatMessagePartTypeText, Text: own(u.MultiContent[0].Text)}}, parts...)
			}
		}
		cp.MultiContent = append([]schema.ChatMessagePart{{Type: schema.ChatMessagePartTypeText, Text: lead}}, parts...)
	default:
		parts := cp.UserInputMultiContent
		if had && parts[0].Type == schema.ChatMessagePartTypeText {
			if parts = parts[1:]; own(u.UserInputMultiContent[0].Text) != "" {
				first := u.UserInputMultiContent[0]
				first.Text = own(first.Text)
				parts = append([]schema.MessageInputPart{first}, parts...)
			}
		}
		cp.UserInputMultiContent = append([]schema.MessageInputPart{{Type: schema.ChatMessagePartTypeText, Text: lead}}, parts...)
	}
	return &cp
}

// FromMessages converts a go-openai history, with no original messages
// behind it, to eino messages: each message to one of the same role,
// string content as Content, a user message's parts as
// UserInputMultiContent, an assistant's as AssistantGenMultiContent, any
// other role's as MultiContent, tool calls, call ids,
// names and reasoning content as eino's fields of the same names. msgs is
// not modified.
func FromMessages(msgs []compact.Message) ([]*schema.Message, error) {
	return (&Conversion{}).Restore(msgs)
}
