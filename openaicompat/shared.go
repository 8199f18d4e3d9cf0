package openaicompat

import (
	"fmt"
	"strings"

	"github.com/contextkit/compact"
	openai "github.com/sashabaranov/go-openai"
)

// WithPrefixSharing sets whether the summarizer may send the agent's own
// history (compact.SummaryRequest.History) instead of a rendered
// transcript. The default is true. Turn it off for an endpoint without a
// prompt cache, where the history would be read in full.
//
// Sharing works when the summarizer asks the agent's own model (the
// request's Model equals the model given to New, ignoring case): the
// provider then serves the history from the cache the agent's last
// request filled, at its cached-input price, and the summarizer adds one
// message, SharedInstruction. A Compressor offers the history only to a
// summarizer that says it shares (a compact.PrefixSharer) and only when that is
// cheaper than the rendered prompt; otherwise the summarizer renders, as
// it does for any other request.
func WithPrefixSharing(on bool) Option {
	return func(c *config) { c.noSharing = !on }
}

// SharesPrefix reports whether the summarizer sends a request's History
// for the agent's model: sharing is on (see WithPrefixSharing) and model
// is the summarizer's own. It makes the summarizer a compact.PrefixSharer.
func (s *Summarizer) SharesPrefix(model string) bool {
	return !s.noSharing && model != "" && strings.EqualFold(strings.TrimSpace(model), s.model)
}

// SharedInstruction returns the message a summarizer sends after a shared
// History: the instructions (req.Prompt, or compact.DefaultSummaryInstructions),
// what to leave out (the last req.Kept messages, which stay verbatim),
// the focus, the open tasks' heading rule and the length. The history
// itself carries any earlier summary, which the new one replaces.
func SharedInstruction(req compact.SummaryRequest) string {
	var b strings.Builder
	prompt := req.Prompt
	if prompt == "" {
		prompt = compact.DefaultSummaryInstructions
	}
	b.WriteString(strings.TrimSpace(prompt))
	b.WriteString("\n\nWrite that note now for the conversation above, as your whole reply. Do not call any tool and do not carry on with the task.")
	if req.Kept > 0 {
		fmt.Fprintf(&b, " Its last %d messages stay in the context verbatim after your note: leave them out.", req.Kept)
	}
	b.WriteString(" Where the conversation holds an earlier context handoff, your note replaces it: carry forward what of it still matters.")
	if req.Focus != "" {
		fmt.Fprintf(&b, " Weight this topic: %s.", req.Focus)
	}
	if req.TargetTokens > 0 {
		fmt.Fprintf(&b, " Aim for about %d tokens.", req.TargetTokens)
	}
	return b.String()
}

// sharedRequest is the chat request for a shared History: the history
// exactly as the agent sent it, with its tools (tool_choice none, so the
// model writes), and SharedInstruction as one user message after it.
func (s *Summarizer) sharedRequest(req compact.SummaryRequest) openai.ChatCompletionRequest {
	msgs := make([]openai.ChatCompletionMessage, 0, len(req.History)+1)
	msgs = append(msgs, req.History...)
	msgs = append(msgs, openai.ChatCompletionMessage{Role: openai.ChatMessageRoleUser, Content: SharedInstruction(req)})
	creq := openai.ChatCompletionRequest{Model: s.model, Messages: msgs}
	if len(req.Tools) > 0 {
		creq.Tools, creq.ToolChoice = req.Tools, "none"
	}
	return creq
}
