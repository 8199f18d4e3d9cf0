package compact

import (
	"context"
	"encoding/json"
	"time"

	"github.com/contextkit/compact/handoff"
	"github.com/contextkit/compact/internal/msg"
	"github.com/contextkit/compact/models"
	"github.com/contextkit/compact/prune"
	"github.com/contextkit/compact/tokens"
	openai "github.com/sashabaranov/go-openai"
)

// Result reports what a compaction did.
type Result struct {
	// Messages is the compacted history, ready to send. It shares nothing
	// with the input.
	Messages []Message

	MessagesBefore, MessagesAfter int
	TokensBefore, TokensAfter     int

	// SummarizedFrom and SummarizedTo are the input indexes, inclusive, of
	// the messages folded into the summary; both -1 when nothing was.
	// Every input index a Result reports (these, CarriedFrom, Lifted,
	// Pruned, Account) is the caller's, also when WithRepair dropped or
	// merged messages first.
	SummarizedFrom, SummarizedTo int
	// SummaryIndex is the summary's index in Messages, or -1. The summary
	// may share its message with the user turn after it, merged in front
	// of that turn's own content (see WithUserFirst).
	SummaryIndex int
	// Summary is the summary's body, without prefix or carried messages.
	Summary string
	// Carried is how many real user messages from the summarised range ride
	// along verbatim inside the summary message.
	Carried int
	// CarriedFrom lists the input indexes of the messages Carried counts
	// that came from the summarised range, oldest first; the others were
	// carried by an earlier summary and have no index of their own.
	CarriedFrom []int
	// Lifted is the input index of the latest real user message when it lay
	// inside the summarised range and was placed, verbatim, right after the
	// summary (or with the summary merged in front of it, see
	// WithUserFirst); -1 otherwise.
	Lifted int

	// Summarizer names the summarizer whose summary was used; "" when
	// pruning alone was enough.
	Summarizer string
	// Fallback is set when the configured summarizer failed (or was backing
	// off) and the fallback summary was used; FallbackReason says why.
	Fallback       bool
	FallbackReason string

	// Repairs lists the changes made to a broken input (see WithRepair).
	Repairs []Repair

	// Pruned lists the messages pruning changed (see WithPruning), by
	// their index in the input, each with what was done and what it saved:
	// on a compaction that pruning alone achieved (SummaryIndex -1), every
	// change; otherwise the results the pressure pass demoted in the tail.
	Pruned []prune.Change

	// Account is what the compaction did with each input message, one
	// entry per message in input order: kept, pruned, folded into the
	// summary, carried in it, lifted, or (under WithRepair) repaired,
	// merged or dropped by the repair. Every input message appears exactly
	// once, and the fates agree with the ranges above. It is nil when
	// nothing was done (Skipped): every message is then in Messages at its
	// own index.
	// The Compressor fills it; another engine may leave it nil.
	Account []MessageFate

	// Handoff reports the packet an automatic handoff wrote after this
	// compaction (see WithHandoff); nil when there was none. Messages is the
	// ordinary compaction either way: in fresh-session mode the host
	// chooses between it and Handoff.Continuation.
	Handoff *handoff.Report

	Duration time.Duration

	// Skipped says why nothing was done, "" when the history was
	// compacted. Under the threshold an unforced Compress returns the
	// history as it is: Messages is then the caller's slice itself (with
	// the incoming message appended, when there is one), not a copy. A
	// history WithRepair had to repair is never skipped: under the
	// threshold the Result is the repair alone (Messages the repaired
	// copy, Repairs and Account what changed, nothing folded or pruned),
	// which Status does not count as a compaction.
	Skipped string

	// Fits reports whether TokensAfter fits the usable window (the window
	// less the reserve for the reply), which is Usable tokens. When it does
	// not, Overflow is by how many tokens, and TooLarge is the index in
	// Messages of the largest message that compaction must keep verbatim
	// (the latest user message, the tail, a pending call group); -1 when
	// it fits.
	Fits     bool
	Usable   int
	Overflow int
	TooLarge int
	// Shortened is the index in Messages of the latest user message that
	// WithTrimOversized cut in its middle so the request fits; -1 when none
	// was.
	Shortened int

	// Cost is what the compaction is expected to cost: the tokens the next
	// request writes to the provider's cache again (from the first message
	// it changed on), the tokens it cleared from every later request, its
	// summarizer's call, and, with the prices known (see WithPricing), what
	// that comes to and after how many requests it pays back. Zero when
	// nothing was done. The summarizer's call is an estimate (zero for the
	// extractive summarizer): the prompt [SummaryPrompt] would render is
	// sized from the messages' token counts without rendering it, within
	// about 5% of its count on the shared transcripts.
	Cost models.Edit
}

