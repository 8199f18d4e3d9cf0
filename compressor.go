package compact

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/contextkit/compact/internal/english"
	"github.com/contextkit/compact/internal/extractive"
	"github.com/contextkit/compact/internal/meter"
	"github.com/contextkit/compact/internal/msg"
	"github.com/contextkit/compact/internal/promptsize"
	"github.com/contextkit/compact/internal/trigger"
	"github.com/contextkit/compact/prune"
	"github.com/contextkit/compact/tokens"
)

// Compressor is the default ContextEngine. It keeps the system prompt, a
// short head and a recent tail verbatim and folds the turns between into one
// summary. Create one per conversation with New; it is safe for concurrent
// use, and two compactions on one Compressor run one after the other.
type Compressor struct {
	cfg config

	// run is the run lock, held from a compaction's plan to its assembly:
	// a channel of one slot, so that a caller waiting for it can give up
	// when its context ends.
	run chan struct{}

	// tc is cfg.counter remembering the counts of the messages of the
	// last two calls (see trigger.Remembered): the count the engine uses.
	tc roundCounter

	// own is the counter the Compressor built for its model (nil when the
	// host set one): SwitchModel swaps its encoding, UpdateUsage calibrates
	// it.
	own *trigger.Counter

	// The parts behind interfaces (see compressor_parts.go).
	prompts  promptSizer
	facts    factsSizer
	handoffs handoffWriter
	scrub    scrubber
	pruner   pruner

	mu    sync.Mutex // guards everything below
	model string
	setup modelSetup // what the model table says of model
	win   int
	th    thresholds
	st    state
}

// handoffState is what a Compressor remembers about handoffs.
type handoffState struct {
	done    int    // automatic handoffs that succeeded
	base    int    // compactions when the current context began (after a fresh-session handoff)
	lastErr string // the last handoff failure, cleared by a success
	writing bool   // a handoff is being written, after its compaction
}

// state is what a Compressor learns over a conversation.
type state struct {
	size                      trigger.Gauge // what checks, compactions and usage reports say of the request
	lastCompletion, lastTotal int           // the provider's last report
	compressions              int
	prunes                    int // compactions pruning alone achieved (among compressions)
	failures                  int
	backoffUntil              time.Time
	lastError                 string
	handoff                   handoffState
	cost                      meter.Meter
	recall                    bool // the session's archive recalls what is folded
}

// New returns a Compressor with the given options applied over the
// documented defaults. An option given an invalid value keeps the default,
// and Status().Adjusted says so.
func New(opts ...Option) *Compressor {
	cfg := newConfig(opts)
	setup := setupFor(cfg.model)
	if !cfg.windowSet && setup.window > 0 {
		cfg.window = setup.window
	}
	cfg.adjusted = append(cfg.adjusted, prune.New(cfg.pruneOpts...).Adjusted()...)
	var own *trigger.Counter
	if cfg.counter != nil && len(cfg.counterOpts) > 0 {
		cfg.adjusted = append(cfg.adjusted, "WithCounterOptions: ignored, the counter WithTokenCounter set is used as it is")
	}
	if cfg.counter == nil {
		own, cfg.counter = defaultCounter(cfg, setup)
		if own != nil {
			cfg.adjusted = append(cfg.adjusted, own.Base().Adjusted()...)
		}
	}
	if cfg.fallback == nil {
		cfg.fallback = defaultSummarizer()
	}
	if cfg.summarizer == nil {
		cfg.summarizer = cfg.fallback
	}
	c := &Compressor{cfg: cfg, run: make(chan struct{}, 1), model: cfg.model, win: cfg.window, own: own, setup: setup, tc: trigger.Remember(cfg.counter),
		prompts: promptEstimate{promptsize.NewMemo()}, facts: extractiveFacts{extractive.NewScanMemo()}, handoffs: packetWriter{pol: cfg.handoff, note: cfg.note}, scrub: redactScrubber{}, pruner: rulePruner{}}
	c.retuneLocked()
	return c
}

// defaultCounter is the counter for the model setup describes, or the estimator if the
// encoding cannot be built (it is embedded, so that does not happen in
// practice; the fallback keeps New from ever failing).
func defaultCounter(cfg config, setup modelSetup) (*trigger.Counter, tokens.Counter) {
	tc, err := newModelCounter(setup, cfg)
	if err != nil {
		cfg.logger.Warn("compact: exact token counting unavailable, estimating", "err", errText(err))
		return nil, tokens.Estimator{}
	}
	return tc, tc
}

