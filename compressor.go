package compact

import (
	"context"
	"io"
	"log/slog"
	"strconv"
	"sync"
	"time"
)

// Defaults of the Compressor. Each names the behaviour it sets and where the
// figure comes from.
const (
	// DefaultContextWindow is the window assumed when none is given: 128k
	// tokens, the window of gpt-4o and gpt-4.1-mini class models.
	DefaultContextWindow = 128_000

	// DefaultReserveTokens is the output reserved out of the window before
	// the threshold is computed. It is capped at a quarter of the window so
	// that small windows keep room for input.
	DefaultReserveTokens = 8_192

	// DefaultThreshold is the fraction of the usable window (window minus
	// reserve) at which compaction triggers, the figure most agent runtimes
	// use.
	DefaultThreshold = 0.75

	// DefaultThresholdFloor keeps a low threshold fraction from compacting a
	// large window too early: the threshold is never below it, except on
	// windows too small to hold it (there the floor becomes
	// DefaultThreshold of the usable window).
	DefaultThresholdFloor = 64_000

	// DefaultThresholdCap bounds the threshold on very large windows: past
	// about 256k tokens requests get slow and costly and models attend less
	// well, so a million-token window still compacts there.
	DefaultThresholdCap = 256_000

	// DefaultHeadMessages is how many non-system messages at the start are
	// kept verbatim on a first compaction (the task statement and the first
	// exchange). Once a summary exists the head decays to the system prompt.
	DefaultHeadMessages = 3

	// DefaultTailFraction is the protected tail's token budget as a fraction
	// of the threshold.
	DefaultTailFraction = 0.20

	// DefaultTailMinMessages is the fewest messages the tail keeps, however
	// large they are.
	DefaultTailMinMessages = 4

	// DefaultCarriedUserTokens is the budget for recent real user messages
	// carried verbatim into the compacted history (Codex keeps 20k). It is
	// capped at a quarter of the threshold.
	DefaultCarriedUserTokens = 20_000

	// DefaultSummaryTokens bounds the summary's target length; the target is
	// a fifth of what is being summarised, within [minSummaryTokens, this],
	// and never more than a tenth of the threshold.
	DefaultSummaryTokens = 8_000

	// DefaultStrikeLimit is how many compactions in a row may leave usage
	// over the threshold before automatic compaction pauses.
	DefaultStrikeLimit = 2
)

// minSummaryTokens is the smallest summary target, enough for a task line,
// a few files and the last state.
const minSummaryTokens = 128

// DefaultBackoff is the wait after the first, second and later summarizer
// failures before automatic compaction calls the summarizer again.
var DefaultBackoff = []time.Duration{60 * time.Second, 300 * time.Second, 900 * time.Second}

// FailurePolicy says what a compaction does when its summarizer fails.
type FailurePolicy int

const (
	// FallbackExtractive replaces a failed summary with the deterministic
	// extractive one, so the compaction still happens. Result.Fallback is
	// set. Authentication and quota errors abort regardless.
	FallbackExtractive FailurePolicy = iota
	// AbortOnFailure returns the error and leaves the caller's messages as
	// they were.
	AbortOnFailure
)

// Compressor is the default ContextEngine. It keeps the system prompt, a
// short head and a recent tail verbatim and folds the turns between into one
// summary. Create one per conversation with New; it is safe for concurrent
// use, and two compactions on one Compressor run one after the other.
type Compressor struct {
	cfg config

	run sync.Mutex // held for the length of a compaction

	mu    sync.Mutex // guards everything below
	model string
	win   int
	th    thresholds
	st    state
}

// state is what a Compressor learns over a conversation.
type state struct {
	lastPrompt   int
	compressions int
	prunes       int // compactions pruning alone achieved (among compressions)
	strikes      int
	checkNext    bool // judge the last compaction on the next usage report
	paused       bool
	pauseReason  string
	failures     int
	backoffUntil time.Time
	lastError    string
	handoff      handoffState
}

// config is the Compressor's settings, fixed by New's options.
type config struct {
	model          string
	window         int
	reserve        int // <0: default
	fraction       float64
	floor, cap     int
	headMessages   int
	tailFraction   float64
	tailMin        int
	carryTokens    int
	summaryTokens  int
	note           string
	summarizer     Summarizer
	fallback       Summarizer
	policy         FailurePolicy
	counter        TokenCounter
	logger         *slog.Logger
	now            func() time.Time
	backoff        []time.Duration
	strikeLimit    int
	repair         bool
	summaryTimeout time.Duration
	prune          bool          // prune before summarising (WithPruning)
	pruneOpts      []PruneOption // the host's pruning options
	handoff        HandoffPolicy
}