// MessageFate is the account of one input message of a compaction: what
// it was and what the compaction did with it (see Result.Account).
type MessageFate struct {
	Index int    // its index in the input
	Role  string // its role
	// Tool is the tool a tool result answers, or the tools an assistant
	// turn calls (comma-separated); "" otherwise.
	Tool string
	// Tokens is its size in the input, as the Compressor counts it (the
	// estimate for the messages CompressHere or CompressBefore kept from
	// an engine that is not a RangeCompressor).
	Tokens int
	// Fate is one of:
	//   - "kept": in Result.Messages as it came in (a system prompt may
	//     have gained CompactionNote, once, when the prices are unknown;
	//     the user turn after the summary may carry it merged in front of
	//     its content, Output then being Result.SummaryIndex: see
	//     WithUserFirst);
	//   - "pruned": in Result.Messages, changed by pruning (prune says how);
	//   - "folded": folded into the summary;
	//   - "carried": a real user message of the summarised range, carried
	//     verbatim inside the summary message (the oldest of them may be
	//     cut in its middle to fit);
	//   - "lifted": the latest real user message, inside the summarised
	//     range, placed verbatim right after the summary (or sharing its
	//     message, as "kept" says);
	//   - "shortened": in Result.Messages cut in its middle so the request
	//     fits (the latest user message, under WithTrimOversized);
	//   - "merged": joined to the turn before it at a seam: one a repair's
	//     removal made (see WithRepair), or where a partial compaction
	//     through another engine rejoined the kept messages (see Join);
	//   - "dropped": a repair removed it, a tool result that answered no
	//     call;
	//   - "repaired": in Result.Messages, changed by a repair (see
	//     WithRepair): an unanswered call removed, a placeholder written in
	//     an assistant turn left empty, or the turn after it merged in;
	//     Repair says which.
	Fate string
	// Prune is what pruning did to it ("pruned" only).
	Prune prune.Kind
	// Repair is what the repair did to it ("repaired" only): the first of
	// its entries in Result.Repairs, or a merged seam when only the turn
	// after it was merged in.
	Repair RepairKind
	// Output is where it went in Result.Messages: its own index when kept,
	// pruned, lifted or repaired, the summary's when folded or carried, the
	// turn it joined when merged; -1 when dropped.
	Output int
}

// ContextEngine decides when a conversation must shrink and shrinks it. The
// Compressor is the default; a host may swap in another engine (a store of
// summaries, a remote service) behind the same interface.
//
// An implementation must keep the contracts every output of this package
// keeps, whatever its method:
//   - Compress returns a valid request (Validate passes): every tool result
//     answers an earlier call, every call is answered except a pending group
//     at the very end, no empty assistant turn, and no user-user or
//     assistant-assistant pair that compaction created.
//   - The system prompt comes back byte-identical, plus at most one note
//     saying that earlier turns were compacted.
//   - The protected tail, the latest real user message and a pending
//     tool-call group at the very end come back verbatim.
//   - The first message after the system prompt is a user turn unless the
//     host asks otherwise (the Compressor merges a summary that would open
//     the history in front of the user turn after it; see WithUserFirst).
//   - Nothing disappears silently: every input message is in the output
//     verbatim or inside the range the Result reports as summarised or
//     pruned.
//   - Compressing an already compacted history yields one summary, never a
//     stack of them.
//   - The caller's slice and messages are never modified.
//   - On error the caller keeps its messages: Compress returns a nil Result
//     and an error that wraps one of this package's sentinels, except when
//     ctx is done: then the error wraps ctx.Err() (test it with errors.Is
//     against context.Canceled or context.DeadlineExceeded), and a
//     cancellation never counts as a summarizer failure.
//
// Engines hold per-conversation state (usage, counts, strikes), so a host
// creates one engine per conversation. Every method must be safe to call
// from several goroutines; Compress may be slow, the other methods must not
// block on it for long.
//
// Optional abilities are separate interfaces a host detects with a type
// assertion: Preflighter, SessionHooks, ToolProvider, ModelSwitcher,
// RangeCompressor and CounterProvider.
type ContextEngine interface {
	// Name identifies the engine in logs and status lines.
	Name() string

	// UpdateUsage records the token usage a provider reported for the last
	// request, the most reliable measure of how full the window is.
	UpdateUsage(u Usage)

	// ShouldCompress reports whether a request of promptTokens tokens should
	// be compacted before it is sent. It is cheap and never calls a model.
	ShouldCompress(promptTokens int) bool

	// HasContentToCompress reports whether Compress would find anything to
	// fold: false when every message is protected, so a host can answer
	// "nothing to compress yet" without calling a model.
	HasContentToCompress(msgs []Message) bool

	// Compress returns a shorter history that keeps the contracts above.
	Compress(ctx context.Context, msgs []Message, opts ...CompressOption) (*Result, error)

	// Status reports the engine's view of the window, for a host's status
	// line or logs.
	Status() Status
}