// thresholds are the token figures derived from a window.
type thresholds struct {
	adjusted  string // how the window moved a setting, for Status().Adjusted; "" when it did not
	usable    int    // window minus reserve
	threshold int    // compaction triggers at this many prompt tokens
	tail      int    // protected tail budget
	carry     int    // carried user message budget
	summary   int    // summary target bound
	head      int    // head budget
	// reach is how far back the tail reaches for the latest user message
	// and the last assistant text; minVerbatim the fewest tokens it keeps
	// whatever its budget (economy mode's verbatim end, 0 otherwise).
	reach, minVerbatim int
	factsCap           int  // the most a summary dense in facts may take (see factsTarget)
	economy            bool // economy mode's figures: the tail is never pruned
	priced             bool // the prices are known: compact for the bill (see WithPricing)
}

func computeThresholds(cfg config, window int) thresholds {
	reserve := cfg.reserve
	if reserve < 0 {
		reserve = min(defaultReserveTokens, window/4)
	}
	usable := max(window-reserve, 1)
	asked := max(int(cfg.fraction*float64(usable)), 1)
	th, cap := asked, cfg.cap
	if cfg.fractionSet && !cfg.boundsSet {
		cap = 0 // the default cap bounds the default fraction only
	}
	if cfg.floor > 0 && th < cfg.floor {
		th = min(cfg.floor, max(th, int(DefaultThreshold*float64(usable))))
	}
	if cap > 0 && th > cap {
		th = cap
	}
	th = max(min(th, usable), 1)
	var note string
	switch {
	case reserve >= window:
		note = fmt.Sprintf("WithReserveTokens(%d): leaves nothing of the %d-token window; 1 token usable", reserve, window)
	case th != asked && (cfg.fractionSet || cfg.boundsSet):
		note = fmt.Sprintf("threshold: %d %s, not %d (%v of the %d usable): WithThresholdBounds(%d, %d) moved it",
			th, english.Noun(th, "token"), asked, cfg.fraction, usable, cfg.floor, cfg.cap)
	}
	return thresholds{
		adjusted:  note,
		usable:    usable,
		threshold: th,
		tail:      max(int(cfg.tailFraction*float64(th)), 1),
		carry:     min(cfg.carryTokens, th/4),
		summary:   max(min(cfg.summaryTokens, th/10), minSummaryTokens),
		head:      max(th/4, 1),
		reach:     th / 2,
		factsCap:  th / factsCapDivisor,
	}
}

// Name returns "compressor".
func (c *Compressor) Name() string { return "compressor" }

// threshold returns the prompt size, in tokens, at which compaction
// triggers.
func (c *Compressor) threshold() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.th.threshold
}

// Counter returns the tokens.Counter the Compressor counts with, so a host (or
// a Session) keeping a running count agrees with the Compressor's own.
func (c *Compressor) Counter() tokens.Counter { return c.cfg.counter }

// count returns the tokens msgs take as a request, with the Compressor's
// counter.
func (c *Compressor) count(msgs []Message) int {
	c.tc.Round()
	return tokens.CountMessages(c.tc, msgs)
}

// UpdateUsage records the usage a provider reported for the request just
// sent. The report counts what the Compressor's count of that request
// could not see (tool definitions not named with WithTools, images, the
// provider's own framing), so every later check adds it: a report over
// the threshold makes the next check compact, whichever entry point the
// host calls (ShouldCompress, ShouldCompressMessages, Preflight, Compress).
// When no entry point counted that request, the report itself is the
// least the next request takes, until a compaction. For a model whose
// tokenizer the package does not have, the report also tunes the
// calibration. A prompt back under the threshold lifts an anti-thrash
// pause; the first report after a compaction judges it.
//
// A report whose request was sent (Usage.At) before the last compaction
// committed describes a history that compaction replaced: it is billed,
// but judges no compaction, lifts no pause, is no least size and is not
// Status().LastPromptTokens. It says what counting misses, and tunes the
// calibration, only when ShouldCompress, ShouldCompressMessages or
// Preflight counted that request before it was sent and nothing counted
// since (a Compress that was not forced counts its own input).
func (c *Compressor) UpdateUsage(u Usage) {
	if u.PromptTokens <= 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.st.lastCompletion, c.st.lastTotal = u.CompletionTokens, u.TotalTokens
	c.billLocked(u)
	c.st.size.Report(u.PromptTokens, u.At, c.own, c.limitsLocked())
}

