package compact

import (
	"context"
	"strings"
)

// Summarizer condenses a span of conversation into a summary that a later
// context window can continue from.
//
// An implementation must keep these rules:
//   - Summarize must honour ctx: when ctx is done it returns promptly with an
//     error that wraps ctx.Err().
//   - It must not modify req.Turns or any message in it.
//   - It returns the summary's body only: no summary prefix (the Compressor
//     adds SummaryPrefix exactly once) and no markup around it.
//   - When req.PreviousSummary is set, the result replaces it: it must carry
//     forward whatever of the previous summary still matters, because the
//     previous summary is not kept beside the new one.
//   - An error is returned, never an empty summary, when nothing usable was
//     produced. Errors that retrying cannot fix wrap ErrSummarizerAuth or
//     ErrSummarizerQuota, so the Compressor aborts instead of falling back.
//   - It must be safe for concurrent use: one Summarizer may serve many
//     sessions at once.
type Summarizer interface {
	Summarize(ctx context.Context, req SummaryRequest) (string, error)
}

// SummaryRequest is what a Summarizer receives.
type SummaryRequest struct {
	// Turns are the messages to fold into the summary, oldest first, exactly
	// as they were in the history (not rendered, not redacted). A previous
	// summary is never among them: it is in PreviousSummary.
	Turns []Message

	// PreviousSummary is the body of the summary the history already had,
	// without its prefix, or "" on a first compaction. The new summary
	// updates it rather than starting over.
	PreviousSummary string

	// Focus is an optional topic the summary should weight: details about it
	// are kept at the expense of others.
	Focus string

	// TargetTokens is roughly how long the summary should be. The Compressor
	// cuts a summary that runs far past it.
	TargetTokens int

	// Prompt, when set, replaces the built-in instructions a model-backed
	// summarizer sends. Summarizers that do not prompt a model ignore it.
	Prompt string
}

// SummarizerFunc adapts an ordinary function to the Summarizer interface.
type SummarizerFunc func(ctx context.Context, req SummaryRequest) (string, error)

// Summarize calls f(ctx, req).
func (f SummarizerFunc) Summarize(ctx context.Context, req SummaryRequest) (string, error) {
	return f(ctx, req)
}

// summarizerName is how a result names the summarizer that ran: its Name
// method when it has one, otherwise "custom".
func summarizerName(s Summarizer) string {
	if n, ok := s.(interface{ Name() string }); ok {
		if name := strings.TrimSpace(n.Name()); name != "" {
			return name
		}
	}
	return "custom"
}

// SummaryPrompt returns the two messages a model-backed summarizer sends for
// req: the instructions (req.Prompt when set) and the material to summarise
// (the previous summary, the focus, and the turns rendered for reading).
func SummaryPrompt(req SummaryRequest) (instructions, material string) {
	instructions = req.Prompt
	if instructions == "" {
		instructions = "Summarise the conversation below so that another assistant can continue the work."
	}
	var b strings.Builder
	if req.PreviousSummary != "" {
		b.WriteString("Previous summary:\n")
		b.WriteString(req.PreviousSummary)
		b.WriteString("\n\n")
	}
	if req.Focus != "" {
		b.WriteString("Focus: ")
		b.WriteString(req.Focus)
		b.WriteString("\n\n")
	}
	for _, m := range req.Turns {
		b.WriteString("[" + m.Role + "] ")
		b.WriteString(Redact(Text(m)))
		if calls := ToolCallText(m); calls != "" {
			b.WriteString("\n" + Redact(calls))
		}
		b.WriteString("\n\n")
	}
	return instructions, b.String()
}