// Usage is the token usage a provider reported for one request.
//
// PromptTokens counts every input token, however it was billed: read from
// the provider's prompt cache (CachedTokens), written to it
// (CacheWriteTokens), or neither. A provider that bills cache writes as
// ordinary input (OpenAI) reports no writes, so CacheWriteTokens is 0.
type Usage struct {
	PromptTokens     int
	CompletionTokens int
	TotalTokens      int
	CachedTokens     int // prompt tokens read from the provider's cache
	CacheWriteTokens int // prompt tokens written to the provider's cache
	// At is when the request was sent, which tells how long the provider's
	// cache has been idle, and whether the request went out before the
	// last compaction committed: the report of such a request (one in
	// flight while Compress ran) describes the history that compaction
	// replaced, so it judges no compaction (no anti-thrash strike) and
	// lifts no pause (see Compressor.UpdateUsage). Zero means when
	// UpdateUsage is called, by the engine's clock (see WithClock): after
	// every compaction.
	At time.Time
}

// UsageFrom converts go-openai's usage block. CachedTokens comes from
// prompt_tokens_details.cached_tokens; OpenAI reports no cache writes, so
// CacheWriteTokens is 0.
func UsageFrom(u openai.Usage) Usage {
	out := Usage{PromptTokens: u.PromptTokens, CompletionTokens: u.CompletionTokens, TotalTokens: u.TotalTokens}
	if u.PromptTokensDetails != nil {
		out.CachedTokens = u.PromptTokensDetails.CachedTokens
	}
	return out
}

// Status is an engine's view of the window.
type Status struct {
	Engine    string
	Model     string
	Window    int // the model's context window, in tokens
	Threshold int // prompt tokens at which compaction triggers
	// Usable is the usable window: Window less the reserve for the reply,
	// the most prompt tokens a request may take. 0 when the engine does
	// not say.
	Usable           int
	LastPromptTokens int // the last prompt size seen: reported, or counted plus what the last report showed counting misses
	// LastCompletionTokens and LastTotalTokens are the provider's last
	// report (UpdateUsage); 0 before the first.
	LastCompletionTokens int
	LastTotalTokens      int
	UsagePercent         float64 // LastPromptTokens as a percentage of Window (the context length)
	ThresholdPercent     float64 // LastPromptTokens as a percentage of Threshold, capped at 100
	Compressions         int     // compactions done in this conversation
	Strikes              int     // compactions in a row that left usage over the threshold
	Paused               bool    // automatic compaction paused (see PauseReason)
	PauseReason          string
	BackoffUntil         time.Time // automatic summarizer calls wait until then; zero when not backing off
	LastError            string    // the last summarizer failure, if any
	Handoffs             int       // automatic handoffs done (see WithHandoff)
	HandoffsLeft         int       // automatic handoffs the policy still allows; 0 when handoffs are off
	HandoffReason        string    // why compaction goes on without a handoff: quota spent, or the last failure
	// Adjusted names each option New was given an invalid value, and the
	// value kept in force instead ("WithThreshold(1.5): invalid, 0.75
	// kept"), and each setting the window moves while it does (bounds
	// WithThresholdBounds set moving the threshold from its fraction, a
	// reserve that leaves nothing of the window). It is nil when every
	// value was taken as given.
	Adjusted []string
	// Encoding is the token encoding counted with ("" for a host's own
	// counter that does not say), and Calibration the factor its counts are
	// scaled by for a model whose tokenizer the package does not have (1
	// when counts are exact). ModelNote says when the model is not in the
	// table (package models) or is counted by calibration; "" otherwise.
	Encoding    string
	Calibration float64
	ModelNote   string
	// Cost is what the conversation has been billed so far: the requests
	// as UpdateUsage reported them (so the cache hit ratio is the
	// provider's), the compactions by kind, and the summarizer calls as
	// estimated; priced when the prices are known (see WithPricing), with
	// Dollars and Equivalent nil otherwise. A Session keeps it across
	// restarts.
	Cost models.Spend
	// Trigger is the prompt size at which a compaction is due while the
	// provider's cache is warm: Threshold, or lower in economy mode
	// (Economy, see WithEconomy).
	Trigger int
	Economy bool
}

