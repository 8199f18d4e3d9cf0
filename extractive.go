package compact

import (
	"context"
	"fmt"
	"strings"
)

// ExtractiveSummarizer is the Summarizer that needs no model: it writes a
// Markdown summary of facts lifted from the turns themselves, the ones a
// successor would otherwise have to re-discover, under the headings
// DefaultSummaryInstructions asks a model for where one applies:
//
//   - Focus: the focus topic, on the first line, when the request names one.
//   - Task: the latest real user message, quoted (head and tail when long).
//   - Goal: the user's earlier messages.
//   - Earlier summary: a previous summary this type did not write, quoted.
//   - Completed actions: shell commands and other tool calls, in order,
//     each with the outcome its output shows (→ exit 1, → FAIL,
//     → Traceback, → error); other calls are written name(arguments).
//   - Current state: the assistant's last visible text, quoted.
//   - Decisions: the assistant's sentences that state one ("the fix is",
//     "because", "instead", "I'll").
//   - Relevant files: paths from tool-call arguments (path, file,
//     file_path, target_file... and paths inside commands), each tagged
//     (modified) or (read) by what the tool or command verb did, then
//     (referenced): other paths in commands, prose, or located in tool
//     output (file.go:12).
//   - Errors: error lines from tool output and pasted by the user
//     (compiler and test failures, panics, a traceback's last line).
//   - Next steps: tool calls that have no result yet.
//
// Empty sections are left out. Every list drops duplicates, is capped (see
// extractiveLimits) and is written oldest first; when a list is over its cap
// the newest entries are kept, except that facts outrank paths only
// mentioned and intentions, and entries from turns that mention the focus
// topic outrank all others. A previous summary in this format is merged list
// by list, its entries counted older than the new ones; any other previous
// summary is kept, shortened, under Earlier summary.
//
// The result stays near req.TargetTokens (see Summarize). It is
// deterministic: the same request gives the same bytes. Everything it
// writes passes through [redact.String], and the result is valid UTF-8 whatever the
// input. The zero value is ready to use; an ExtractiveSummarizer is safe for
// concurrent use.
type ExtractiveSummarizer struct {
	limits extractiveLimits
	count  func(string) int
}

// defaultExtractiveLimits bound each list for a summary of
// defaultExtractiveTarget tokens. Full lists together run past that target
// on purpose: trimming then takes from the list most over its share, so a
// history heavy in one kind of fact (many errors, few files) still uses the
// room. Typical agent transcripts fill a fraction of them.
var defaultExtractiveLimits = extractiveLimits{
	Requests: 8, Files: 25, Commands: 15, ToolCalls: 12, Errors: 20, Decisions: 10, Pending: 8,
	TaskChars: 2000, StateChars: 1200, EarlierChars: 4000, ItemChars: 300,
}

// NewExtractiveSummarizer returns an ExtractiveSummarizer. It reads
// [withLimits] and [WithTokenCounter] (which measures the summary instead
// of the default estimate of one token per four bytes) and ignores other
// options.
func NewExtractiveSummarizer(opts ...Option) *ExtractiveSummarizer {
	cfg := newConfig(opts)
	s := &ExtractiveSummarizer{limits: cfg.limits}
	if cfg.counter != nil {
		s.count = cfg.counter.CountText
	}
	return s
}

// Name returns "extractive".
func (s *ExtractiveSummarizer) Name() string { return "extractive" }

const (
	// defaultExtractiveTarget is the summary size, in tokens, used when a
	// request gives no TargetTokens: the order of the summaries
	// model-backed compaction asks for.
	defaultExtractiveTarget = 2000

	// minExtractiveTarget is the smallest target honoured, the
	// Compressor's smallest summary target (minSummaryTokens). A smaller
	// one is raised to it: below it the quoted fields, the task first,
	// would be cut to nothing.
	minExtractiveTarget = minSummaryTokens

	// maxBlockFloor and minBlockFloor bound how short trimming makes a
	// quoted field: an eighth of the target's bytes, within these.
	maxBlockFloor = 240
	minBlockFloor = 64

	// maxFocusChars bounds the focus line; it too is held to an eighth of
	// a small target's bytes.
	maxFocusChars = 200

	// bytesPerToken turns a token target into byte budgets for the quoted
	// fields; it is the default estimate's ratio.
	bytesPerToken = 4
)

