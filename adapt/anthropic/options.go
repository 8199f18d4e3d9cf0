package anthropic

import (
	"fmt"
	"io"
	"log/slog"
	"slices"
	"time"
)

// Option sets an option of a NativeEngine.
type Option func(*config)

// config is a NativeEngine's settings; newConfig sets the defaults.
type config struct {
	compaction   bool
	trigger      int // 0: the fallback's threshold
	pause        bool
	instructions string

	clearing     bool
	keep         int
	clearAtLeast int
	exclude      []string
	clearInputs  bool

	thinkingTurns int // 0: thinking is not cleared

	logger   *slog.Logger
	backoff  []time.Duration
	now      func() time.Time
	adjusted []string // invalid values given, and what was kept
}

// minTrigger is the lowest compaction trigger the API takes: "value must
// be at least 50,000 tokens" (Anthropic's compaction guide, parameters of
// compact_20260112).
const minTrigger = 50_000

// defaultKeepToolUses is how many recent tool uses clearing keeps whole:
// compact's own default (prune.WithKeepToolUses), which is also the API's
// default for clear_tool_uses_20250919.
const defaultKeepToolUses = 3

// defaultClearAtLeast is the fewest tokens a clearing must reclaim to be
// made: compact's own default (prune.WithClearAtLeast), about three
// large tool outputs. The API sets no minimum of its own, and a clearing
// rewrites the prompt cache from the first result it clears.
const defaultClearAtLeast = 2000

// The waits after the first, second and later native compaction failures
// before a NativeEngine lets the provider compact again: DESIGN.md's
// summarizer backoff, which the Compressor and openaigo's NativeEngine use
// too.
const (
	firstBackoff  = 60 * time.Second
	secondBackoff = 300 * time.Second
	laterBackoff  = 900 * time.Second
)

func newConfig(opts []Option) config {
	c := config{
		compaction:   true,
		clearing:     true,
		keep:         defaultKeepToolUses,
		clearAtLeast: defaultClearAtLeast,
		logger:       slog.New(slog.NewTextHandler(io.Discard, nil)),
		backoff:      []time.Duration{firstBackoff, secondBackoff, laterBackoff},
		now:          time.Now,
	}
	for _, o := range opts {
		if o != nil {
			o(&c)
		}
	}
	return c
}

// reject records that opt was given an invalid value and that kept stays.
func (c *config) reject(opt string, value, kept any) {
	c.adjusted = append(c.adjusted, fmt.Sprintf("%s(%v): invalid, %v kept", opt, value, kept))
}

// WithCompaction sets whether requests carry the compact_20260112 edit:
// the provider summarises the conversation once its input reaches the
// trigger (see WithTrigger). The default is true; with false a
// NativeEngine only clears (see WithToolClearing), and compacts with its
// fallback at the fallback's threshold.
func WithCompaction(on bool) Option {
	return func(c *config) { c.compaction = on }
}

// WithTrigger sets the input tokens at which the provider compacts and
// clears tool uses (the edits' trigger). The default, and zero, is the
// fallback's threshold (its Status().Threshold, read at each request, so a
// model switch moves it), raised to the API's minimum of 50,000. A trigger
// under 50,000 is invalid.
func WithTrigger(tokens int) Option {
	return func(c *config) {
		if tokens != 0 && tokens < minTrigger {
			c.reject("WithTrigger", tokens, c.trigger)
			return
		}
		c.trigger = tokens
	}
}

// WithInstructions sets the instructions of the provider's summarising
// pass (compact_20260112's instructions), which replace its own prompt
// entirely. The default "" keeps the provider's prompt. A request with
// tools may get a compaction block without a summary when the model calls
// a tool instead of summarising; instructions that say not to call tools
// prevent it.
func WithInstructions(s string) Option {
	return func(c *config) { c.instructions = s }
}

// WithPauseAfterCompaction sets whether the provider stops after its
// summary (pause_after_compaction): the response is then the compaction
// block alone, with stop reason "compaction", and the host appends it and
// sends the request again to get the answer. The default is false: the
// provider answers in the same response.
func WithPauseAfterCompaction(on bool) Option {
	return func(c *config) { c.pause = on }
}

// WithToolClearing sets whether requests carry the clear_tool_uses_20250919
// edit: once the input reaches the trigger, the provider replaces the
// oldest tool results with a placeholder on its side (the history keeps
// them), as compact's pruning masks them. It comes before compaction in
// the request, as compact prunes before it summarises. The default is true.
func WithToolClearing(on bool) Option {
	return func(c *config) { c.clearing = on }
}

// WithKeepToolUses sets how many of the most recent tool uses clearing
// keeps whole (the edit's keep). The default is 3, compact's own default
// (prune.WithKeepToolUses); give both the same value. A negative count is
// invalid.
func WithKeepToolUses(n int) Option {
	return func(c *config) {
		if n < 0 {
			c.reject("WithKeepToolUses", n, c.keep)
			return
		}
		c.keep = n
	}
}

// WithClearAtLeast sets the fewest tokens a clearing must reclaim to be
// made (the edit's clear_at_least): each clearing rewrites the prompt cache
// from the first result it clears. The default is 2,000, compact's own
// (prune.WithClearAtLeast); zero sends none. A negative figure is
// invalid.
func WithClearAtLeast(tokens int) Option {
	return func(c *config) {
		if tokens < 0 {
			c.reject("WithClearAtLeast", tokens, c.clearAtLeast)
			return
		}
		c.clearAtLeast = tokens
	}
}

// WithExcludeTools names tools whose results clearing never touches (the
// edit's exclude_tools), in addition to those given before. The default is
// none.
func WithExcludeTools(names ...string) Option {
	return func(c *config) { c.exclude = append(slices.Clone(c.exclude), names...) }
}

// WithClearToolInputs sets whether clearing also clears the inputs of the
// calls whose results it clears (clear_tool_inputs). The default is false.
func WithClearToolInputs(on bool) Option {
	return func(c *config) { c.clearInputs = on }
}

// WithThinkingClearing makes requests carry the clear_thinking_20251015
// edit, keeping the thinking of the last keepTurns assistant turns; it
// comes first among the edits, as the API requires. Use it only with
// extended thinking on: the API refuses the edit otherwise. The default,
// and zero, sends none; a negative count is invalid.
func WithThinkingClearing(keepTurns int) Option {
	return func(c *config) {
		if keepTurns < 0 {
			c.reject("WithThinkingClearing", keepTurns, c.thinkingTurns)
			return
		}
		c.thinkingTurns = keepTurns
	}
}

// WithLogger sets where a NativeEngine logs native failures. The default
// (and nil) discards.
func WithLogger(l *slog.Logger) Option {
	return func(c *config) {
		if l != nil {
			c.logger = l
		}
	}
}

// WithBackoff sets the waits after consecutive native failures during
// which requests carry no edits and the fallback compacts; the last
// repeats. The default is 60 s, 300 s, 900 s. No waits turns backoff off;
// a negative wait is invalid.
func WithBackoff(waits ...time.Duration) Option {
	return func(c *config) {
		for _, w := range waits {
			if w < 0 {
				c.reject("WithBackoff", waits, c.backoff)
				return
			}
		}
		c.backoff = slices.Clone(waits)
	}
}

// WithClock replaces time.Now, for tests of backoff. nil is invalid.
func WithClock(now func() time.Time) Option {
	return func(c *config) {
		if now == nil {
			c.reject("WithClock", "nil", "time.Now")
			return
		}
		c.now = now
	}
}
