package prune

import (
	"fmt"
	"sort"

	"github.com/contextkit/compact/internal/msg"
	"github.com/contextkit/compact/tokens"
	openai "github.com/sashabaranov/go-openai"
)

// Message is one chat message in OpenAI's format: go-openai's type, the
// same type as compact.Message.
type Message = openai.ChatCompletionMessage

// Sizes a pruning works with that are not options.
const (
	// minSaving is the least a change must save to be made. A stand-in
	// costs 40 to 60 tokens; a result not much larger often carries the one
	// fact the model wants (an id, "ok", one error line), for little space.
	minSaving = 64

	// pressureKeepMessages is how many messages at the very end the pressure
	// pass never touches: the newest results, which the model has not read
	// yet or is acting on.
	pressureKeepMessages = 2

	// pressureExcerptChars is how much of a demoted result stays, head and
	// tail around a marker: about 500 tokens, enough for a command's first
	// lines and its closing summary or error.
	pressureExcerptChars = 2_000

	// defaultTail is how many messages at the end a pruning protects when
	// no WithRange is given: a Compressor's minimum tail by default.
	defaultTail = 4
)

// Kind says what a pruning did to a message. Its String is a short
// description for a person ("masked tool result").
type Kind int

// The changes a pruning makes.
const (
	// Deduplicated: a tool result identical to a newer one that stays
	// was replaced by a back-reference to that one.
	Deduplicated Kind = iota + 1
	// Masked: an old tool result was replaced by a one-line stand-in
	// naming the call, its key argument, its exit status and its size.
	Masked
	// ArgumentsShortened: an old tool call's long arguments were shortened
	// (JSON string values cut in the middle, so JSON stays JSON).
	ArgumentsShortened
	// ImagesReplaced: image parts older than the newest image were replaced by
	// text notes.
	ImagesReplaced
	// Demoted: the pressure pass cut a large result inside the
	// protected tail to its head and tail behind a stand-in line.
	Demoted
	// Trimmed: the fit pass (see [WithFit]) cut an oversized message of
	// any role (a pasted table, a long answer, a large result) to its head
	// and tail behind a stand-in line, so that the history fits a budget.
	Trimmed
)

var kindNames = [...]string{
	Deduplicated:       "deduplicated tool result",
	Masked:             "masked tool result",
	ArgumentsShortened: "shortened tool arguments",
	ImagesReplaced:     "replaced old images",
	Demoted:            "demoted tool result in the tail",
	Trimmed:            "trimmed oversized message",
}

