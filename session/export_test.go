package session

import (
	"testing"
	"time"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/session/store"
)

// What the tests outside the package use of its own tests: the durable
// stores import this package, so only a test outside it can replay a
// conversation on them.

// JoinedTranscripts is joinedTranscripts.
var JoinedTranscripts = joinedTranscripts

// ReplayFigures is what a replay on simulated time measured (see
// runReplay): the session's Status at the end, the requests handed out,
// their peak, those over the usable window, and the summarizer's calls.
type ReplayFigures struct {
	Status
	Requests, Peak, Over, Summaries int
}

// Replay plays msgs on simulated time against a session on store with
// background compaction on or off: one request before each assistant
// message, step of model time per request, a summarizer taking summarizer
// of it, over a Compressor with engine's options (see runReplay).
func Replay(tb testing.TB, msgs []compact.Message, st store.Store, background bool, step, summarizer time.Duration,
	engine ...compact.Option) ReplayFigures {
	tb.Helper()
	f := runReplay(tb, msgs, replaySetup{background: background, summarizer: summarizer, step: step, engine: engine, store: st})
	return ReplayFigures{Status: f.Status, Requests: f.requests, Peak: f.peak, Over: f.over, Summaries: f.summaries}
}

// Report reports f as a benchmark's metrics: the requests and their peak,
// those over the usable window, compactions by where they ran, the
// summarizer calls (the other compactions pruned alone), the request
// paths that blocked, their waits' total and longest (simulated seconds),
// the requests pruned at the hard limit, and the soft mark at the end.
func (f ReplayFigures) Report(b *testing.B) {
	b.ReportMetric(float64(f.Requests), "requests")
	b.ReportMetric(float64(f.Peak), "peak-tokens")
	b.ReportMetric(float64(f.Over), "over-window")
	b.ReportMetric(float64(f.ForegroundCompactions), "foreground")
	b.ReportMetric(float64(f.BackgroundCompactions), "background")
	b.ReportMetric(float64(f.Summaries), "summaries")
	b.ReportMetric(float64(f.Waits.Count), "waits")
	b.ReportMetric(f.Waits.Total.Seconds(), "wait-total-s")
	b.ReportMetric(f.Waits.Longest.Seconds(), "wait-longest-s")
	b.ReportMetric(float64(f.AtLimit.Pruned), "pruned")
	b.ReportMetric(float64(f.SoftMark), "soft-mark")
}
