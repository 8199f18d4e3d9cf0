package anthropic

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/contextkit/compact"
)

// NativeEngine lets Anthropic manage the context on its side, with a
// compact engine (its fallback) for whatever the provider cannot do: its
// requests carry the context_management edits (see RequestOptions), the
// provider compacts (compact_20260112) and clears old tool results
// (clear_tool_uses_20250919) while it answers, and Record reads back what
// it did into a compact.Result. The fallback compacts instead when native
// compaction fails (an error the provider gives for it, a request that
// failed while the history was due for it, a compaction block without a
// summary: see RecordFailure and Record), for a while after, by the
// fallback's own failure policy; and it compacts when a request would not
// fit the window even so, and when a compaction is forced.
//
// A host's loop, one NativeEngine per conversation:
//
//	h, res, err := anthropic.Compress(ctx, engine, h) // the fallback's turn, when it has one
//	resp, err := client.Messages.New(ctx, params, engine.RequestOptions()...)
//	if err != nil && engine.RecordFailure(h, err) { continue } // send again: the fallback compacts
//	res, err = engine.Record(h, resp)                            // instead of UpdateUsage
//	h.Messages = append(h.Messages, resp.ToParam())              // the compaction block too
//
// The provider's compaction block holds its summary as text; Convert reads
// it as a summary, and the API ignores every turn before the newest one,
// so Compress and ShouldCompress judge a history from it on. The history
// keeps the turns before it until a compaction of compact's own leaves them
// out; a Session's log keeps them for good.
//
// Its ContextEngine methods are its fallback's, except that while native
// compaction is on, the fallback's threshold is the provider's trigger and
// not compact's: ShouldCompress, Preflight and Compress compact only a
// request that would not fit the usable window. Status is the fallback's
// with the provider's compactions counted, its last failure and backoff.
//
// A NativeEngine holds per-conversation state (its fallback's, and its
// own failures), so a host creates one per conversation. Its methods are
// safe for concurrent use.
type NativeEngine struct {
	fallback compact.ContextEngine
	cfg      config

	mu           sync.Mutex
	compactions  int
	failures     int
	backoffUntil time.Time
	skipNext     bool // the request after a failure goes without edits, whatever the backoff
	forceNext    bool // the fallback's next compaction is forced: the provider found the history due
	lastError    string
	lastUsage    compact.Usage
	lastUsable   int // the usable window the fallback's last preflight reported
}

// nativeSummarizer names the provider's threshold compaction in a Result.
const nativeSummarizer = "anthropic:compact_20260112"

// NewNativeEngine returns an engine that lets Anthropic compact and clear,
// with fallback for the rest. A nil fallback is compact.New(): give the
// model (compact.WithModel) or its window, since the threshold the
// provider compacts at is the fallback's. Invalid option values keep their
// defaults and are reported in Status().Adjusted.
func NewNativeEngine(fallback compact.ContextEngine, opts ...Option) *NativeEngine {
	if fallback == nil {
		fallback = compact.New()
	}
	return &NativeEngine{fallback: fallback, cfg: newConfig(opts)}
}

// Name returns "anthropic-native".
func (n *NativeEngine) Name() string { return "anthropic-native" }

// UpdateUsage records the usage of the last request with the fallback,
// which keeps the engine's view of the window. Record calls it.
func (n *NativeEngine) UpdateUsage(u compact.Usage) { n.fallback.UpdateUsage(u) }

// ShouldCompress reports whether a request of promptTokens tokens should be
// compacted by compact first: the fallback's answer while native
// compaction is off; while it is on, only a request over the usable window
// (as the fallback's last preflight reported it, else its window): the
// provider compacts the rest at its trigger.
func (n *NativeEngine) ShouldCompress(promptTokens int) bool {
	if _, on := n.native(); !on {
		return n.fallback.ShouldCompress(promptTokens)
	}
	return promptTokens > n.usable()
}

// HasContentToCompress reports the fallback's answer.
func (n *NativeEngine) HasContentToCompress(msgs []compact.Message) bool {
	return n.fallback.HasContentToCompress(msgs)
}

