package openaigo

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/responses"

	"github.com/contextkit/compact"
)

// NativeEngine compacts a Responses history with OpenAI's own compaction:
// it sends the items to POST /responses/compact and hands back what the
// provider returns (the user messages, then one opaque, encrypted
// compaction item that stands for everything else). When that fails (an
// error status, a timeout, a reply that is not a compaction, or one whose
// items would not make a valid request) it compacts with its fallback
// engine instead, and that engine's failure policy applies as if it had
// been asked first: the caller gets a compacted history or its items back
// untouched with an error, never less.
//
// Give it to CompressItems, which hands it the items (it is an
// ItemCompressor). Its ContextEngine methods are its fallback's: the
// threshold, the usage and the status it reports, and Compress, which
// receives go-openai messages and so has no items to send, compact with
// the fallback.
//
// What it keeps verbatim: the leading system and developer messages (the
// provider's reply leaves them out; they come back as they were), the user
// messages (the provider keeps them all), a pending group of calls at the
// very end (with its reasoning; the host is about to append their
// outputs), and the incoming message (compact.WithIncoming). The protected
// tail of the fallback's own compaction does not apply: what the provider
// folds is the provider's choice. A summary of compact's own among the
// user messages the provider keeps is dropped: the compaction item now
// carries it, and a history holds one summary.
//
// The alternative is the host's: server-side compaction, which needs no
// engine. A request with
//
//	ContextManagement: []responses.ResponseNewParamsContextManagement{
//		{Type: "compaction", CompactThreshold: openai.Int(150_000)}}
//
// lets the provider compact while it answers, and puts the compaction item
// in the response's output; CompressItems and ConvertItems read it as a
// summary like any other.
//
// The SDK retries a request that failed with an error status or a timeout
// (twice, by default) before the engine sees the failure; give
// WithRequestOptions(option.WithMaxRetries(0)) to fall back at once.
//
// A NativeEngine holds per-conversation state (its fallback's, and its own
// failures), so a host creates one per conversation. Its methods are safe
// for concurrent use.
type NativeEngine struct {
	svc      responses.ResponseService
	model    string
	fallback compact.ContextEngine
	cfg      config

	mu           sync.Mutex
	compactions  int
	failures     int
	backoffUntil time.Time
	lastError    string
	lastUsage    compact.Usage
}

// nativeSummarizer names the provider's compaction endpoint in a Result.
const nativeSummarizer = "openai:/responses/compact"

// NewNativeEngine returns an engine that compacts with svc (a client's
// Responses service) and model, falling back to fallback. A nil fallback
// is compact.New(compact.WithModel(model)). Invalid option values keep
// their defaults and are reported in Status().Adjusted.
func NewNativeEngine(svc responses.ResponseService, model string, fallback compact.ContextEngine, opts ...Option) *NativeEngine {
	if fallback == nil {
		fallback = compact.New(compact.WithModel(model))
	}
	return &NativeEngine{svc: svc, model: model, fallback: fallback, cfg: newConfig(opts)}
}

// Name returns "openai-native".
func (n *NativeEngine) Name() string { return "openai-native" }

// UpdateUsage records the usage of the last request with the fallback,
// which keeps the engine's view of the window.
func (n *NativeEngine) UpdateUsage(u compact.Usage) { n.fallback.UpdateUsage(u) }

// ShouldCompress reports the fallback's answer: the threshold is the
// fallback's.
func (n *NativeEngine) ShouldCompress(promptTokens int) bool {
	return n.fallback.ShouldCompress(promptTokens)
}

// HasContentToCompress reports the fallback's answer.
func (n *NativeEngine) HasContentToCompress(msgs []compact.Message) bool {
	return n.fallback.HasContentToCompress(msgs)
}

// Compress compacts go-openai messages with the fallback: with no items
// behind them there is nothing to send the provider.
func (n *NativeEngine) Compress(ctx context.Context, msgs []compact.Message, opts ...compact.CompressOption) (*compact.Result, error) {
	return n.fallback.Compress(ctx, msgs, opts...)
}

