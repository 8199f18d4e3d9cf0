package compact

import (
	"context"
	"errors"
	"fmt"

	"github.com/contextkit/compact/internal/extractive"
	"github.com/contextkit/compact/tokens"
)

// ExtractiveOptions are the settings of the extractive summarizer (see
// [NewExtractiveSummarizer]). The zero value, as nil, means the defaults.
type ExtractiveOptions struct {
	// Counter measures the summary against its target. nil estimates a
	// token per four bytes, as [tokens.Estimator] does.
	Counter tokens.Counter
}

// extractiveSummarizer is NewExtractiveSummarizer's Summarizer.
type extractiveSummarizer struct {
	s extractive.Summarizer
}

// NewExtractiveSummarizer returns the Summarizer that needs no model: it writes a
// Markdown summary of facts lifted from the turns themselves, the ones a
// successor would otherwise have to re-discover, under the headings
// DefaultSummaryInstructions asks a model for where one applies:
//
//   - Focus: the focus topic, on the first line, when the request names one.
//   - Facts: a dense index, before any prose, of
//     error lines from tool output and pasted by the user (compiler and
//     test failures, panics, a traceback's last line), each once, grouped
//     under the run that printed it last (a command line, or a tool call's
//     name with its short arguments), marked resolved when a later run of
//     the same command or call came back clean;
//     files, grouped by directory: modified (a path argument of a tool
//     that writes, a redirection, sed -i, touch, rm...), read, and
//     referenced (other paths in commands, prose, or located in tool
//     output, file.go:12);
//     identifiers tool calls passed (reservation codes, user and payment
//     ids, issue numbers, SHAs), on one line with the
//     argument and the tools they went to; and the last shell command,
//     verbatim.
//   - Task: the latest real user message, quoted (head and tail when long).
//   - Goal: the user's earlier messages.
//   - Earlier summary: a previous summary this type did not write, quoted.
//   - Completed actions: shell commands and other tool calls, in order,
//     each with the outcome its output shows (→ exit 1, → FAIL,
//     → Traceback, → error); other calls are written name(arguments).
//   - Current state: the assistant's last visible text, quoted; a run of
//     long lines of printed data in it (a dict dump, an image) becomes […].
//   - Decisions: the assistant's sentences that state one ("the fix is",
//     "because", "instead", "I'll").
//   - Next steps: tool calls that have no result yet.
//
// Empty sections are left out. Every list drops duplicates, is capped and
// is written oldest first; when a list is over its cap
// the newest entries are kept, except that facts outrank paths only
// mentioned and intentions, and entries from turns that mention the focus
// topic outrank all others. A previous summary in this format is merged list
// by list, its entries counted older than the new ones; any other previous
// summary is kept, shortened, under Earlier summary.
//
// The result stays near req.TargetTokens, by the size policy below. It is
// deterministic: the same request gives the same bytes. Everything it
// writes passes through [redact.String], and the result is valid UTF-8
// whatever the input. It fails only when ctx is done (wrapping ctx.Err())
// or when there is nothing to summarise: no turns and no previous summary
// (wrapping ErrNothingToCompress). Non-empty turns always give a non-empty
// summary. It is safe for concurrent use, and its Name is "extractive".
// opts sets what measures the summary; nil, or the zero value, means the
// defaults (see [ExtractiveOptions]).
//
// Size policy: with T = req.TargetTokens (2,000 when not
// positive, at least 128), each quoted field is first held
// to a share of T (current task 30%, earlier summary 30%, current state
// 20%). When the whole is over T, the facts index takes the room the
// prose leaves it, the prose keeping at least 15% of T (and at
// least a minimum) when it needs that: the index keeps, in this order,
// unresolved errors, modified files, identifiers and the last command, and
// gives up the rest first (resolved errors, read files and referenced
// paths, paths only mentioned and the oldest first); before it gives up
// the last command or anything above it, the identifiers lose their tools
// and then their argument names. What it leaves out it counts, by kind, on
// its Left out line. Then, while the summary is over T, prose list entries
// are dropped from the list that takes the most room for its weight
// (commands weigh most, decisions least), and within that list the
// lowest-ranked entry first (an intention, then the rest; pending calls
// and entries about the focus last), the oldest first within a rank. If it
// is still over T, the quoted fields are halved in turn, down to an eighth
// of T's bytes (64 to 240 bytes), and last the index gives up more. The
// result exceeds T only by what those minimums hold.
func NewExtractiveSummarizer(opts *ExtractiveOptions) Summarizer {
	var count func(string) int
	if opts != nil && opts.Counter != nil {
		count = opts.Counter.CountText
	}
	return &extractiveSummarizer{s: *extractive.New(extractive.Limits{}, count)}
}

// Name returns "extractive".
func (s *extractiveSummarizer) Name() string { return "extractive" }

// Summarize returns the summary of req (see NewExtractiveSummarizer).
func (s *extractiveSummarizer) Summarize(ctx context.Context, req SummaryRequest) (string, error) {
	out, err := s.s.Summarize(ctx, extractiveRequest(req))
	if errors.Is(err, extractive.ErrNothing) {
		return "", fmt.Errorf("compact: extractive summary: no turns and no previous summary: %w", ErrNothingToCompress)
	}
	return out, err
}

// extractiveRequest is what the extractive summary reads of req.
func extractiveRequest(req SummaryRequest) extractive.Request {
	return extractive.Request{Turns: req.Turns, PreviousSummary: req.PreviousSummary, Focus: req.Focus, TargetTokens: req.TargetTokens}
}

// defaultSummarizer is the summarizer a Compressor uses when none is given,
// and its fallback: the extractive summarizer, deterministic and offline.
func defaultSummarizer() Summarizer { return NewExtractiveSummarizer(nil) }
