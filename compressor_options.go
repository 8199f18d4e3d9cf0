package compact

import (
	"log/slog"
	"time"
)

// WithContextWindow sets the model's context window in tokens.
func WithContextWindow(tokens int) Option {
	return func(c *config) {
		if tokens > 0 {
			c.window = tokens
		}
	}
}

// WithModel names the model the conversation runs on. It picks the token
// encoding and shows in Status.
func WithModel(name string) Option {
	return func(c *config) { c.model = name }
}

// WithReserveTokens sets how many tokens of the window are kept for the
// model's reply. The default is DefaultReserveTokens, at most a quarter of
// the window.
func WithReserveTokens(tokens int) Option {
	return func(c *config) {
		if tokens >= 0 {
			c.reserve = tokens
		}
	}
}

// WithThreshold sets the fraction of the usable window at which compaction
// triggers, in (0, 1].
func WithThreshold(fraction float64) Option {
	return func(c *config) {
		if fraction > 0 && fraction <= 1 {
			c.fraction = fraction
		}
	}
}

// WithThresholdBounds sets the threshold's floor and cap in tokens. Zero
// turns either bound off.
func WithThresholdBounds(floor, cap int) Option {
	return func(c *config) {
		if floor >= 0 {
			c.floor = floor
		}
		if cap >= 0 {
			c.cap = cap
		}
	}
}

// WithHeadMessages sets how many non-system messages at the start stay
// verbatim on a first compaction. The latest real user message is never
// among them: the head ends before it, and it follows the summary.
func WithHeadMessages(n int) Option {
	return func(c *config) {
		if n >= 0 {
			c.headMessages = n
		}
	}
}

// WithTail sets the protected tail: a token budget as a fraction of the
// threshold, and the fewest messages it keeps.
func WithTail(fraction float64, minMessages int) Option {
	return func(c *config) {
		if fraction > 0 && fraction < 1 {
			c.tailFraction = fraction
		}
		if minMessages >= 1 {
			c.tailMin = minMessages
		}
	}
}

// WithCarriedUserTokens sets the budget for recent real user messages
// carried verbatim into the compacted history. Zero turns carrying off.
func WithCarriedUserTokens(tokens int) Option {
	return func(c *config) {
		if tokens >= 0 {
			c.carryTokens = tokens
		}
	}
}

// WithSummaryTokens bounds the summary's target length in tokens. A range
// whose facts (errors, files, identifiers, the last command) need more
// room still gets it, up to a third of the threshold.
func WithSummaryTokens(tokens int) Option {
	return func(c *config) {
		if tokens >= minSummaryTokens {
			c.summaryTokens = tokens
		}
	}
}

// WithCompactionNote sets the note appended once to the system prompt of a
// compacted history. An empty note turns it off.
func WithCompactionNote(note string) Option {
	return func(c *config) { c.note = note }
}

// WithSummarizer sets the summarizer. The default is the embedded
// extractive summarizer, which makes no network calls.
func WithSummarizer(s Summarizer) Option {
	return func(c *config) { c.summarizer = s }
}

// WithFailurePolicy sets what happens when the summarizer fails. The default
// is FallbackExtractive.
func WithFailurePolicy(p FailurePolicy) Option {
	return func(c *config) { c.policy = p }
}

// WithFallbackSummarizer replaces the deterministic summarizer used when the
// main one fails under FallbackExtractive.
func WithFallbackSummarizer(s Summarizer) Option {
	return func(c *config) { c.fallback = s }
}

// WithTokenCounter sets how tokens are counted. The default is the exact
// tiktoken counter for the model's encoding.
func WithTokenCounter(tc TokenCounter) Option {
	return func(c *config) { c.counter = tc }
}

// WithLogger sets where the Compressor logs. The default discards.
func WithLogger(l *slog.Logger) Option {
	return func(c *config) { c.logger = l }
}

// WithClock replaces time.Now, for tests of backoff.
func WithClock(now func() time.Time) Option {
	return func(c *config) {
		if now != nil {
			c.now = now
		}
	}
}

// WithBackoff sets the waits after consecutive summarizer failures; the last
// repeats. No waits turns backoff off.
func WithBackoff(waits ...time.Duration) Option {
	return func(c *config) { c.backoff = append([]time.Duration(nil), waits...) }
}

// WithStrikeLimit sets how many compactions in a row may leave usage over
// the threshold before automatic compaction pauses. Zero never pauses.
func WithStrikeLimit(n int) Option {
	return func(c *config) {
		if n >= 0 {
			c.strikeLimit = n
		}
	}
}

// WithRepair makes Compress repair broken tool pairing in its input (see
// RepairToolPairs) instead of rejecting it. Result.Repairs lists what was
// changed.
func WithRepair(on bool) Option {
	return func(c *config) { c.repair = on }
}

// WithSummaryTimeout bounds each summarizer call. Zero (the default) leaves
// the caller's context as the only bound.
func WithSummaryTimeout(d time.Duration) Option {
	return func(c *config) {
		if d >= 0 {
			c.summaryTimeout = d
		}
	}
}
