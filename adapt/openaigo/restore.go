package openaigo

import (
	"fmt"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/param"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/internal/align"
)

// Restore converts msgs, an engine's output for c.Messages, back to the
// SDK's messages. Every message the engine kept unchanged comes back as the
// original (the same value, byte for byte when encoded); messages the
// engine changed or wrote are converted as the package doc describes. It
// does not modify msgs.
//
// A restored message is a copy of the original's top-level struct; values
// nested deeper (content parts, tool calls) are shared with the history c
// was made from. Neither is modified here, so a host that changes them in
// place should copy them first.
//
// A message of msgs with both Content and MultiContent is an error
// (compact.Validate's, naming it), since converting it would keep one and
// drop the other.
func (c *Conversion) Restore(msgs []compact.Message) ([]openai.ChatCompletionMessageParamUnion, error) {
	if err := align.BothContents(msgs); err != nil {
		return nil, fmt.Errorf("openaigo: %w", err)
	}
	o := align.NewOrigins(c.views, msgs, nil)
	out := make([]openai.ChatCompletionMessageParamUnion, 0, len(msgs))
	for i, m := range msgs {
		if j := o.Match[i]; j >= 0 {
			out = append(out, copyUnion(c.hist[j]))
			continue
		}
		if j, lead, had, ok := align.Shared(c.views, m, o.Used); ok && c.hist[j].OfUser != nil {
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
			return nil, fmt.Errorf("openaigo: message %d: %w: role %q has no place in a Chat Completions request",
				i, compact.ErrInvalidHistory, m.Role)
		}
		out = append(out, u)
	}
	if len(out) == 0 && len(c.hist) == 0 {
		return c.hist, nil
	}
	return out, nil
}

// FromMessages converts a go-openai history, with no original messages
// behind it, to the SDK's messages: each message to one of the same role,
// a tool call of type "custom" to a custom call, an image to an image part
// where the role takes images (user) and to a text placeholder elsewhere.
// Reasoning content is left out: the Chat Completions API has no field for
// it. A message with both Content and MultiContent is an error naming it,
// as compact.Validate reports it. msgs is not modified.
func FromMessages(msgs []compact.Message) ([]openai.ChatCompletionMessageParamUnion, error) {
	return (&Conversion{}).Restore(msgs)
}

// withLead returns u, a user message, with lead (a summary merged in front
// of it, see align.Shared) before its content, in place of the summary it
// had when had: as a leading text part, or joined to its string.
func withLead(u openai.ChatCompletionMessageParamUnion, lead string, had bool) openai.ChatCompletionMessageParamUnion {
	v := *u.OfUser
	if parts := v.Content.OfArrayOfContentParts; parts != nil {
		if had {
			parts = parts[1:]
		}
		v.Content.OfArrayOfContentParts = append([]openai.ChatCompletionContentPartUnionParam{openai.TextContentPart(lead)}, parts...)
	} else {
		v.Content.OfString = param.NewOpt(align.JoinLead(lead, align.OwnText(v.Content.OfString.Value)))
	}
	return openai.ChatCompletionMessageParamUnion{OfUser: &v}
}

// copyUnion returns u with its variant struct copied.
func copyUnion(u openai.ChatCompletionMessageParamUnion) openai.ChatCompletionMessageParamUnion {
	switch {
	case u.OfSystem != nil:
		v := *u.OfSystem
		u.OfSystem = &v
	case u.OfDeveloper != nil:
		v := *u.OfDeveloper
		u.OfDeveloper = &v
	case u.OfUser != nil:
		v := *u.OfUser
		u.OfUser = &v
	case u.OfAssistant != nil:
		v := *u.OfAssistant
		u.OfAssistant = &v
	case u.OfTool != nil:
		v := *u.OfTool
		u.OfTool = &v
	case u.OfFunction != nil:
		v := *u.OfFunction
		u.OfFunction = &v
	}
	return u
}
