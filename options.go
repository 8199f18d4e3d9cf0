package compact

import (
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/contextkit/compact/handoff"
	"github.com/contextkit/compact/models"
	"github.com/contextkit/compact/prune"
	"github.com/contextkit/compact/tokens"
)

// Option configures a Compressor (see [New]). Each constructor has an
// option type of its own, so an option meant for another part (a prune or
// tokens option, an option of [NewExtractiveSummarizer]) does not compile
// where it means nothing; the parts' own options reach a Compressor through
// [WithPruneOptions] and [WithCounterOptions]; the extractive summarizer
// takes its few settings as an [ExtractiveOptions] struct.
//
// An option given an invalid value (a negative size, a fraction out of
// range) changes nothing: the default stays in force, and [Status].Adjusted
// names the option and the value kept. A nil Option is ignored.
type Option interface {
	applyCompressor(c *config)
}

// option is an Option made of a function.
type option func(*config)

func (f option) applyCompressor(c *config) { f(c) }

// config is every setting an Option can make. defaults sets each one in a
// single place.
type config struct {
	// The Compressor.
	model          string
	window         int
	windowSet      bool // WithContextWindow was given a valid window
	reserve        int  // <0: min(defaultReserveTokens, window/4)
	fraction       float64
	fractionSet    bool // WithThreshold was given a valid fraction
	floor, cap     int
	boundsSet      bool // WithThresholdBounds was given valid bounds
	headMessages   int
	tailFraction   float64
	tailMin        int
	carryTokens    int
	carrySet       bool // WithCarriedUserTokens was given
	summaryTokens  int
	note           string
	summarizer     Summarizer
	fallback       Summarizer
	policy         FailurePolicy
	logger         *slog.Logger
	now            func() time.Time
	backoff        []time.Duration
	strikeLimit    int
	repair         bool
	summaryTimeout time.Duration
	handoff        handoff.Policy
	pruning        bool // prune before summarising (WithPruning)
	summaryPrompt  string
	trimOversized  bool
	assistantFirst bool           // WithUserFirst(false)
	pricing        models.Pricing // WithPricing's, when pricingSet
	pricingSet     bool
	economy        bool

	// Counting.
	counter     tokens.Counter  // nil: the exact counter of the model's encoding
	counterOpts []tokens.Option // for the counter a Compressor builds

	// Pruning inside a Compressor.
	pruneOpts []prune.Option

	// adjusted lists the invalid values options were given, and what stayed
	// in force instead.
	adjusted []string
}

// Defaults of the Compressor. Each names the behaviour it sets and where the
// figure comes from.
const (
	// DefaultContextWindow is the window assumed when none is given: 128k
	// tokens, the window of gpt-4o and gpt-4.1-mini class models.
	DefaultContextWindow = 128_000

	// defaultReserveTokens is the output reserved out of the window before
	// the threshold is computed. It is capped at a quarter of the window so
	// that small windows keep room for input.
	defaultReserveTokens = 8_192

	// DefaultThreshold is the fraction of the usable window (window minus
	// reserve) at which compaction triggers, the figure most agent runtimes
	// use.
	DefaultThreshold = 0.75

	// defaultThresholdCap bounds the default threshold on very large
	// windows: past about 256k tokens requests get slow and costly and
	// models attend less well, so a million-token window still compacts
	// there. A fraction WithThreshold sets is not bound by it.
	defaultThresholdCap = 256_000

	// defaultHeadMessages is how many non-system messages at the start are
	// kept verbatim on a first compaction (the task statement and the first
	// exchange). Once a summary exists the head decays to the system prompt.
	defaultHeadMessages = 3

	// defaultTailFraction is the protected tail's token budget as a fraction
	// of the threshold.
	defaultTailFraction = 0.20

	// defaultTailMinMessages is the fewest messages the tail keeps, however
	// large they are.
	defaultTailMinMessages = 4

	// defaultCarriedUserTokens is the budget for recent real user messages
	// carried verbatim into the compacted history (Codex keeps 20k). It is
	// capped at a quarter of the threshold.
	defaultCarriedUserTokens = 20_000

	// defaultSummaryTokens bounds the summary's target length; the target is
	// a fifth of what is being summarised, within [minSummaryTokens, this],
	// and never more than a tenth of the threshold. A range dense in facts
	// may get more, up to a third of the threshold (see factsTarget).
	defaultSummaryTokens = 8_000

	// defaultStrikeLimit is how many compactions in a row may leave usage
	// over the threshold before automatic compaction pauses.
	defaultStrikeLimit = 2
)