// Preflight checks a request as the fallback does (its Preflight when it
// has one, its threshold on the last usage otherwise), except that while
// native compaction is on, Compress is set only for a request over the
// usable window, and Threshold is the provider's trigger.
func (n *NativeEngine) Preflight(msgs []compact.Message, opts ...compact.CompressOption) compact.Preflight {
	var p compact.Preflight
	if f, ok := n.fallback.(compact.Preflighter); ok {
		p = f.Preflight(msgs, opts...)
		n.mu.Lock()
		n.lastUsable = p.Usable
		n.mu.Unlock()
	} else {
		st := n.fallback.Status()
		p = compact.Preflight{Tokens: st.LastPromptTokens, Threshold: st.Threshold, Usable: st.Window, Fits: true, TooLarge: -1,
			Compress: n.fallback.ShouldCompress(st.LastPromptTokens), HasContent: n.fallback.HasContentToCompress(msgs)}
	}
	if _, on := n.native(); on {
		p.Threshold = n.trigger()
		p.Compress = p.Usable > 0 && p.Tokens > p.Usable
	}
	return p
}

// Compress compacts msgs with the fallback when compact's compaction is
// due: native compaction is off (backing off after a failure, or turned
// off by WithCompaction), the request would not fit the usable window, or
// the compaction is forced (compact.Force). Otherwise it hands msgs back
// with Result.Skipped saying the provider compacts at its trigger. The
// first Compress after the provider failed to compact (or refused a
// compaction block) forces the fallback's compaction: the provider found
// the history due, or the history holds a block it will not take, which
// compact's summary folds. A fallback compaction while backing off sets
// Result.Fallback and says why in FallbackReason. Its errors are the
// fallback's.
func (n *NativeEngine) Compress(ctx context.Context, msgs []compact.Message, opts ...compact.CompressOption) (*compact.Result, error) {
	reason, on := n.native()
	o := compact.ApplyCompressOptions(opts...)
	if on && !o.Force {
		if p := n.Preflight(msgs, opts...); !p.Compress {
			return n.skip(msgs, o, p), nil
		}
	}
	if n.takeForce() {
		opts = append(opts[:len(opts):len(opts)], compact.Force())
	}
	res, err := n.fallback.Compress(ctx, msgs, opts...)
	if err != nil || res == nil || res.Skipped != "" || reason == "" {
		return res, err
	}
	if res.FallbackReason != "" {
		reason += "; " + res.FallbackReason
	}
	res.Fallback, res.FallbackReason = true, reason
	return res, nil
}

// skip is the Result of a compaction the provider will do: msgs as they
// are, the incoming message appended.
func (n *NativeEngine) skip(msgs []compact.Message, o compact.CompressOptions, p compact.Preflight) *compact.Result {
	out := msgs
	if o.Incoming != nil {
		out = append(msgs[:len(msgs):len(msgs)], *o.Incoming)
	}
	overflow := max(0, p.Tokens-p.Usable)
	return &compact.Result{
		Messages: out, MessagesBefore: len(msgs), MessagesAfter: len(out),
		TokensBefore: p.Tokens, TokensAfter: p.Tokens,
		SummarizedFrom: -1, SummarizedTo: -1, SummaryIndex: -1, Lifted: -1, TooLarge: -1, Shortened: -1,
		Fits: overflow == 0, Usable: p.Usable, Overflow: overflow,
		Skipped: fmt.Sprintf("the provider compacts on its side at %d input tokens (the request has %d)", n.trigger(), p.Tokens),
	}
}

