package compact

import (
	"errors"

	"github.com/contextkit/compact/redact"
)

// The sentinel errors below are what callers branch on. Every error the
// package returns either is one of them or wraps one, so errors.Is works
// through any amount of added context. Errors that carry data (an index, a
// time) are typed and unwrap to their sentinel.
var (
	// ErrInvalidHistory reports a message slice that is not a valid request:
	// a tool result with no call, a call never answered, an empty assistant
	// turn, an unknown role. Validate's *ValidationError unwraps to it.
	ErrInvalidHistory = errors.New("compact: invalid history")

	// ErrNothingToCompress reports that every message is protected (system
	// prompt, head, tail), so a compaction would have nothing to fold.
	ErrNothingToCompress = errors.New("compact: nothing to compress")

	// ErrInvalidBoundary reports a boundary a host chose for a partial
	// compaction that names no message, or a range that would separate a
	// tool result from its call.
	ErrInvalidBoundary = errors.New("compact: invalid boundary")

	// ErrNoSavings reports a compaction that would not make the history
	// smaller, so it was not run.
	ErrNoSavings = errors.New("compact: compaction would not save tokens")

	// ErrSummarizer reports that the summarizer failed. The caller's messages
	// are untouched when it is returned.
	ErrSummarizer = errors.New("compact: summarizer failed")

	// ErrSummarizerAuth reports a summarizer failure that retrying cannot fix:
	// the endpoint rejected the credentials. It always aborts a compaction,
	// whatever the fallback policy says.
	ErrSummarizerAuth = errors.New("compact: summarizer rejected the credentials")

	// ErrSummarizerQuota reports a summarizer failure caused by an exhausted
	// quota or billing limit (not a transient rate limit). Like
	// ErrSummarizerAuth it always aborts.
	ErrSummarizerQuota = errors.New("compact: summarizer quota exhausted")

	// ErrBackoff reports that automatic compaction is waiting after recent
	// summarizer failures. A forced compaction bypasses it.
	ErrBackoff = errors.New("compact: backing off after summarizer failures")

	// ErrPaused reports that automatic compaction paused itself because
	// repeated compactions did not bring usage under the threshold. A forced
	// compaction, a model switch or usage dropping lifts the pause.
	ErrPaused = errors.New("compact: automatic compaction paused")
)

// errText is an error's message as it may leave the process, in a log line
// or in a Status or Result field a host shows: an error can quote what the
// conversation held (a summarizer's reply, a tool call id, a path), so it is
// redacted.
func errText(err error) string { return redact.String(err.Error()) }