// Summarize returns the summary of req. It fails only when ctx is done
// (wrapping ctx.Err()) or when there is nothing to summarise: no turns and
// no previous summary (wrapping ErrNothingToCompress). Non-empty turns
// always give a non-empty summary.
//
// Size policy: with T = req.TargetTokens (defaultExtractiveTarget when not
// positive, at least minExtractiveTarget), each quoted field is first held
// to a share of T (current task 30%, earlier summary 30%, current state
// 20%). Then, while the summary is over T, list entries are dropped from
// the list that takes the most room for its weight (errors, commands and
// modified files weigh most, files only mentioned least), and within that
// list the lowest-ranked entry first (a path only mentioned, an intention,
// then the rest; pending calls and entries about the focus last), the
// oldest first within a rank. If it is still over T, the quoted fields are
// halved in turn, down to an eighth of T's bytes (64 to 240 bytes). The
// result exceeds T only by what
// those minimums hold.
func (s *ExtractiveSummarizer) Summarize(ctx context.Context, req SummaryRequest) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", fmt.Errorf("compact: extractive summary: %w", err)
	}
	prev := strings.TrimSpace(StripSummaryPrefix(req.PreviousSummary))
	if len(req.Turns) == 0 && prev == "" {
		return "", fmt.Errorf("compact: extractive summary: no turns and no previous summary: %w", ErrNothingToCompress)
	}
	target := req.TargetTokens
	if target <= 0 {
		target = defaultExtractiveTarget
	}
	target = max(target, minExtractiveTarget)
	d := &digest{focus: strings.ToLower(strings.TrimSpace(req.Focus))}
	if err := d.scan(ctx, req.Turns); err != nil {
		return "", err
	}
	d.mergePrevious(prev, len(req.Turns) > 0)
	dr := newDraft(d, strings.TrimSpace(req.Focus), s.resolvedLimits(target), target)
	out := dr.fit(target, s.counter())
	if out == "" {
		out = lastResort(d)
	}
	// Every text was redacted where it entered the draft, each on its own:
	// no secret spans two entries, and a pass over the whole could read
	// one entry's text as running into the next heading.
	return strings.ToValidUTF8(out, "\uFFFD"), nil
}

func (s *ExtractiveSummarizer) counter() func(string) int {
	if s.count != nil {
		return s.count
	}
	return func(t string) int { return (len(t) + bytesPerToken - 1) / bytesPerToken }
}

// resolvedLimits is s.limits with defaults for its zero fields (and for
// length limits that are not positive). A default other than ItemChars
// grows in proportion when target is above defaultExtractiveTarget, so a
// caller who gives the summary more room gets longer lists; a limit set
// explicitly stays as set.
func (s *ExtractiveSummarizer) resolvedLimits(target int) extractiveLimits {
	l, d := s.limits, defaultExtractiveLimits
	scale := max(1, float64(target)/defaultExtractiveTarget)
	orDefault := func(v, def int) int {
		if v == 0 {
			return int(float64(def) * scale)
		}
		return v
	}
	positive := func(v, def int) int {
		if v <= 0 {
			return int(float64(def) * scale)
		}
		return v
	}
	item := l.ItemChars // a line's length is about reading it, not about room
	if item <= 0 {
		item = d.ItemChars
	}
	return extractiveLimits{
		Requests: orDefault(l.Requests, d.Requests), Files: orDefault(l.Files, d.Files),
		Commands: orDefault(l.Commands, d.Commands), ToolCalls: orDefault(l.ToolCalls, d.ToolCalls),
		Errors: orDefault(l.Errors, d.Errors), Decisions: orDefault(l.Decisions, d.Decisions),
		Pending:   orDefault(l.Pending, d.Pending),
		TaskChars: positive(l.TaskChars, d.TaskChars), StateChars: positive(l.StateChars, d.StateChars),
		EarlierChars: positive(l.EarlierChars, d.EarlierChars),
		ItemChars:    item,
	}
}

// lastResort is the summary of turns that held nothing the lists keep.
func lastResort(d *digest) string {
	return headingPrefix + summaryParts[partOf(secState)].heading + "\n> " + fmt.Sprintf(
		"%d earlier messages (%d from the user, %d from the assistant, %d tool results, %d other) were condensed; none held text this summary keeps.",
		d.turns, d.roles[0], d.roles[1], d.roles[2], d.roles[3])
}