// minSummaryTokens is the smallest summary target, enough for a task line,
// a few files and the last state.
const minSummaryTokens = 128

// defaultBackoff returns the waits after the first, second and later
// summarizer failures before automatic compaction calls the summarizer
// again. It is a function so that no Compressor shares, or can change,
// another's.
func defaultBackoff() []time.Duration {
	return []time.Duration{60 * time.Second, 300 * time.Second, 900 * time.Second}
}

// defaults returns the documented defaults of every setting.
func defaults() config {
	return config{
		window:        DefaultContextWindow,
		reserve:       -1,
		fraction:      DefaultThreshold,
		cap:           defaultThresholdCap,
		headMessages:  defaultHeadMessages,
		tailFraction:  defaultTailFraction,
		tailMin:       defaultTailMinMessages,
		carryTokens:   defaultCarriedUserTokens,
		summaryTokens: defaultSummaryTokens,
		note:          CompactionNote,
		policy:        FallbackExtractive,
		now:           time.Now,
		backoff:       defaultBackoff(),
		strikeLimit:   defaultStrikeLimit,
		pruning:       true,
	}
}

// newConfig applies opts over the defaults.
func newConfig(opts []Option) config {
	cfg := defaults()
	for _, opt := range opts {
		if opt != nil {
			opt.applyCompressor(&cfg)
		}
	}
	if cfg.logger == nil {
		cfg.logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return cfg
}

// reject records that option was given an invalid value and kept kept.
func (c *config) reject(option string, value, kept any) {
	c.adjusted = append(c.adjusted, fmt.Sprintf("%s(%v): invalid, %v kept", option, value, kept))
}

// WithModel names the model the conversation runs on. The model table
// (package models) gives its context window, unless WithContextWindow sets
// one, and how its tokens are counted: with its own encoding for OpenAI
// models, otherwise with o200k_base times a calibration factor that the
// provider's usage reports (UpdateUsage) keep tuning. A name the table does
// not know keeps the default window, and [Status] says so. The zero value ""
// counts with o200k_base.
func WithModel(name string) Option {
	return option(func(c *config) { c.model = name })
}

// WithContextWindow sets the model's context window in tokens. The default
// is 128,000 (gpt-4o and gpt-4.1-mini class models). It must be positive.
func WithContextWindow(tokens int) Option {
	return option(func(c *config) {
		if tokens <= 0 {
			c.reject("WithContextWindow", tokens, c.window)
			return
		}
		c.window, c.windowSet = tokens, true
	})
}

// WithReserveTokens sets how many tokens of the window are kept for the
// model's reply. The default is 8,192, at most a quarter of the window. It
// must not be negative; a reserve that takes the whole window leaves one
// token usable, and Status().Adjusted says so.
func WithReserveTokens(tokens int) Option {
	return option(func(c *config) {
		if tokens < 0 {
			c.reject("WithReserveTokens", tokens, "the default")
			return
		}
		c.reserve = tokens
	})
}

// WithThreshold sets the fraction of the usable window (window minus
// reserve) at which compaction triggers, in (0, 1]. The default is 0.75, the
// figure most agent runtimes use, at most 256,000 tokens. A fraction set
// here is honoured as it is: only bounds WithThresholdBounds sets move it,
// and Status().Adjusted then says by how much.
func WithThreshold(fraction float64) Option {
	return option(func(c *config) {
		if !(fraction > 0 && fraction <= 1) {
			c.reject("WithThreshold", fraction, c.fraction)
			return
		}
		c.fraction, c.fractionSet = fraction, true
	})
}

// WithThresholdBounds sets the threshold's floor and cap in tokens, which
// bound any fraction, the default's or WithThreshold's. A floor is never
// taken past the default fraction of a window too small for it. By
// default there is no floor, and a cap of 256,000 tokens (past which
// requests get slow and costly) bounds the default fraction only. Zero
// turns either bound off; a negative bound is invalid. When the bounds
// move the threshold from the fraction, Status().Adjusted says so.
func WithThresholdBounds(floor, cap int) Option {
	return option(func(c *config) {
		if floor < 0 || cap < 0 {
			c.reject("WithThresholdBounds", fmt.Sprintf("%d, %d", floor, cap), fmt.Sprintf("%d, %d", c.floor, c.cap))
			return
		}
		c.floor, c.cap, c.boundsSet = floor, cap, true
	})
}

// WithHeadMessages sets how many non-system messages at the start stay
// verbatim on a first compaction. The default is 3 (the task and the first
// exchange); once a summary exists the head decays to the system prompt.
// The latest real user message is never among them: the head ends before
// it, and it follows the summary. Zero keeps no head.
func WithHeadMessages(n int) Option {
	return option(func(c *config) {
		if n < 0 {
			c.reject("WithHeadMessages", n, c.headMessages)
			return
		}
		c.headMessages = n
	})
}

// WithUserFirst sets whether the first non-system message of a compacted
// history is a user turn, as Bedrock's Converse API and the chat templates
// of several open models (Mistral, Gemma) require. The default is true:
// where the summary would open the history right before a user turn, it is
// merged in front of that turn's content, whose own content follows it
// unchanged ([IsSummary] recognises the message, [IsRealUser] still counts
// it, and the next compaction takes the two apart). False keeps the shape
// of earlier versions: the summary there is an assistant turn of its own.
func WithUserFirst(on bool) Option {
	return option(func(c *config) { c.assistantFirst = !on })
}

// WithTail sets the protected tail: a token budget as a fraction of the
// threshold, in (0, 1), and the fewest messages it keeps, at least 1. The
// defaults are 0.20 and 4.
func WithTail(fraction float64, minMessages int) Option {
	return option(func(c *config) {
		if !(fraction > 0 && fraction < 1) || minMessages < 1 {
			c.reject("WithTail", fmt.Sprintf("%v, %d", fraction, minMessages), fmt.Sprintf("%v, %d", c.tailFraction, c.tailMin))
			return
		}
		c.tailFraction, c.tailMin = fraction, minMessages
	})
}

// WithCarriedUserTokens sets the budget for recent real user messages
// carried verbatim into the compacted history. The default is 20,000 tokens
// (Codex keeps 20k), at most a quarter of the threshold. Zero turns
// carrying off. With prices known and the extractive summarizer, whose
// summary keeps the user's asks, the default is none (see WithPricing);
// a budget set here is kept.
func WithCarriedUserTokens(tokens int) Option {
	return option(func(c *config) {
		if tokens < 0 {
			c.reject("WithCarriedUserTokens", tokens, c.carryTokens)
			return
		}
		c.carryTokens, c.carrySet = tokens, true
	})
}

// WithSummaryTokens bounds the summary's target length in tokens. The
// target is a fifth of what is summarised, at most this bound (default
// 8,000) and a tenth of the threshold. The bound must be at least 128. A
// range whose facts (errors, files, identifiers, the last command) need
// more room still gets it, up to a third of the threshold and the room
// the compacted request leaves the summary.
func WithSummaryTokens(tokens int) Option {
	return option(func(c *config) {
		if tokens < minSummaryTokens {
			c.reject("WithSummaryTokens", tokens, c.summaryTokens)
			return
		}
		c.summaryTokens = tokens
	})
}

// WithCompactionNote sets the note appended once to the system prompt of a
// compacted history. The default is [CompactionNote]; "" turns it off.
// With the prices known (see WithPricing) the note opens the summary
// message instead, so the system prompt stays byte-identical and is still
// read from the provider's cache.
func WithCompactionNote(note string) Option {
	return option(func(c *config) { c.note = note })
}

// WithSummarizer sets the summarizer. The default (and nil) is the embedded
// extractive summarizer, which makes no network calls.
func WithSummarizer(s Summarizer) Option {
	return option(func(c *config) { c.summarizer = s })
}

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

// WithFailurePolicy sets what happens when the summarizer fails. The default
// is [FallbackExtractive].
func WithFailurePolicy(p FailurePolicy) Option {
	return option(func(c *config) {
		if p != FallbackExtractive && p != AbortOnFailure {
			c.reject("WithFailurePolicy", int(p), c.policy)
			return
		}
		c.policy = p
	})
}

// WithFallbackSummarizer replaces the deterministic summarizer used when the
// main one fails under [FallbackExtractive]. The default (and nil) is the
// extractive summarizer.
func WithFallbackSummarizer(s Summarizer) Option {
	return option(func(c *config) { c.fallback = s })
}

// WithTokenCounter sets how a Compressor counts tokens. The default (and
// nil) is the exact counter for the model's encoding (see WithModel and
// WithCounterOptions), which it also passes to its pruning. (The extractive
// summarizer takes its counter in [ExtractiveOptions].)
func WithTokenCounter(tc tokens.Counter) Option {
	return option(func(c *config) { c.counter = tc })
}

// WithLogger sets where a Compressor logs. The default (and nil) discards.
func WithLogger(l *slog.Logger) Option {
	return option(func(c *config) { c.logger = l })
}

// WithClock replaces time.Now, for tests of backoff. nil is invalid.
func WithClock(now func() time.Time) Option {
	return option(func(c *config) {
		if now == nil {
			c.reject("WithClock", "nil", "time.Now")
			return
		}
		c.now = now
	})
}

// WithBackoff sets the waits after consecutive summarizer failures before
// automatic compaction calls the summarizer again; the last repeats. The
// default is 60 s, 300 s, 900 s. No waits turns backoff off; a negative wait
// is invalid.
func WithBackoff(waits ...time.Duration) Option {
	return option(func(c *config) {
		for _, w := range waits {
			if w < 0 {
				c.reject("WithBackoff", waits, c.backoff)
				return
			}
		}
		c.backoff = append([]time.Duration(nil), waits...)
	})
}

// WithStrikeLimit sets how many compactions in a row may leave usage over
// the threshold before automatic compaction pauses. The default is 2; zero
// never pauses. A pause ends when usage drops under the threshold, when
// the history has grown by the tail's budget since it began, on a model
// switch or a forced compaction; a request over the usable window is
// compacted whatever the pause.
func WithStrikeLimit(n int) Option {
	return option(func(c *config) {
		if n < 0 {
			c.reject("WithStrikeLimit", n, c.strikeLimit)
			return
		}
		c.strikeLimit = n
	})
}

// WithRepair sets whether Compress repairs broken tool pairing in its input
// (see [RepairToolPairs]) instead of rejecting it. The default is false;
// Result.Repairs lists what was changed.
func WithRepair(on bool) Option {
	return option(func(c *config) { c.repair = on })
}

// WithSummaryTimeout bounds each summarizer call. Zero (the default) leaves
// the caller's context as the only bound; a negative timeout is invalid.
func WithSummaryTimeout(d time.Duration) Option {
	return option(func(c *config) {
		if d < 0 {
			c.reject("WithSummaryTimeout", d, c.summaryTimeout)
			return
		}
		c.summaryTimeout = d
	})
}

// WithSummaryPrompt sets the instructions a model-backed summarizer sends
// in place of its built-in ones (SummaryRequest.Prompt). The default ""
// keeps [DefaultSummaryInstructions]; summarizers that do not prompt a model
// ignore it.
func WithSummaryPrompt(prompt string) Option {
	return option(func(c *config) { c.summaryPrompt = prompt })
}

// WithTrimOversized sets whether a compaction that still does not fit the
// usable window because the latest user message alone is too large
// shortens that message in its middle until the request fits, as Codex
// does. The default is false: the contract keeps the latest user message
// verbatim, and Result then reports the overflow instead (Fits, Overflow,
// TooLarge). When on, Result.Shortened names the message shortened.
func WithTrimOversized(on bool) Option {
	return option(func(c *config) { c.trimOversized = on })
}

// WithPruning sets whether a Compressor prunes before it summarises (see
// package prune). The default is true.
//
// A compaction first prunes the turns it would summarise: everything
// between the head and the protected tail, never the system prompt, the
// head, the tail or the latest real user message. When that brings the
// history under the threshold with room to spare (below the threshold less
// the tail budget, so that the next few turns do not trigger another
// compaction at once), and the compaction is not forced, the pruned history
// is the result: no summarizer is called, Result.SummaryIndex is -1 and
// Result.Pruned lists every change. Otherwise the turns are summarised as
// if pruning had not run: the summarizer reads the original turns, whose
// details a stand-in would have hidden from it.
//
// A Compressor runs the pressure pass with a budget of half its threshold
// (the most the tail may take to reach the latest user message) unless
// [prune.WithPressure] says otherwise (see WithPruneOptions), and sets the
// range and the token counter itself.
func WithPruning(on bool) Option {
	return option(func(c *config) { c.pruning = on })
}

// WithPruneOptions configures the pruning a Compressor runs before it
// summarises (see WithPruning): how many recent tool uses stay whole, rules
// per tool, when arguments are shortened, the fewest tokens worth a
// change, the pressure budget. Options given an invalid value keep their
// default, and Status().Adjusted names them. The range and the token
// counter are the Compressor's own: prune.WithRange and
// prune.WithTokenCounter given here are overridden.
func WithPruneOptions(opts ...prune.Option) Option {
	return option(func(c *config) { c.pruneOpts = append(c.pruneOpts, opts...) })
}

// WithCounterOptions configures the exact counter a Compressor builds for
// its model when WithTokenCounter sets none (see [tokens.ForEncoding]): its
// image cost and the size of its memo. An invalid value keeps the default,
// and Status().Adjusted says so. A counter the host sets is used as it is.
func WithCounterOptions(opts ...tokens.Option) Option {
	return option(func(c *config) { c.counterOpts = append(c.counterOpts, opts...) })
}