// CompressOptions are the per-call settings of a compaction. Engines read
// them with ApplyCompressOptions.
type CompressOptions struct {
	// Focus is a topic the summary should weight.
	Focus string
	// Force compacts even under the threshold and past a pause or backoff.
	Force bool
	// Early compacts a history under the threshold, as a Session's
	// background compaction does before the history reaches it (see
	// [Early]). Unlike
	// Force it keeps every other rule: the cheap tier alone when it leaves
	// room to spare, a pause, a backoff. An engine that cannot compact
	// early may ignore it.
	Early bool
	// Incoming is the user message about to be sent (preflight). It is never
	// summarised: it comes back last, verbatim, after the compacted history.
	Incoming *Message
	// SessionID names the conversation being compacted, for logs and
	// handoff packets. Engines never change it.
	SessionID string
	// ParentSessionID names the conversation this one continues from, if
	// any, for handoff packets.
	ParentSessionID string
	// OpenTasks are the tasks the host tracks as not done yet: the summary
	// carries them under a heading of their own, and handoff packets list
	// them.
	OpenTasks []string
	// Tools are the tool definitions the request carries. Their tokens
	// count toward the threshold and the fit of the request, never toward
	// what is summarised.
	Tools []openai.Tool
}

// CompressOption sets a per-call compaction option.
type CompressOption func(*CompressOptions)

// WithFocus asks the summary to weight topic.
func WithFocus(topic string) CompressOption {
	return func(o *CompressOptions) { o.Focus = topic }
}

// Force compacts even when usage is under the threshold, and bypasses an
// anti-thrash pause or a summarizer backoff. A user's explicit "/compress"
// is a forced compaction.
func Force() CompressOption {
	return func(o *CompressOptions) { o.Force = true }
}

// Early compacts a history that is still under the threshold, keeping
// every other rule (see CompressOptions.Early): a host that compacts ahead
// of time, as a Session's background compaction does, passes it.
func Early() CompressOption {
	return func(o *CompressOptions) { o.Early = true }
}

// WithIncoming names the user message the host is about to send. It is kept
// out of the summary and appended, verbatim, as the last message (with the
// summary merged in front of it when nothing else follows the summary; see
// WithUserFirst).
func WithIncoming(m Message) CompressOption {
	return func(o *CompressOptions) {
		c := msg.CloneMessage(m)
		o.Incoming = &c
	}
}

// WithSessionID names the conversation being compacted. A Session passes
// its id this way; the engine uses it in logs and handoff packets only.
func WithSessionID(id string) CompressOption {
	return func(o *CompressOptions) { o.SessionID = id }
}

// WithParentSessionID names the conversation this one continues from (a
// continuation names the session it was handed off from). Handoff packets
// record it.
func WithParentSessionID(id string) CompressOption {
	return func(o *CompressOptions) { o.ParentSessionID = id }
}

// WithOpenTasks passes the tasks the host tracks as not done yet (a to-do
// list's open items), so that the summary carries them under a heading of
// their own and a handoff packet lists them.
func WithOpenTasks(tasks []string) CompressOption {
	return func(o *CompressOptions) { o.OpenTasks = append([]string(nil), tasks...) }
}

