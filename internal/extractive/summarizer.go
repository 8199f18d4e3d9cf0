package extractive

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/contextkit/compact/internal/english"
	"github.com/contextkit/compact/internal/memo"
	"github.com/contextkit/compact/internal/msg"
)

// Summarizer writes the extractive summary compact.ExtractiveSummarizer
// documents: facts lifted from the turns, under the headings a model is
// asked for. It is deterministic and safe for concurrent use; the zero
// value is ready to use.
type Summarizer struct {
	limits Limits
	count  func(string) int
	views  *memo.Table[Message] // the redacted views its scans read (nil: none)
	scans  *ScanMemo            // where its last scan stopped (nil: none)
	texts  *written             // the facts' written forms (nil: none)
}

// defaultLimits bound each list for a summary of
// defaultTarget tokens. Full lists together run past that target
// on purpose: trimming then takes from the list most over its share, so a
// history heavy in one kind of fact (many errors, few files) still uses the
// room. Typical agent transcripts fill a fraction of them.
var defaultLimits = Limits{
	Requests: 8, Files: 25, Commands: 15, ToolCalls: 12, Errors: 20, Decisions: 10, Pending: 8, Identifiers: 40,
	TaskChars: 2000, StateChars: 1200, EarlierChars: 4000, ItemChars: 300,
}

// factsScaleTarget is the target above which the facts index's caps grow:
// a fact takes a few tokens, so a summary given more room for a fact-dense
// range (see WithSummaryTokens) lists proportionally more of them.
const factsScaleTarget = 500

// Limits caps what a Summarizer keeps. A zero field
// takes its default, which (except ItemChars) grows in proportion to a
// request's TargetTokens: the facts index's caps (Files, Errors,
// Identifiers) above factsScaleTarget (500), the others above
// defaultTarget (2000). A negative list cap leaves that list
// out. The byte limits are upper bounds: a smaller target shortens the
// quoted fields further (see Summarize).
type Limits struct {
	Requests    int // earlier user requests listed (default 8)
	Files       int // paths per file group (default 25)
	Commands    int // shell commands (default 15)
	ToolCalls   int // other tool calls (default 12)
	Errors      int // error lines (default 20)
	Decisions   int // decision sentences (default 10)
	Pending     int // pending tool calls (default 8)
	Identifiers int // identifiers passed to tools (default 40)

	TaskChars    int // the current task's text, in bytes (default 2000)
	StateChars   int // the current state's text (default 1200)
	EarlierChars int // a previous summary kept verbatim (default 4000)
	ItemChars    int // one list entry (default 300)
}

// Request is what a Summarizer summarises: compact.SummaryRequest's fields
// that the extractive summary reads.
type Request struct {
	Turns           []Message
	PreviousSummary string
	Focus           string
	TargetTokens    int
}

// New returns a Summarizer keeping what limits allow (zero fields take
// their defaults) and measuring its summary with count (nil: one token per
// four bytes).
func New(limits Limits, count func(string) int) *Summarizer {
	return &Summarizer{limits: limits, count: count, views: memo.NewTable[Message](viewMemoMessages), scans: NewScanMemo(), texts: newWritten()}
}

// viewMemoMessages bounds a Summarizer's memo of redacted views, which
// holds the messages of its last two summaries: a 260k-token agent
// history holds about 600.
const viewMemoMessages = 1 << 13

// ErrNothing reports a request with no turns and no previous summary.
var ErrNothing = errors.New("compact: extractive summary: no turns and no previous summary")

const (
	// defaultTarget is the summary size, in tokens, used when a
	// request gives no TargetTokens: the order of the summaries
	// model-backed compaction asks for.
	defaultTarget = 2000

	// minTarget is the smallest target honoured, the Compressor's
	// smallest summary target. A smaller one is raised to it: below it the
	// quoted fields, the task first, would be cut to nothing.
	minTarget = 128

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
// no previous summary (ErrNothing). Non-empty turns
// always give a non-empty summary.
//
// Size policy: with T = req.TargetTokens (defaultTarget when not
// positive, at least minTarget), each quoted field is first held
// to a share of T (current task 30%, earlier summary 30%, current state
// 20%). When the whole is over T, the facts index takes the room the
// prose leaves it, the prose keeping at least 15% of T (proseShare; and at
// least minProseTokens) when it needs that: the index keeps, in this order,
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
func (s *Summarizer) Summarize(ctx context.Context, req Request) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", fmt.Errorf("compact: extractive summary: %w", err)
	}
	prev := strings.TrimSpace(msg.StripSummaryPrefix(req.PreviousSummary))
	if len(req.Turns) == 0 && prev == "" {
		return "", ErrNothing
	}
	target := req.TargetTokens
	if target <= 0 {
		target = defaultTarget
	}
	target = max(target, minTarget)
	s.views.Round()
	d := &digest{focus: strings.ToLower(strings.TrimSpace(req.Focus)), views: s.views, written: s.texts}
	if err := d.scanWith(ctx, req.Turns, s.scans); err != nil {
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

func (s *Summarizer) counter() func(string) int {
	if s.count != nil {
		return s.count
	}
	return func(t string) int { return (len(t) + bytesPerToken - 1) / bytesPerToken }
}

// resolvedLimits is s.limits with defaults for its zero fields (and for
// length limits that are not positive). A default other than ItemChars
// grows in proportion when target is above defaultTarget, so a
// caller who gives the summary more room gets longer lists; a limit set
// explicitly stays as set.
func (s *Summarizer) resolvedLimits(target int) Limits {
	l, d := s.limits, defaultLimits
	scale := max(1, float64(target)/defaultTarget)
	factScale := max(1, float64(target)/factsScaleTarget)
	orDefault := func(v, def int) int {
		if v == 0 {
			return int(float64(def) * scale)
		}
		return v
	}
	factDefault := func(v, def int) int {
		if v == 0 {
			return int(float64(def) * factScale)
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
	return Limits{
		Requests: orDefault(l.Requests, d.Requests), Files: factDefault(l.Files, d.Files),
		Commands: orDefault(l.Commands, d.Commands), ToolCalls: orDefault(l.ToolCalls, d.ToolCalls),
		Errors: factDefault(l.Errors, d.Errors), Decisions: orDefault(l.Decisions, d.Decisions),
		Pending: orDefault(l.Pending, d.Pending), Identifiers: factDefault(l.Identifiers, d.Identifiers),
		TaskChars: positive(l.TaskChars, d.TaskChars), StateChars: positive(l.StateChars, d.StateChars),
		EarlierChars: positive(l.EarlierChars, d.EarlierChars),
		ItemChars:    item,
	}
}

// lastResort is the summary of turns that held nothing the lists keep.
func lastResort(d *digest) string {
	were := "were"
	if d.turns == 1 {
		were = "was"
	}
	return headingPrefix + summaryParts[partOf(secState)].heading + "\n> " + fmt.Sprintf(
		"%d %s (%d from the user, %d from the assistant, %d %s, %d other) %s condensed; none held text this summary keeps.",
		d.turns, english.Noun(d.turns, "earlier message"), d.roles[0], d.roles[1],
		d.roles[2], english.Noun(d.roles[2], "tool result"), d.roles[3], were)
}

// Message is go-openai's chat message, as compact.Message aliases it.
type Message = msg.Message
