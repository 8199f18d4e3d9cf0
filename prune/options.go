package prune

import (
	"fmt"

	"github.com/contextkit/compact/tokens"
)

// Option configures a [Pruner] (see [New]) or a pruning ([Apply]). An
// option given an invalid value (a negative count) changes nothing: the
// default stays in force, and [Pruner.Adjusted] and [Result.Adjusted] name
// the option and the value kept. A nil Option is ignored. A Compressor
// takes these options through compact.WithPruneOptions.
type Option func(*config)

// Defaults of the options. Each names the behaviour it sets and where the
// figure comes from.
const (
	// defaultKeepToolUses is how many of the most recent tool uses (a call
	// and its result) are never masked or shortened, the default of
	// Anthropic's context editing ("clear tool uses" keeps 3).
	defaultKeepToolUses = 3

	// defaultClearAtLeast is the fewest tokens a pruning must reclaim to be
	// committed. Any change rewrites the provider's prompt cache from the
	// first changed message on, so a pruning that saves little costs more
	// than it saves. 2,000 tokens is about three large tool outputs: in 30
	// real agent transcripts the median tool result is about 150 tokens and
	// the 90th percentile about 600. (Anthropic leaves its clear_at_least
	// to the caller.)
	defaultClearAtLeast = 2_000

	// defaultArgumentChars is the length, in characters, over which an old
	// tool call's arguments are shortened. A file written or a patch sent
	// through a tool is the model's own output and is on disk now; in 30
	// real agent transcripts 1 call in 100 has arguments this long, and
	// those calls hold a quarter of all argument text.
	defaultArgumentChars = 2_000
)

// config is a pruning's settings; newConfig sets the defaults in one place.
type config struct {
	keep         int
	from, to     int
	rangeSet     bool
	rules        map[string]ToolRule
	argChars     int
	clearAtLeast int
	counter      tokens.Counter
	pressure     int
	fit          int
	kinds        map[Kind]bool // nil: every kind

	// adjusted lists the invalid values options were given, and what
	// stayed in force instead.
	adjusted []string
}

// newConfig applies opts over the defaults.
func newConfig(opts []Option) config {
	cfg := config{
		keep:         defaultKeepToolUses,
		argChars:     defaultArgumentChars,
		clearAtLeast: defaultClearAtLeast,
	}
	for _, opt := range opts {
		if opt != nil {
			opt(&cfg)
		}
	}
	if cfg.counter == nil {
		cfg.counter = tokens.Estimator{}
	}
	return cfg
}

// reject records that option was given an invalid value and kept kept.
func (c *config) reject(option string, value, kept any) {
	c.adjusted = append(c.adjusted, fmt.Sprintf("%s(%v): invalid, %v kept", option, value, kept))
}

// on reports whether the rule of kind k may run.
func (c config) on(k Kind) bool { return c.kinds == nil || c.kinds[k] }

// WithTokenCounter sets how pruning counts tokens: what a change saves,
// and the tokens WithClearAtLeast and WithPressure weigh. The default (and
// nil) is [tokens.Estimator]; a Compressor passes its own counter.
func WithTokenCounter(tc tokens.Counter) Option {
	return func(c *config) { c.counter = tc }
}

// WithKeepToolUses sets how many of the most recent tool uses (calls, in
// the order the assistant made them) are kept whole: their results are not
// masked, deduplicated or stripped of images, and their arguments are not
// shortened. Only the pressure pass may still demote one inside the tail.
// The default is 3, as Anthropic's context editing keeps; a negative count
// is invalid.
func WithKeepToolUses(n int) Option {
	return func(c *config) {
		if n < 0 {
			c.reject("WithKeepToolUses", n, c.keep)
			return
		}
		c.keep = n
	}
}

// WithToolRules sets per-tool pruning rules, replacing earlier ones of the
// same name. By default every tool is pruned alike.
func WithToolRules(rules ...ToolRule) Option {
	return func(c *config) {
		m := make(map[string]ToolRule, len(c.rules)+len(rules))
		for k, v := range c.rules {
			m[k] = v
		}
		for _, r := range rules {
			m[r.Name] = r
		}
		c.rules = m
	}
}