// Preflight checks a request as the fallback does (the fallback's
// Preflight when it has one, its threshold on the last usage otherwise).
func (n *NativeEngine) Preflight(msgs []compact.Message, opts ...compact.CompressOption) compact.Preflight {
	if p, ok := n.fallback.(compact.Preflighter); ok {
		return p.Preflight(msgs, opts...)
	}
	st := n.fallback.Status()
	return compact.Preflight{Tokens: st.LastPromptTokens, Threshold: st.Threshold, Fits: true, TooLarge: -1,
		Compress: n.fallback.ShouldCompress(st.LastPromptTokens), HasContent: n.fallback.HasContentToCompress(msgs)}
}

// Status is the fallback's status under this engine's name, with the
// native compactions counted in Compressions, the last native failure in
// LastError and its backoff in BackoffUntil (when later than the
// fallback's), and this engine's invalid options in Adjusted.
func (n *NativeEngine) Status() compact.Status {
	st := n.fallback.Status()
	st.Engine = n.Name()
	n.mu.Lock()
	defer n.mu.Unlock()
	st.Compressions += n.compactions
	if n.lastError != "" {
		st.LastError = "native compaction: " + n.lastError
	}
	if n.backoffUntil.After(st.BackoffUntil) {
		st.BackoffUntil = n.backoffUntil
	}
	st.Adjusted = append(append([]string(nil), n.cfg.adjusted...), st.Adjusted...)
	return st
}

// LastUsage is the usage the provider reported for the last native
// compaction (zero before the first): what the compaction pass itself
// cost, for cost telemetry. It is not the usage of a request, so it is not
// given to UpdateUsage.
func (n *NativeEngine) LastUsage() compact.Usage {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.lastUsage
}

// errNothingNative reports a history with nothing the provider would fold:
// not a failure, so the fallback says so in its own words.
var errNothingNative = errors.New("nothing to fold")

// CompressItems compacts items with the provider, or with the fallback
// when that fails, is backing off after failures, or has nothing to fold
// (see CompressItems for what the Result reports). A compaction that is
// not due (compact.Force not given, usage under the threshold) is the
// fallback's, which skips it. Result.Summarizer is
// "openai:/responses/compact" for a native compaction, whose Summary is ""
// (the provider's cannot be read) and whose Account is nil; a fallback
// compaction sets Result.Fallback and says why in FallbackReason. A host
// that keeps the conversation in a session.Session hands the compaction
// to Session.RecordCompaction, with the Result's item indexes moved to the messages
// of the conversions (ItemConversion.Items; examples/responsesloop shows
// how).
func (n *NativeEngine) CompressItems(ctx context.Context, items []Item, opts ...compact.CompressOption) ([]Item, *compact.Result, error) {
	conv, err := ConvertItems(items)
	if err != nil {
		return nil, nil, err
	}
	o := compact.ApplyCompressOptions(opts...)
	if !wantsCompaction(n.fallback, conv.Messages, opts) || compact.Validate(conv.Messages) != nil {
		return compressItems(ctx, n.fallback, items, opts...) // it skips, or reports the history
	}
	if until, waiting := n.waiting(); waiting && !o.Force {
		return n.fallbackCompress(ctx, items, opts,
			"native compaction backing off after failures until "+until.Format(time.RFC3339))
	}
	out, res, err := n.native(ctx, conv, o)
	switch {
	case err == nil:
		n.succeed()
		return out, res, nil
	case ctx.Err() != nil:
		return nil, nil, fmt.Errorf("openaigo: %w: native compaction: %w", ctx.Err(), err)
	case errors.Is(err, errNothingNative):
		return compressItems(ctx, n.fallback, items, opts...)
	}
	n.fail(err)
	n.cfg.logger.Warn("native compaction failed; compacting with the fallback", "err", err, "fallback", n.fallback.Name())
	return n.fallbackCompress(ctx, items, opts, "native compaction failed: "+err.Error())
}