// limitsLocked are the figures the size of a request is judged against.
func (c *Compressor) limitsLocked() trigger.Limits {
	return trigger.Limits{Threshold: c.th.threshold, Tail: c.th.tail, Strikes: c.cfg.strikeLimit}
}

// ShouldCompress reports whether a request counted at promptTokens, as
// Counter counts (a Session's running count is), should be compacted
// before it is sent. The count is the one the next usage report is
// compared with, and the size judged is the count plus what the last
// report showed counting misses (see UpdateUsage). It is true when that
// size has reached the threshold (or, with prices known, an earlier point
// WithEconomy or a cold cache makes cheaper: see WithPricing), and
// automatic compaction is neither paused nor backing off from summarizer
// failures (when failures fall back to the extractive summary, backoff
// does not stop it). A request over the usable window is always
// compacted: no pause lets it go out as it is.
func (c *Compressor) ShouldCompress(promptTokens int) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	ok, _ := c.shouldLocked(promptTokens)
	return ok
}

// shouldLocked is ShouldCompress; it also returns the size judged.
func (c *Compressor) shouldLocked(counted int) (bool, int) {
	n := c.st.size.Check(counted, c.cfg.now(), c.limitsLocked())
	if n > c.th.usable {
		return true, n
	}
	due, _ := c.dueLocked(n)
	if paused, _ := c.st.size.Paused(); !due || paused {
		return false, n
	}
	return c.cfg.policy == FallbackExtractive || !c.backingOffLocked(), n
}

// ShouldCompressMessages counts msgs, plus the incoming message and tool
// definitions opts name (WithIncoming, WithTools), and reports
// ShouldCompress for that count.
func (c *Compressor) ShouldCompressMessages(msgs []Message, opts ...CompressOption) bool {
	return c.ShouldCompress(c.count(msgs) + c.extraTokens(ApplyCompressOptions(opts...)))
}

func (c *Compressor) backingOffLocked() bool {
	return !c.st.backoffUntil.IsZero() && c.cfg.now().Before(c.st.backoffUntil)
}

// Status reports the window, the threshold, the last prompt size and the
// state of automatic compaction.
func (c *Compressor) Status() Status {
	c.mu.Lock()
	defer c.mu.Unlock()
	last := c.st.size.Last()
	pct := 0.0
	if c.th.threshold > 0 {
		pct = min(100*float64(last)/float64(c.th.threshold), 100)
	}
	of := 0.0
	if c.win > 0 {
		of = 100 * float64(last) / float64(c.win)
	}
	paused, why := c.st.size.Paused()
	s := Status{
		Engine: c.Name(), Model: c.model, Window: c.win, Threshold: c.th.threshold, Usable: c.th.usable,
		LastPromptTokens: last, UsagePercent: of, ThresholdPercent: pct,
		LastCompletionTokens: c.st.lastCompletion, LastTotalTokens: c.st.lastTotal, Compressions: c.st.compressions,
		Strikes: c.st.size.Strikes(), Paused: paused, PauseReason: why,
		LastError: c.st.lastError,
	}
	s.ModelNote = modelNote(c.model, c.setup)
	s.Encoding, s.Calibration = "", 1
	if e, ok := c.cfg.counter.(tokens.NamedEncoding); ok {
		s.Encoding = e.Encoding()
	}
	if c.own != nil {
		s.Calibration = c.own.Factor()
	}
	if len(c.cfg.adjusted) > 0 {
		s.Adjusted = append([]string(nil), c.cfg.adjusted...)
	}
	if c.th.adjusted != "" {
		s.Adjusted = append(s.Adjusted, c.th.adjusted)
	}
	if c.backingOffLocked() {
		s.BackoffUntil = c.st.backoffUntil
	}
	c.handoffStatusLocked(&s)
	s.Cost = c.st.cost.Spend(c.pricingLocked())
	s.Economy, s.Trigger = c.th.economy, c.triggerLocked()
	return s
}

