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
func (c *Conversion) Restore(msgs []compact.Message) ([]openai.ChatCompletionMessageParamUnion, error) {
	match, sub := align.Messages(c.views, msgs)
	used := make([]bool, len(c.views))
	for _, j := range match {
		if j >= 0 {
			used[j] = true
		}
	}
	ids := c.idIndex()
	out := make([]openai.ChatCompletionMessageParamUnion, 0, len(msgs))
	for i, m := range msgs {
		if j := match[i]; j >= 0 {
			out = append(out, copyUnion(c.hist[j]))
			continue
		}
		if j, lead, had, ok := align.Shared(c.views, m, used); ok && c.hist[j].OfUser != nil {
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
// it. msgs is not modified.
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
		v.Content.OfString = param.NewOpt(lead + align.LeadSep + align.OwnText(v.Content.OfString.Value))
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

// ids maps the ids of the input's tool results and tool calls to their
// messages, for messages the engine changed (a pruned result, shortened
// arguments). An id used twice maps to -1: it names no one message.
type ids struct {
	results, calls map[string]int
}

// putID maps id to message j in m, or to -1 when m has it already.
func putID(m map[string]int, id string, j int) {
	if _, dup := m[id]; dup {
		m[id] = -1
		return
	}
	m[id] = j
}

func (c *Conversion) idIndex() ids {
	x := ids{results: map[string]int{}, calls: map[string]int{}}
	for j, v := range c.views {
		switch {
		case c.hist[j].OfTool != nil:
			putID(x.results, v.ToolCallID, j)
		case c.hist[j].OfAssistant != nil:
			for _, call := range v.ToolCalls {
				putID(x.calls, call.ID, j)
			}
		}
	}
	return x
}