// String returns the kind's short description.
func (k Kind) String() string {
	if k > 0 && int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// Change records one message a pruning changed.
type Change struct {
	Index      int    // index of the message in the input (and output) slice
	Kind       Kind   // what was done
	ToolCallID string // the result's call id, or the first shortened call's
	Tool       string // the tool's name, when known
	// TokensBefore and TokensAfter are the message's tokens before and after
	// the change, as the counter counts them.
	TokensBefore, TokensAfter int
	Note                      string // for a person to read
}

// saved returns the tokens the change reclaimed.
func (c Change) saved() int { return c.TokensBefore - c.TokensAfter }

// Result reports what a pruning did.
type Result struct {
	// Messages is the pruned history: the same length as the input, with the
	// same roles, tool calls and tool_call_ids at the same indexes. It
	// shares nothing with the input.
	Messages []Message

	// Changes lists every changed message, by index. It is empty when the
	// pruning was not committed.
	Changes []Change

	// TokensBefore and TokensAfter are the history's tokens
	// (tokens.CountMessages) before and after. They are equal when nothing was committed.
	TokensBefore, TokensAfter int

	// Reclaimable is what the changes found save, committed or not.
	Reclaimable int

	// ClearAtLeast is the fewest tokens a pruning had to reclaim to be
	// committed (see WithClearAtLeast).
	ClearAtLeast int

	// Committed is false when the changes found would reclaim fewer tokens
	// than WithClearAtLeast asks (or there were none); Messages is then a
	// copy of the input.
	Committed bool

	// Adjusted names each option given an invalid value, and the value
	// kept in force instead (see [Pruner.Adjusted]).
	Adjusted []string
}

// ToolRule tells a pruning how to treat one tool's calls and results.
type ToolRule struct {
	// Name is the tool's function name, as in the assistant's tool call.
	Name string

	// NeverMask keeps the tool's results exactly as they are: never masked,
	// deduplicated, demoted or stripped of images. Use it for tools whose
	// output the model must keep seeing (a plan, a memory, a to-do list).
	NeverMask bool

	// KeyArgs names the arguments a stand-in quotes to say what the call
	// did, in order of preference; at most two are quoted. Empty means the
	// defaults: command, cmd, path, file_path, file, filename, url, query,
	// pattern, code.
	KeyArgs []string

	// Describe, when set, returns the words naming a call in its stand-in,
	// in place of "name (key: value)". args is the call's arguments decoded
	// (nil when they are not a JSON object); result is the result's text.
	// The text is put on one line and capped.
	Describe func(args map[string]any, result string) string
}

// Apply shrinks old tool output without calling a model, as New(opts...)
// would (see [Pruner.Apply]); the Result names the options given an
// invalid value in Adjusted.
func Apply(msgs []Message, opts ...Option) *Result {
	return New(opts...).Apply(msgs)
}

// Pruner prunes with the settings New gave it. It is immutable and safe for
// concurrent use.
type Pruner struct {
	cfg config
}

// New returns a Pruner with opts applied over the documented defaults. An
// option given an invalid value keeps the default, and Adjusted says so.
func New(opts ...Option) *Pruner {
	return &Pruner{cfg: newConfig(opts)}
}

// Adjusted names each option New was given an invalid value, and the value
// kept in force instead ("WithKeepToolUses(-1): invalid, 3 kept"). It is
// nil when every value was taken.
func (pr *Pruner) Adjusted() []string {
	return append([]string(nil), pr.cfg.adjusted...)
}

// Apply shrinks old tool output without calling a model. It is the cheap
// tier of compaction: a Compressor runs it before summarising, and skips the
// summarizer when pruning alone brings the history under its threshold.
//
// Within the range it may change (see [WithRange]), and outside the most
// recent tool uses ([WithKeepToolUses]), Apply:
//   - replaces a tool result identical to a newer one that stays with a
//     back-reference naming the newer result's tool call id;
//   - masks other tool results: a one-line stand-in says which tool ran,
//     with its key argument (the command, the path), its exit status when
//     the output shows one, and its size;
//   - shortens tool-call arguments longer than WithArgumentChars, keeping
//     JSON arguments valid JSON;
//   - replaces image parts older than the newest message with an image by
//     text notes (keeping the URL unless it is a data: URL).
//
// With [WithPressure] it also demotes the largest results of a tail that
// alone is over budget, and with [WithFit] it trims the largest messages
// of any role while the whole history is over budget. A change is made only when it saves at least 64
// tokens: a smaller result often holds the one fact the model wants.
//
// Every text Apply writes in place of a result (or, trimming, of a
// message's text) starts with "[pruned]", and such a result or message is
// never pruned again, so pruning is idempotent: pruning
// the output again changes nothing. Apply never touches system messages,
// summaries (compact.IsSummary), the latest real user message, a pending
// tool-call group at the end, or results of NeverMask tools; it never adds, removes or
// reorders messages, and keeps every role, tool call and tool_call_id, so
// tool pairing is never broken and a valid history stays valid. Input that
// is not valid is pruned all the same: a result answering no call is named
// by its id.
//
// The changes are committed only when together they reclaim at least
// [WithClearAtLeast] tokens; otherwise the result holds a copy of the
// input, Committed is false and Reclaimable says what they would have
// saved. Apply never modifies msgs, and the same input gives the same
// output.
func (pr *Pruner) Apply(msgs []Message) *Result {
	cfg := pr.cfg
	v := newView(msgs, cfg)
	p := &pruner{view: v, cfg: cfg, repl: make([]*Message, len(msgs))}
	if cfg.pressure > 0 && cfg.on(Demoted) {
		p.pressure()
	}
	if cfg.on(Deduplicated) || cfg.on(Masked) {
		p.results()
	}
	if cfg.on(ImagesReplaced) {
		p.images()
	}
	if cfg.on(ArgumentsShortened) && cfg.argChars > 0 {
		p.arguments()
	}
	if cfg.fit > 0 && cfg.on(Trimmed) {
		p.fit()
	}
	sort.Slice(p.changes, func(a, b int) bool { return p.changes[a].Index < p.changes[b].Index })

	before := tokens.CountMessages(cfg.counter, msgs)
	saved := 0
	for _, c := range p.changes {
		saved += c.saved()
	}
	res := &Result{TokensBefore: before, TokensAfter: before, Reclaimable: saved, ClearAtLeast: cfg.clearAtLeast,
		Adjusted: pr.Adjusted()}
	if len(p.changes) == 0 || saved < cfg.clearAtLeast {
		res.Messages = msg.Clone(msgs)
		return res
	}
	out := make([]Message, len(msgs))
	for i := range msgs {
		if p.repl[i] != nil {
			out[i] = *p.repl[i] // built fresh, shares nothing with msgs
		} else {
			out[i] = msg.CloneMessage(msgs[i])
		}
	}
	res.Messages, res.Changes, res.Committed = out, p.changes, true
	res.TokensAfter = before - saved
	return res
}
