package session_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/session"
)

// The replay of issue 31: the 30 shared transcripts joined, a request
// every 40 ms, a summarizer 20 or 200 times slower than that, a 128,000
// token window, a SQLite file. Time is simulated, so the replay takes
// about a second whatever the summarizer's speed, and gives the same
// figures on every machine.
const (
	limitStep   = 40 * time.Millisecond
	limitWindow = 128_000
)

// limitReplay replays the joined transcripts on a SQLite file, with
// background compaction on or off and a summarizer factor times slower
// than the requests come.
func limitReplay(tb testing.TB, msgs []compact.Message, background bool, factor int) session.ReplayFigures {
	tb.Helper()
	return session.Replay(tb, msgs, openStore(tb, "sqlite"), background, limitStep, time.Duration(factor)*limitStep,
		compact.WithContextWindow(limitWindow))
}

// Issue 31's goal on its replay: one assistant message of 88,542 tokens (an
// aider session pasting a data table) takes the history from 24k to 113k
// of the 119,808 usable tokens. In the background, with a summarizer 20
// times slower than the requests, no request path waits; 200 times
// slower, at most one waits per ten compactions; and no request is ever
// over the window. (A compaction that starts while that message is the
// last cannot fold it; one that waits for the next message folds it, and
// the requests that reach the hard limit before it commits go out with
// the message trimmed for that request, the history and the log keeping it
// whole.)
func TestBackgroundReplayOnSQLiteAtTheHardLimit(t *testing.T) {
	msgs := session.JoinedTranscripts(t)
	t.Run("summarizer 20x: no wait", func(t *testing.T) {
		f := limitReplay(t, msgs, true, 20)
		require.Positive(t, f.BackgroundCompactions)
		assert.Zero(t, f.Waits.Count, "no request path waits: %+v, at the limit %+v", f.Waits, f.AtLimit)
		assert.Zero(t, f.Over, "no request is over the window")
	})
	t.Run("summarizer 200x: at most a wait per ten compactions", func(t *testing.T) {
		f := limitReplay(t, msgs, true, 200)
		compactions := f.BackgroundCompactions + f.ForegroundCompactions
		require.Positive(t, compactions)
		assert.LessOrEqual(t, 10*f.Waits.Count, compactions, "waits %+v, at the limit %+v", f.Waits, f.AtLimit)
		assert.Zero(t, f.Over, "no request is over the window")
	})
}

// BenchmarkBackgroundReplayOnSQLite is issue 31's replay (see
// TestBackgroundReplayOnSQLiteAtTheHardLimit), with compaction on the
// request path and in the background; it reports what
// ReplayFigures.Report names. Run it with -benchtime 1x: the figures are
// the same every time.
func BenchmarkBackgroundReplayOnSQLite(b *testing.B) {
	msgs := session.JoinedTranscripts(b)
	for _, factor := range []int{20, 200} {
		for _, background := range []bool{false, true} {
			b.Run(fmt.Sprintf("summarizer=%dx/background=%t", factor, background), func(b *testing.B) {
				var f session.ReplayFigures
				for range b.N {
					f = limitReplay(b, msgs, background, factor)
				}
				f.Report(b)
			})
		}
	}
}