// SwitchModel moves the conversation to another model and window: the
// threshold is recomputed and an anti-thrash pause is lifted. A window of
// zero means the model table's window for the model, or the current one
// when the table does not know it. A counter the Compressor built for
// itself moves to the new model's encoding and calibration; one the host
// set (WithTokenCounter) is kept. What usage reports showed counting
// misses is forgotten: the next report measures it again.
func (c *Compressor) SwitchModel(model string, window int) {
	setup := setupFor(model)
	if c.own != nil {
		if err := switchCounter(c.own, setup, c.cfg); err != nil {
			c.cfg.logger.Warn("compact: keeping the previous encoding", "model", model, "err", errText(err))
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.model, c.setup = model, setup
	switch {
	case window > 0:
		c.win = window
	case setup.window > 0:
		c.win = setup.window
	}
	c.retuneLocked()
	c.st.size.Restart()
}

// OnSessionStart moves the Compressor to the conversation's model and
// window when meta names them (see SwitchModel); its state starts empty.
func (c *Compressor) OnSessionStart(id string, meta SessionMeta) {
	c.mu.Lock()
	c.st.recall = meta.Recall
	c.retuneLocked()
	c.mu.Unlock()
	if meta.Model == "" && meta.Window <= 0 {
		return
	}
	model := meta.Model
	if model == "" {
		c.mu.Lock()
		model = c.model
		c.mu.Unlock()
	}
	c.SwitchModel(model, meta.Window)
}

// OnSessionEnd does nothing: a Compressor holds no resources.
func (c *Compressor) OnSessionEnd(id string, msgs []Message) {}

// OnSessionReset forgets what the Compressor learned about the conversation:
// usage, counts, strikes, pause and backoff. Its bill (Status.Cost) is kept:
// the conversation was billed for it all the same.
func (c *Compressor) OnSessionReset(id string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.st = state{cost: c.st.cost.Keep(), recall: c.st.recall}
}

// Preflight checks a request before it is sent: the history, plus the
// incoming message and the tool definitions opts name. It never calls a
// model. Tokens is the count with what the last usage report showed
// counting misses (see UpdateUsage). When even the messages a compaction
// must keep verbatim do not fit the usable window, Fits is false and
// TooLarge names the largest of them, so the host can act before the
// provider rejects the request.
func (c *Compressor) Preflight(msgs []Message, opts ...CompressOption) Preflight {
	o := ApplyCompressOptions(opts...)
	n := c.count(msgs) + c.extraTokens(o)
	c.mu.Lock()
	th, unseen := c.th, c.st.size.Unseen()
	should, est := c.shouldLocked(n)
	c.mu.Unlock()
	p := Preflight{Tokens: est, Threshold: th.threshold, Usable: th.usable, Compress: should,
		HasContent: c.HasContentToCompress(msgs), Fits: est <= th.usable, TooLarge: -1}
	if p.Fits {
		return p
	}
	// What would be left after the best compaction: the messages a plan
	// must keep, and the tools.
	plan := c.plan(msgs, th, o.Incoming)
	kept := tokens.CountTools(c.cfg.counter, o.Tools) + unseen
	largest := 0
	for i, m := range msgs {
		if i >= plan.headEnd && i < plan.cut && i != plan.lift {
			continue
		}
		k := c.tc.CountMessage(m)
		kept += k
		if !msg.IsSystem(m) && k > largest {
			largest, p.TooLarge = k, i
		}
	}
	if o.Incoming != nil {
		if k := c.tc.CountMessage(*o.Incoming); k > largest {
			largest, p.TooLarge = k, len(msgs)
		}
		kept += c.tc.CountMessage(*o.Incoming)
	}
	p.Overflow = max(kept+tokens.ReplyPrimingTokens-th.usable, 0)
	p.Fits = p.Overflow == 0
	if p.Fits {
		p.TooLarge = -1
	}
	return p
}

// HasContentToCompress reports whether a compaction of msgs would have
// anything to fold.
func (c *Compressor) HasContentToCompress(msgs []Message) bool {
	c.mu.Lock()
	th := c.th
	c.mu.Unlock()
	return c.plan(msgs, th, nil).hasContent()
}

var (
	_ ContextEngine   = (*Compressor)(nil)
	_ Preflighter     = (*Compressor)(nil)
	_ SessionHooks    = (*Compressor)(nil)
	_ ModelSwitcher   = (*Compressor)(nil)
	_ CounterProvider = (*Compressor)(nil)
)

// callSummarizer calls s under the configured timeout.
func (c *Compressor) callSummarizer(ctx context.Context, s Summarizer, req SummaryRequest) (string, error) {
	if c.cfg.summaryTimeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.cfg.summaryTimeout)
		defer cancel()
	}
	return s.Summarize(ctx, req)
}
