package compact

// Options of the cheap tier. Each configures [Prune] and the pruning a
// Compressor runs before it summarises.

// WithPruning sets whether a Compressor prunes before it summarises. The
// default is true. Prune itself ignores it.
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
// [WithPressure] says otherwise, and sets the range itself.
func WithPruning(on bool) Option {
	return func(c *config) { c.pruning = on }
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
			c.reject("WithKeepToolUses", n, c.prune.keep)
			return
		}
		c.prune.keep = n
	}
}

// WithToolRules sets per-tool pruning rules, replacing earlier ones of the
// same name. By default every tool is pruned alike.
func WithToolRules(rules ...ToolRule) Option {
	return func(c *config) {
		m := make(map[string]ToolRule, len(c.prune.rules)+len(rules))
		for k, v := range c.prune.rules {
			m[k] = v
		}
		for _, r := range rules {
			m[r.Name] = r
		}
		c.prune.rules = m
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
			c.reject("WithArgumentChars", n, c.prune.argChars)
			return
		}
		c.prune.argChars = n
	}
}

// WithClearAtLeast sets the fewest tokens a pruning must reclaim to be
// committed; below it Prune returns the input unchanged and says so. Any
// change rewrites the provider's prompt cache from the first changed message
// on, so a pruning that saves little costs more than it saves. The default
// is 2,000 tokens, about three large tool outputs. Zero commits any saving;
// a negative figure is invalid.
func WithClearAtLeast(tokens int) Option {
	return func(c *config) {
		if tokens < 0 {
			c.reject("WithClearAtLeast", tokens, c.prune.clearAtLeast)
			return
		}
		c.prune.clearAtLeast = tokens
	}
}

// WithPressure sets the budget of the pressure pass in tokens: when the
// protected tail alone takes more, its largest tool results are demoted,
// largest first, until it fits or none is left. A demoted result keeps a
// stand-in line and its head and tail (about 500 tokens). The last two
// messages, a pending tool-call group at the end, the latest real user
// message and results of NeverMask tools are never demoted. Zero turns the
// pass off; that is Prune's default, while a Compressor uses half its
// threshold. A negative budget is invalid.
func WithPressure(budget int) Option {
	return func(c *config) {
		if budget < 0 {
			c.reject("WithPressure", budget, c.prune.pressure)
			return
		}
		c.prune.pressure, c.prune.pressureSet = budget, true
	}
}

// withPruneKinds limits pruning to the given kinds of change; by default
// every kind may be made ([kindDemoted] only with a pressure budget). For
// example withPruneKinds(kindDeduplicated, kindImages) loses no text.
func withPruneKinds(kinds ...PruneKind) Option {
	return func(c *config) {
		c.prune.kinds = make(map[PruneKind]bool, len(kinds))
		for _, k := range kinds {
			c.prune.kinds[k] = true
		}
	}
}

// pruneRange limits pruning to the messages with index in [from, to); the
// pressure pass works on [to, len). Without it, the last few messages (the
// Compressor's minimum tail) are protected, moved back onto the assistant
// turn whose results they hold so a call group is never split. Out-of-range
// values are clamped. A Compressor sets the range itself.
func pruneRange(from, to int) Option {
	return func(c *config) { c.prune.from, c.prune.to, c.prune.rangeSet = from, to, true }
}