// Option configures a Compressor.
type Option func(*config)

// New returns a Compressor with the given options applied over the
// documented defaults. Out-of-range values are replaced by the defaults.
func New(opts ...Option) *Compressor {
	cfg := config{
		window:        DefaultContextWindow,
		reserve:       -1,
		fraction:      DefaultThreshold,
		floor:         DefaultThresholdFloor,
		cap:           DefaultThresholdCap,
		headMessages:  DefaultHeadMessages,
		tailFraction:  DefaultTailFraction,
		tailMin:       DefaultTailMinMessages,
		carryTokens:   DefaultCarriedUserTokens,
		summaryTokens: DefaultSummaryTokens,
		note:          CompactionNote,
		policy:        FallbackExtractive,
		now:           time.Now,
		backoff:       DefaultBackoff,
		strikeLimit:   DefaultStrikeLimit,
		prune:         true,
	}
	for _, opt := range opts {
		if opt != nil {
			opt(&cfg)
		}
	}
	if cfg.logger == nil {
		cfg.logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if cfg.counter == nil {
		cfg.counter = defaultCounter(cfg.model, cfg.logger)
	}
	if cfg.fallback == nil {
		cfg.fallback = defaultSummarizer()
	}
	if cfg.summarizer == nil {
		cfg.summarizer = cfg.fallback
	}
	c := &Compressor{cfg: cfg, model: cfg.model, win: cfg.window}
	c.th = computeThresholds(cfg, cfg.window)
	return c
}

// defaultCounter is the exact counter for model, or the estimator if the
// encoding cannot be built (it is embedded, so that does not happen in
// practice; the fallback keeps New from ever failing).
func defaultCounter(model string, logger *slog.Logger) TokenCounter {
	tc, err := NewTokenCounter(model)
	if err != nil {
		logger.Warn("compact: exact token counting unavailable, estimating", "err", errText(err))
		return EstimateCounter{}
	}
	return tc
}

// thresholds are the token figures derived from a window.
type thresholds struct {
	usable    int // window minus reserve
	threshold int // compaction triggers at this many prompt tokens
	tail      int // protected tail budget
	carry     int // carried user message budget
	summary   int // summary target bound
	head      int // head budget
}

func computeThresholds(cfg config, window int) thresholds {
	reserve := cfg.reserve
	if reserve < 0 {
		reserve = min(DefaultReserveTokens, window/4)
	}
	usable := max(window-reserve, 1)
	th := int(cfg.fraction * float64(usable))
	if cfg.floor > 0 && th < cfg.floor {
		th = min(cfg.floor, max(th, int(DefaultThreshold*float64(usable))))
	}
	if cfg.cap > 0 && th > cfg.cap {
		th = cfg.cap
	}
	th = max(min(th, usable), 1)
	return thresholds{
		usable:    usable,
		threshold: th,
		tail:      max(int(cfg.tailFraction*float64(th)), 1),
		carry:     min(cfg.carryTokens, th/4),
		summary:   max(min(cfg.summaryTokens, th/10), minSummaryTokens),
		head:      max(th/4, 1),
	}
}

// Name returns "compressor".
func (c *Compressor) Name() string { return "compressor" }

// Threshold returns the prompt size, in tokens, at which compaction
// triggers.
func (c *Compressor) Threshold() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.th.threshold
}

// Counter returns the TokenCounter the Compressor counts with, so a host (or
// a Session) keeping a running count agrees with the Compressor's own.
func (c *Compressor) Counter() TokenCounter { return c.cfg.counter }

// Count returns the tokens msgs take as a request, with the Compressor's
// counter.
func (c *Compressor) Count(msgs []Message) int {
	return CountMessages(c.cfg.counter, msgs)
}

// UpdateUsage records the usage a provider reported. A prompt back under
// the threshold lifts an anti-thrash pause; the first report after a
// compaction judges it.
func (c *Compressor) UpdateUsage(u Usage) {
	if u.PromptTokens <= 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.observeLocked(u.PromptTokens)
}

