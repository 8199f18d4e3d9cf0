package genai

import (
	"fmt"
	"strconv"

	sdk "google.golang.org/genai"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/internal/msg"
)

// FromMessages converts an OpenAI-style history, with no original parts
// behind it, to a History with the Gemini API's shape: leading system
// messages become the system instruction (a later one becomes user text);
// text becomes text parts and base64 data: images of an image/ type inline
// data (any other image a text placeholder, as Convert reads inline data
// of another type); tool calls become function calls with their
// ids and arguments (arguments that are not a JSON object are wrapped as
// {"arguments": ...}); tool messages become function responses, their text
// as {"output": ...}, in the user content after the calls; consecutive
// user or model contents merge into one; a history that would open on a
// model content opens on a short user content instead. Reasoning content
// is left out: Gemini takes back only the thoughts it signed. msgs is not
// modified.
//
// It refuses, with an error naming the message that wraps
// compact.ErrInvalidHistory, what no Gemini history can carry as the API
// takes it: a tool message that answers no call of the assistant turn
// before it (or has no call id), a call left unanswered when another turn
// starts (the calls of the last turn may still be running, and may be
// answered in part), a call with no function name, and a message with both
// Content and MultiContent (see compact.Validate). So a History it returns
// passes Validate, unless it has no contents or its last calls are
// answered in part.
//
// An id that Convert makes up for a call or response the Gemini API sent
// without one ("fc_3_1": content 3, part 1) is dropped again where it
// names the part's own place, or belongs to a call whose id was dropped,
// so that FromMessages of what Convert made gives the history back.
func FromMessages(msgs []compact.Message) (History, error) {
	if err := unpaired(msgs); err != nil {
		return History{}, err
	}
	h, err := (&Conversion{}).Restore(msgs)
	if err != nil {
		return h, err
	}
	dropMadeUpIDs(h.Contents)
	return h, nil
}

// dropMadeUpIDs clears, in place, the ids of the function calls and
// responses in contents that Convert would make up again (see callIDs).
// The contents are FromMessages' own, shared with nobody.
func dropMadeUpIDs(contents []*sdk.Content) {
	dropped := map[string]bool{}
	for k, c := range contents {
		if c == nil {
			continue
		}
		for i, p := range c.Parts {
			own := "fc_" + strconv.Itoa(k) + "_" + strconv.Itoa(i)
			switch {
			case p == nil:
			case p.FunctionCall != nil && p.FunctionCall.ID == own:
				dropped[own] = true
				p.FunctionCall.ID = ""
			case p.FunctionResponse != nil && (p.FunctionResponse.ID == own || dropped[p.FunctionResponse.ID]):
				p.FunctionResponse.ID = ""
			}
		}
	}
}

// unpaired reports the first message of msgs whose calls or results no
// Gemini history can pair (see FromMessages).
func unpaired(msgs []compact.Message) error {
	for _, p := range compact.Problems(msgs) {
		switch msg.Rule(p.Rule) {
		case msg.RuleOrphanResult, msg.RuleMissingToolCallID, msg.RuleUnansweredCall:
			return fmt.Errorf("genai: %w", p)
		}
	}
	for i, m := range msgs {
		for _, tc := range m.ToolCalls {
			if m.Role == compact.RoleAssistant && tc.Function.Name == "" {
				return fmt.Errorf("genai: message %d: %w: tool call %q has no function name, which the Gemini API needs",
					i, compact.ErrInvalidHistory, tc.ID)
			}
		}
	}
	return nil
}
