package compact

import (
	"fmt"
	"sort"

	"github.com/contextkit/compact/internal/msg"
	"github.com/contextkit/compact/tokens"
)

// Sizes Prune works with that are not options.
const (
	// minPruneSaving is the least a change must save to be made. A stand-in
	// costs 40 to 60 tokens; a result not much larger often carries the one
	// fact the model wants (an id, "ok", one error line), for little space.
	minPruneSaving = 64

	// pressureKeepMessages is how many messages at the very end the pressure
	// pass never touches: the newest results, which the model has not read
	// yet or is acting on.
	pressureKeepMessages = 2

	// pressureExcerptChars is how much of a demoted result stays, head and
	// tail around a marker: about 500 tokens, enough for a command's first
	// lines and its closing summary or error.
	pressureExcerptChars = 2_000

	// defaultPruneTail is how many messages at the end Prune protects when
	// no pruneRange is given: the Compressor's minimum tail.
	defaultPruneTail = defaultTailMinMessages
)

// PruneKind says what Prune did to a message. Its String is a short
// description for a person ("masked tool result").
type PruneKind int

// The changes Prune makes.
const (
	// kindDeduplicated: a tool result identical to a newer one that stays
	// was replaced by a back-reference to that one.
	kindDeduplicated PruneKind = iota + 1
	// kindMasked: an old tool result was replaced by a one-line stand-in
	// naming the call, its key argument, its exit status and its size.
	kindMasked
	// kindArguments: an old tool call's long arguments were shortened
	// (JSON string values cut in the middle, so JSON stays JSON).
	kindArguments
	// kindImages: image parts older than the newest image were replaced by
	// text notes.
	kindImages
	// kindDemoted: the pressure pass cut a large result inside the
	// protected tail to its head and tail behind a stand-in line.
	kindDemoted
)

var pruneKindNames = [...]string{
	kindDeduplicated: "deduplicated tool result",
	kindMasked:       "masked tool result",
	kindArguments:    "shortened tool arguments",
	kindImages:       "replaced old images",
	kindDemoted:      "demoted tool result in the tail",
}

// String returns the kind's short description.
func (k PruneKind) String() string {
	if k > 0 && int(k) < len(pruneKindNames) {
		return pruneKindNames[k]
	}
	return fmt.Sprintf("PruneKind(%d)", int(k))
}

// PruneChange records one message Prune changed.
type PruneChange struct {
	Index      int       // index of the message in the input (and output) slice
	Kind       PruneKind // what was done
	ToolCallID string    // the result's call id, or the first shortened call's
	Tool       string    // the tool's name, when known
	// TokensBefore and TokensAfter are the message's tokens before and after
	// the change, as the counter counts them.
	TokensBefore, TokensAfter int
	Note                      string // for a person to read
}

// saved returns the tokens the change reclaimed.
func (c PruneChange) saved() int { return c.TokensBefore - c.TokensAfter }

// PruneResult reports what Prune did.
type PruneResult struct {
	// Messages is the pruned history: the same length as the input, with the
	// same roles, tool calls and tool_call_ids at the same indexes. It
	// shares nothing with the input.
	Messages []Message

	// Changes lists every changed message, by index. It is empty when the
	// pruning was not committed.
	Changes []PruneChange

	// TokensBefore and TokensAfter are the history's tokens (CountMessages)
	// before and after. They are equal when nothing was committed.
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
}

// ToolRule tells Prune how to treat one tool's calls and results.
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

// pruneSettings are the Prune settings opts make, counting with the
// counter they set or tokens.Estimate.
func pruneSettings(opts []Option) pruneConfig {
	cfg := newConfig(opts)
	p := cfg.prune
	p.counter = cfg.counter
	if p.counter == nil {
		p.counter = tokens.Estimate{}
	}
	return p
}

// on reports whether the rule of kind k may run.
func (c pruneConfig) on(k PruneKind) bool { return c.kinds == nil || c.kinds[k] }

// Prune shrinks old tool output without calling a model. It is the cheap
// tier of compaction: a Compressor runs it before summarising, and skips the
// summarizer when pruning alone brings the history under its threshold.
//
// Within the range it may change (see pruneRange), and outside the most
// recent tool uses (WithKeepToolUses), Prune:
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
// With WithPressure it also demotes the largest results of a tail that
// alone is over budget. A change is made only when it saves at least 64
// tokens: a smaller result often holds the one fact the model wants.
//
// Every text Prune writes in place of a result starts with prunedPrefix, and
// such a result is never pruned again, so pruning is idempotent: pruning
// the output again changes nothing. Prune never touches system messages,
// summaries (IsSummary), the latest real user message, a pending tool-call
// group at the end, or results of NeverMask tools; it never adds, removes or
// reorders messages, and keeps every role, tool call and tool_call_id, so
// tool pairing is never broken and a valid history stays valid. Input that
// is not valid is pruned all the same: a result answering no call is named
// by its id.
//
// The changes are committed only when together they reclaim at least
// WithClearAtLeast tokens; otherwise the result holds a copy of the input,
// Committed is false and Reclaimable says what they would have saved.
// Prune never modifies msgs, and the same input gives the same output.
func Prune(msgs []Message, opts ...Option) *PruneResult {
	return prune(msgs, pruneSettings(opts))
}

// prune is Prune with its settings made.
func prune(msgs []Message, cfg pruneConfig) *PruneResult {
	v := newPruneView(msgs, cfg)
	p := &pruner{pruneView: v, cfg: cfg, repl: make([]*Message, len(msgs))}
	if cfg.pressure > 0 && cfg.on(kindDemoted) {
		p.pressure()
	}
	if cfg.on(kindDeduplicated) || cfg.on(kindMasked) {
		p.results()
	}
	if cfg.on(kindImages) {
		p.images()
	}
	if cfg.on(kindArguments) && cfg.argChars > 0 {
		p.arguments()
	}
	sort.Slice(p.changes, func(a, b int) bool { return p.changes[a].Index < p.changes[b].Index })

	before := tokens.CountMessages(cfg.counter, msgs)
	saved := 0
	for _, c := range p.changes {
		saved += c.saved()
	}
	res := &PruneResult{TokensBefore: before, TokensAfter: before, Reclaimable: saved, ClearAtLeast: cfg.clearAtLeast}
	if len(p.changes) == 0 || saved < cfg.clearAtLeast {
		res.Messages = Clone(msgs)
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