// fallbackCompress compacts with the fallback and says why in the Result.
func (n *NativeEngine) fallbackCompress(ctx context.Context, items []Item, opts []compact.CompressOption, reason string) ([]Item, *compact.Result, error) {
	out, res, err := compressItems(ctx, n.fallback, items, opts...)
	if err != nil {
		return nil, nil, err
	}
	if res.Skipped == "" {
		if res.FallbackReason != "" {
			reason += "; " + res.FallbackReason
		}
		res.Fallback, res.FallbackReason = true, reason
	}
	return out, res, nil
}

// waiting reports whether native compaction is backing off, and until
// when.
func (n *NativeEngine) waiting() (time.Time, bool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.backoffUntil, n.cfg.now().Before(n.backoffUntil)
}

func (n *NativeEngine) succeed() {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.compactions++
	n.failures, n.backoffUntil, n.lastError = 0, time.Time{}, ""
}

// fail records a native failure and starts or lengthens the backoff.
func (n *NativeEngine) fail(err error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.failures++
	n.lastError = err.Error()
	if k := len(n.cfg.backoff); k > 0 {
		n.backoffUntil = n.cfg.now().Add(n.cfg.backoff[min(n.failures, k)-1])
	}
}

// native sends what the provider may fold and assembles its reply with
// what it must not: the leading instructions before it, the latest user
// message (when the reply lacks it), the pending calls and the incoming
// message after it.
func (n *NativeEngine) native(ctx context.Context, conv *ItemConversion, o compact.CompressOptions) ([]Item, *compact.Result, error) {
	start := n.cfg.now()
	lead, pending := conv.leadEnd(), conv.pendingStart()
	if !conv.foldable(lead, pending) {
		return nil, nil, errNothingNative
	}
	end := len(conv.hist)
	if pending < len(conv.spans) {
		end = conv.spans[pending].from
	}
	if n.cfg.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, n.cfg.timeout)
		defer cancel()
	}
	params := responses.ResponseCompactParams{
		Model: responses.ResponseCompactParamsModel(n.model),
		Input: responses.ResponseCompactParamsInputUnion{OfResponseInputItemArray: conv.hist[:end]},
	}
	if n.cfg.instructions != "" {
		params.Instructions = param.NewOpt(n.cfg.instructions)
	}
	reply, err := n.svc.Compact(ctx, params, n.cfg.requestOpts...)
	if err != nil {
		return nil, nil, err
	}
	kept, err := replyItems(reply)
	if err != nil {
		return nil, nil, err
	}

	var out []Item
	for j := 0; j < lead; j++ {
		out = append(out, conv.original(j)...)
	}
	out = append(out, kept...)
	if u := conv.latestUser(pending); u >= 0 && !holds(kept, conv.views[u]) {
		out = append(out, conv.original(u)...)
	}
	for j := pending; j < len(conv.spans); j++ {
		out = append(out, conv.original(j)...)
	}
	if o.Incoming != nil {
		r := &restorer{c: conv, callTypes: conv.callTypes()}
		items, err := r.newItems(*o.Incoming)
		if err != nil {
			return nil, nil, fmt.Errorf("incoming message: %w", err)
		}
		out = append(out, items...)
	}
	after, err := ConvertItems(out)
	if err == nil {
		err = ValidateItems(out)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("%w: the compacted history is not a valid request: %w", errMalformed, err)
	}

	n.mu.Lock()
	n.lastUsage = UsageFromResponse(reply.Usage)
	n.mu.Unlock()
	res := &compact.Result{
		Messages:       after.Messages,
		MessagesBefore: len(conv.hist), MessagesAfter: len(out),
		SummarizedFrom: conv.spans[lead].from, SummarizedTo: end - 1,
		SummaryIndex: after.lastCompactionItem(),
		Summarizer:   nativeSummarizer,
		Lifted:       -1, TooLarge: -1, Shortened: -1, Fits: true,
		Duration: n.cfg.now().Sub(start),
	}
	if p, ok := n.fallback.(compact.Preflighter); ok {
		before, now := p.Preflight(conv.Messages), p.Preflight(after.Messages)
		res.TokensBefore, res.TokensAfter = before.Tokens, now.Tokens
		res.Fits, res.Usable, res.Overflow = now.Fits, now.Usable, now.Overflow
		if now.TooLarge >= 0 && now.TooLarge < len(after.spans) {
			res.TooLarge = after.firstItem(after.spans[now.TooLarge])
		}
	}
	return out, res, nil
}