// WithArgumentChars sets the length, in characters, over which an old tool
// call's arguments are shortened. JSON arguments keep every key: each string
// value longer than half the limit is cut in its middle to that length, so
// the arguments still parse. Other arguments are cut to the limit, head and
// tail around a marker. The default is 2,000: in 30 real agent transcripts
// 1 call in 100 has arguments this long, and those hold a quarter of all
// argument text. Zero leaves arguments alone; a negative length is invalid.
func WithArgumentChars(n int) Option {
	return func(c *config) {
		if n < 0 {
			c.reject("WithArgumentChars", n, c.argChars)
			return
		}
		c.argChars = n
	}
}

// WithClearAtLeast sets the fewest tokens a pruning must reclaim to be
// committed; below it Apply returns the input unchanged and says so. Any
// change rewrites the provider's prompt cache from the first changed message
// on, so a pruning that saves little costs more than it saves. The default
// is 2,000 tokens, about three large tool outputs. Zero commits any saving;
// a negative figure is invalid.
func WithClearAtLeast(tokens int) Option {
	return func(c *config) {
		if tokens < 0 {
			c.reject("WithClearAtLeast", tokens, c.clearAtLeast)
			return
		}
		c.clearAtLeast = tokens
	}
}

// WithPressure sets the budget of the pressure pass in tokens: when the
// protected tail alone takes more, its largest tool results are demoted,
// largest first, until it fits or none is left. A demoted result keeps a
// stand-in line and its head and tail (about 500 tokens). The last two
// messages, a pending tool-call group at the end, the latest real user
// message and results of NeverMask tools are never demoted. Zero turns the
// pass off; that is the default, while a Compressor uses half its
// threshold unless this option says otherwise. A negative budget is
// invalid.
func WithPressure(budget int) Option {
	return func(c *config) {
		if budget < 0 {
			c.reject("WithPressure", budget, c.pressure)
			return
		}
		c.pressure = budget
	}
}

// WithFit sets a budget, in tokens, the whole pruned history must fit
// (as tokens.CountMessages counts it): when the other changes leave it
// over, the fit pass trims the largest messages, of any role, largest
// first, until it fits or none is left. A trimmed message keeps a stand-in
// line and its head and tail (about 500 tokens); its tool calls and
// tool_call_id stay. System messages, summaries, the latest real user
// message, the last two messages, a pending tool-call group at the end,
// messages with images, results of NeverMask tools and messages another
// rule changed are never trimmed. WithRange does not limit it. Zero, the
// default, turns the pass off; a negative budget is invalid.
//
// It is for a request that must go out now and cannot wait for a summary:
// a session at its hard limit uses it for one request, keeping the
// messages whole in its history and archive.
func WithFit(budget int) Option {
	return func(c *config) {
		if budget < 0 {
			c.reject("WithFit", budget, c.fit)
			return
		}
		c.fit = budget
	}
}

// WithKinds limits pruning to the given kinds of change; by default
// every kind may be made ([Demoted] only with a pressure budget, [Trimmed]
// only with a budget to fit). For
// example WithKinds(Deduplicated, ImagesReplaced) loses no text. Given more
// than once, it limits pruning to the kinds every one of them names. A
// value that names no kind is invalid.
func WithKinds(kinds ...Kind) Option {
	return func(c *config) {
		for _, k := range kinds {
			if k < Deduplicated || k > Trimmed {
				c.reject("WithKinds", kinds, "every kind")
				return
			}
		}
		m := make(map[Kind]bool, len(kinds))
		for _, k := range kinds {
			if c.kinds == nil || c.kinds[k] {
				m[k] = true
			}
		}
		c.kinds = m
	}
}

// WithRange limits pruning to the messages with index in [from, to); the
// pressure pass works on [to, len). Without it, the last few messages (the
// Compressor's minimum tail) are protected, moved back onto the assistant
// turn whose results they hold so a call group is never split. A negative
// from, or a to before from, is invalid; bounds past the end of the history
// pruned are taken as its end. A Compressor sets the range itself: the
// turns it would summarise.
func WithRange(from, to int) Option {
	return func(c *config) {
		if from < 0 || to < from {
			c.reject("WithRange", fmt.Sprintf("%d, %d", from, to), "the whole history but its last messages")
			return
		}
		c.from, c.to, c.rangeSet = from, to, true
	}
}