// observeLocked takes in a real prompt size.
func (c *Compressor) observeLocked(tokens int) {
	c.st.lastPrompt = tokens
	over := tokens >= c.th.threshold
	if c.st.checkNext {
		c.st.checkNext = false
		if over {
			c.strikeLocked("usage stayed over the threshold after compaction")
		} else {
			c.st.strikes = 0
		}
	}
	if c.st.paused && !over {
		c.st.paused, c.st.pauseReason = false, ""
		c.st.strikes = 0
	}
}

func (c *Compressor) strikeLocked(why string) {
	c.st.strikes++
	if c.cfg.strikeLimit > 0 && c.st.strikes >= c.cfg.strikeLimit {
		c.st.paused = true
		c.st.pauseReason = why + " " + strconv.Itoa(c.st.strikes) + " times in a row; " +
			"automatic compaction paused until usage drops, the model changes, or a forced compaction"
	}
}

// ShouldCompress reports whether a prompt of promptTokens tokens should be
// compacted before it is sent: it has reached the threshold, and automatic
// compaction is neither paused nor backing off from summarizer failures
// (when failures fall back to the extractive summary, backoff does not stop
// it).
func (c *Compressor) ShouldCompress(promptTokens int) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.observeLocked(promptTokens)
	if promptTokens < c.th.threshold || c.st.paused {
		return false
	}
	return c.cfg.policy == FallbackExtractive || !c.backingOffLocked()
}

// ShouldCompressMessages counts msgs and reports ShouldCompress for that
// size.
func (c *Compressor) ShouldCompressMessages(msgs []Message) bool {
	return c.ShouldCompress(c.Count(msgs))
}

func (c *Compressor) backingOffLocked() bool {
	return !c.st.backoffUntil.IsZero() && c.cfg.now().Before(c.st.backoffUntil)
}

// Status reports the window, the threshold, the last prompt size and the
// state of automatic compaction.
func (c *Compressor) Status() Status {
	c.mu.Lock()
	defer c.mu.Unlock()
	pct := 0.0
	if c.th.threshold > 0 {
		pct = min(100*float64(c.st.lastPrompt)/float64(c.th.threshold), 100)
	}
	s := Status{
		Engine: c.Name(), Model: c.model, Window: c.win, Threshold: c.th.threshold,
		LastPromptTokens: c.st.lastPrompt, UsagePercent: pct, Compressions: c.st.compressions,
		Strikes: c.st.strikes, Paused: c.st.paused, PauseReason: c.st.pauseReason,
		LastError: c.st.lastError,
	}
	if c.backingOffLocked() {
		s.BackoffUntil = c.st.backoffUntil
	}
	c.handoffStatusLocked(&s)
	return s
}

// SwitchModel moves the conversation to another model and window: the
// threshold is recomputed and an anti-thrash pause is lifted. A window of
// zero keeps the current one. The token counter set at New is kept.
func (c *Compressor) SwitchModel(model string, window int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.model = model
	if window > 0 {
		c.win = window
	}
	c.th = computeThresholds(c.cfg, c.win)
	c.st.paused, c.st.pauseReason, c.st.strikes, c.st.checkNext = false, "", 0, false
}

// OnSessionStart does nothing: a Compressor's state starts empty.
func (c *Compressor) OnSessionStart(id string) {}

// OnSessionEnd does nothing: a Compressor holds no resources.
func (c *Compressor) OnSessionEnd(id string) {}

// OnSessionReset forgets what the Compressor learned about the conversation:
// usage, counts, strikes, pause and backoff.
func (c *Compressor) OnSessionReset(id string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.st = state{}
}

// Preflight counts msgs plus the incoming message and says whether the
// request should be compacted first. It never calls a model.
func (c *Compressor) Preflight(msgs []Message, incoming *Message) Preflight {
	n := c.Count(msgs)
	if incoming != nil {
		n += c.cfg.counter.CountMessage(*incoming)
	}
	return Preflight{Tokens: n, Threshold: c.Threshold(), Compress: c.ShouldCompress(n),
		HasContent: c.HasContentToCompress(msgs)}
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
	_ ContextEngine = (*Compressor)(nil)
	_ Preflighter   = (*Compressor)(nil)
	_ SessionHooks  = (*Compressor)(nil)
	_ ModelSwitcher = (*Compressor)(nil)
)

// summarize calls the summarizer under the configured timeout.
func (c *Compressor) summarize(ctx context.Context, s Summarizer, req SummaryRequest) (string, error) {
	if c.cfg.summaryTimeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.cfg.summaryTimeout)
		defer cancel()
	}
	return s.Summarize(ctx, req)
}