// Status is the fallback's status under this engine's name, with the
// provider's compactions counted in Compressions, the last native failure
// in LastError and its backoff in BackoffUntil (when later than the
// fallback's), and this engine's invalid options in Adjusted. While native
// compaction is on, Threshold is the provider's trigger.
func (n *NativeEngine) Status() compact.Status {
	st := n.fallback.Status()
	st.Engine = n.Name()
	if _, on := n.native(); on {
		st.Threshold = n.trigger()
		st.ThresholdPercent = min(100*float64(st.LastPromptTokens)/float64(st.Threshold), 100)
	}
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

// OnSessionStart passes the conversation's start to the fallback, when it
// keeps session state (compact.SessionHooks): a Session's model and window
// set its threshold, which is the provider's trigger.
func (n *NativeEngine) OnSessionStart(id string, meta compact.SessionMeta) {
	if h, ok := n.fallback.(compact.SessionHooks); ok {
		h.OnSessionStart(id, meta)
	}
}

// OnSessionEnd passes the conversation's end to the fallback, when it keeps
// session state.
func (n *NativeEngine) OnSessionEnd(id string, msgs []compact.Message) {
	if h, ok := n.fallback.(compact.SessionHooks); ok {
		h.OnSessionEnd(id, msgs)
	}
}

// OnSessionReset passes a reset to the fallback, when it keeps session
// state.
func (n *NativeEngine) OnSessionReset(id string) {
	if h, ok := n.fallback.(compact.SessionHooks); ok {
		h.OnSessionReset(id)
	}
}

// SwitchModel passes a model switch to the fallback, when it can take one
// (compact.ModelSwitcher): its new threshold is the provider's new trigger.
func (n *NativeEngine) SwitchModel(model string, window int) {
	if m, ok := n.fallback.(compact.ModelSwitcher); ok {
		m.SwitchModel(model, window)
	}
}

// LastUsage is what the provider's last compaction cost (its compaction
// iterations, see CompactionUsage; zero before the first), for cost
// telemetry. It is not the usage of a request, so it is not given to
// UpdateUsage.
func (n *NativeEngine) LastUsage() compact.Usage {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.lastUsage
}

// native reports whether native compaction is on; when it is off after a
// failure, reason says why (for Result.FallbackReason).
func (n *NativeEngine) native() (reason string, on bool) {
	if !n.cfg.compaction {
		return "", false
	}
	reason, off := n.backingOff()
	return reason, !off
}

// sendsEdits reports whether the next request carries the edits: not
// while backing off after a failure.
func (n *NativeEngine) sendsEdits() bool {
	_, off := n.backingOff()
	return !off
}

// backingOff reports whether a native failure keeps the edits off (the
// request after the failure, and any until the backoff ends), and why.
func (n *NativeEngine) backingOff() (reason string, off bool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	waiting := n.cfg.now().Before(n.backoffUntil)
	if !n.skipNext && !waiting {
		return "", false
	}
	reason = "native compaction failed: " + n.lastError
	if waiting {
		reason += "; backing off until " + n.backoffUntil.Format(time.RFC3339)
	}
	return reason, true
}

// trigger is the input tokens the edits trigger at: WithTrigger's, or the
// fallback's threshold raised to the API's minimum.
func (n *NativeEngine) trigger() int {
	if n.cfg.trigger > 0 {
		return n.cfg.trigger
	}
	return max(n.fallback.Status().Threshold, minTrigger)
}

// usable is the fallback's usable window (the window less the reserve for
// the reply) as its last preflight reported it, else its window.
func (n *NativeEngine) usable() int {
	n.mu.Lock()
	u := n.lastUsable
	n.mu.Unlock()
	if u > 0 {
		return u
	}
	return n.fallback.Status().Window
}

func (n *NativeEngine) succeed() {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.compactions++
	n.failures, n.backoffUntil, n.lastError, n.skipNext, n.forceNext = 0, time.Time{}, "", false, false
}

// takeForce reports whether the fallback's next compaction is forced, once.
func (n *NativeEngine) takeForce() bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	f := n.forceNext
	n.forceNext = false
	return f
}

// fail records a native failure: the next request goes without edits (Record
// sees it through), and so do those until the backoff ends. due says the
// provider found the history due for compaction (or refused a block it
// holds): the fallback's next compaction is then forced.
func (n *NativeEngine) fail(why string, due bool) {
	n.mu.Lock()
	n.failures++
	n.lastError = why
	n.skipNext = true
	n.forceNext = due
	if k := len(n.cfg.backoff); k > 0 {
		n.backoffUntil = n.cfg.now().Add(n.cfg.backoff[min(n.failures, k)-1])
	}
	until := n.backoffUntil
	n.mu.Unlock()
	n.cfg.logger.Warn("native compaction failed; compact's engine takes over", "err", why,
		"fallback", n.fallback.Name(), "until", until)
}

var (
	_ compact.ContextEngine = (*NativeEngine)(nil)
	_ compact.Preflighter   = (*NativeEngine)(nil)
	_ compact.SessionHooks  = (*NativeEngine)(nil)
	_ compact.ModelSwitcher = (*NativeEngine)(nil)
)

// oneLine is s on one line, for a reason or a log.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