// WithTools passes the tool definitions the request will carry, so that
// the threshold check, the preflight and the fit of the result count them:
// forty tool schemas are thousands of tokens the messages do not show.
func WithTools(tools []openai.Tool) CompressOption {
	return func(o *CompressOptions) { o.Tools = append([]openai.Tool(nil), tools...) }
}

// ApplyCompressOptions resolves opts into a CompressOptions value. Engines
// other than the Compressor use it to read the options they are given.
func ApplyCompressOptions(opts ...CompressOption) CompressOptions {
	var o CompressOptions
	for _, opt := range opts {
		if opt != nil {
			opt(&o)
		}
	}
	return o
}

// Preflighter is implemented by engines that can check a request cheaply
// before it is sent, counting the history plus what opts add: the incoming
// message (WithIncoming) and the tool definitions (WithTools).
type Preflighter interface {
	Preflight(msgs []Message, opts ...CompressOption) Preflight
}

// Preflight is the result of a preflight check.
type Preflight struct {
	Tokens    int // tokens the request would take
	Threshold int // the engine's threshold
	Usable    int // the usable window: the window less the reply's reserve
	// Fits is false when even a compaction would leave the request over
	// the usable window: the messages it must keep verbatim are too large.
	// Overflow is then by how many tokens, and TooLarge the index of the
	// largest of them (len(msgs) for the incoming message); -1 otherwise.
	Fits       bool
	Overflow   int
	TooLarge   int
	Compress   bool // the request should be compacted first
	HasContent bool // there is something to compact
}

// SessionHooks is implemented by engines that keep state tied to a
// conversation's lifetime. A Session calls them; a host driving an engine
// itself calls them at the same points.
type SessionHooks interface {
	// OnSessionStart is called once, before the conversation's first
	// message, with what the host knows of it.
	OnSessionStart(id string, meta SessionMeta)
	// OnSessionEnd is called once, when the conversation ends, with its
	// final messages (the engine must not keep or modify them).
	OnSessionEnd(id string, msgs []Message)
	// OnSessionReset is called when a conversation is cleared and starts
	// over under the same id.
	OnSessionReset(id string)
}

// SessionMeta is what a host knows of a conversation as it starts. Every
// field may be empty.
type SessionMeta struct {
	Model    string // the model the conversation runs on
	Window   int    // its context window in tokens; 0 means the model's, or the engine's default
	Platform string // where the conversation happens: "cli", "slack", "api"...
	// Recall says that what compaction folds stays recoverable: the host
	// offers tools that read the conversation's archive back (a Session
	// with recall sets it), so an engine may fold deeper.
	Recall bool
	Extra  map[string]string // anything else the host wants an engine to see
}

// ToolProvider is implemented by engines that offer the model tools (to
// search compacted history, say). The host adds the definitions to its
// request and routes calls to Handle.
type ToolProvider interface {
	Tools() []Tool
}

// Tool is a tool an engine offers the model: its definition as sent to the
// provider, and the handler that answers a call with a JSON result.
type Tool struct {
	Definition openai.Tool
	Handle     func(ctx context.Context, arguments string) (json.RawMessage, error)
}

// RangeCompressor is implemented by engines that can fold exactly the
// messages a person chose, for "/compress here" and "summarize from here"
// (see CompressHere, CompressBefore, CompressFrom). CompressRange folds
// msgs[from:to] into one summary and keeps every other message verbatim
// (the first after the summary may share its message, as in Compress),
// with the contracts of ContextEngine.Compress; the latest real user
// message, when it lies in the range, comes back verbatim right after the
// summary. A range that starts or ends on a tool result is an error
// wrapping ErrInvalidBoundary. The engine may grow the range backwards
// where the summary would otherwise break role alternation, and reports
// the range it folded in Result.SummarizedFrom and SummarizedTo.
type RangeCompressor interface {
	CompressRange(ctx context.Context, msgs []Message, from, to int, opts ...CompressOption) (*Result, error)
}

// CounterProvider is implemented by engines that count with a token
// counter a host should share, so that the running count a host (or a
// Session) keeps agrees with the engine's own.
type CounterProvider interface {
	Counter() tokens.Counter
}

// ModelSwitcher is implemented by engines whose threshold depends on the
// model. SwitchModel recomputes it, and lifts an anti-thrash pause since the
// new window may fit.
type ModelSwitcher interface {
	SwitchModel(model string, window int)
}