// errMalformed reports a compaction reply that is not one.
var errMalformed = errors.New("malformed compaction reply")

// replyItems reads the items of a compaction reply, each typed where the
// SDK holds it exactly, and leaves out what the history keeps of its own
// (system and developer messages) and summaries of compact's (the
// compaction item carries them now). It fails unless the reply holds a
// compaction item with content.
func replyItems(reply *responses.CompactedResponse) ([]Item, error) {
	if reply == nil || len(reply.Output) == 0 {
		return nil, fmt.Errorf("%w: no output", errMalformed)
	}
	var out []Item
	compactions := 0
	for i, o := range reply.Output {
		raw := o.RawJSON()
		if raw == "" {
			return nil, fmt.Errorf("%w: output %d is empty", errMalformed, i)
		}
		u := decodeItem([]byte(raw))
		w, _, err := readWire(u)
		if err != nil || w.Type == "" && w.Role == "" {
			return nil, fmt.Errorf("%w: output %d is not an item", errMalformed, i)
		}
		switch {
		case w.Type == typeCompaction:
			if w.EncryptedContent == "" {
				return nil, fmt.Errorf("%w: output %d is a compaction item without content", errMalformed, i)
			}
			compactions++
		case w.Role == compact.RoleSystem || w.Role == roleDeveloper:
			continue
		case w.Role == compact.RoleUser || w.Role == compact.RoleAssistant:
			if text, parts, _ := messageContent(w); compact.IsSummary(compact.Message{Role: w.Role, Content: text, MultiContent: parts}) {
				continue
			}
		}
		out = append(out, u)
	}
	if compactions == 0 {
		return nil, fmt.Errorf("%w: no compaction item", errMalformed)
	}
	return out, nil
}

// pendingStart is the index of the message that opens a pending group of
// calls at the very end (an assistant turn whose calls are not all
// answered, followed only by outputs of its calls), or len(messages).
func (c *ItemConversion) pendingStart() int {
	g := len(c.views) - 1
	for g >= 0 && c.views[g].Role == compact.RoleTool {
		g--
	}
	if g < 0 || c.views[g].Role != compact.RoleAssistant || len(c.views[g].ToolCalls) == 0 {
		return len(c.views)
	}
	open := map[string]bool{}
	for _, tc := range c.views[g].ToolCalls {
		open[tc.ID] = true
	}
	for _, v := range c.views[g+1:] {
		delete(open, v.ToolCallID)
	}
	if len(open) == 0 {
		return len(c.views)
	}
	return g
}

// foldable reports whether messages [from, to) hold anything the provider
// would fold: a message that is not a user message.
func (c *ItemConversion) foldable(from, to int) bool {
	if from >= to {
		return false
	}
	for _, v := range c.views[from:to] {
		if v.Role != compact.RoleUser {
			return true
		}
	}
	return false
}

// latestUser is the index of the latest real user message before message
// end, or -1.
func (c *ItemConversion) latestUser(end int) int {
	for j := end - 1; j >= 0; j-- {
		if compact.IsRealUser(c.views[j]) {
			return j
		}
	}
	return -1
}

// holds reports whether items hold a message that reads as m.
func holds(items []Item, m compact.Message) bool {
	c, err := ConvertItems(items)
	if err != nil {
		return false
	}
	for _, v := range c.views {
		if v.Role == m.Role && compact.Text(v) == compact.Text(m) {
			return true
		}
	}
	return false
}

// lastCompactionItem is the index of the last compaction item, or -1.
func (c *ItemConversion) lastCompactionItem() int {
	for i := len(c.wires) - 1; i >= 0; i-- {
		if c.sorted.kinds[i] == kindCompaction {
			return i
		}
	}
	return -1
}
