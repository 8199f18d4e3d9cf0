package session

import (
	"fmt"
	"testing"
	"time"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/internal/msgtest"
	"github.com/contextkit/compact/internal/sharedtest"
)

// joinedTranscripts is the 30 shared transcripts joined as one agent would
// have sent them, as compact replay -join joins them: in file order, the
// first system prompt kept and the later ones dropped, the seams joined by
// compact.Join, and calls a transcript left unanswered at its end removed.
func joinedTranscripts(tb testing.TB) []compact.Message {
	tb.Helper()
	var parts [][]compact.Message
	for i, f := range sharedtest.Files(tb) {
		var part []compact.Message
		for _, m := range msgtest.Load(tb, f) {
			if i == 0 || m.Role != compact.RoleSystem {
				part = append(part, m)
			}
		}
		parts = append(parts, part)
	}
	joined, _ := compact.RepairToolPairs(compact.Join(parts...))
	if err := compact.Validate(joined); err != nil {
		tb.Fatal(err)
	}
	return joined
}

// BenchmarkBackgroundReplay is issue 25's replay: the shared transcripts
// joined, one request before each assistant message and 2 s of simulated
// model time between requests, a default Compressor on a 128,000-token
// window (o200k_base counts), and a summarizer that takes 20 s, then 200
// s, of simulated time and returns about 1,500 tokens; each with
// compaction on the request path and in the background. It reports, per
// replay: the requests and their peak, those over the usable window,
// compactions by where they ran, the summarizer calls (the other
// compactions pruned alone), the request paths that waited, the
// waits' total and longest (simulated seconds), the requests pruned at
// the hard limit, and the soft mark at the end. Run it with -benchtime 1x:
// the figures are the same every time.
func BenchmarkBackgroundReplay(b *testing.B) {
	msgs := joinedTranscripts(b)
	for _, took := range []time.Duration{20 * time.Second, 200 * time.Second} {
		for _, background := range []bool{false, true} {
			b.Run(fmt.Sprintf("summarizer=%v/background=%t", took, background), func(b *testing.B) {
				var f replayFigures
				for range b.N {
					f = runReplay(b, msgs, replaySetup{background: background, summarizer: took, step: 2 * time.Second,
						engine: []compact.Option{compact.WithContextWindow(128_000)}})
				}
				b.ReportMetric(float64(f.requests), "requests")
				b.ReportMetric(float64(f.peak), "peak-tokens")
				b.ReportMetric(float64(f.over), "over-window")
				b.ReportMetric(float64(f.ForegroundCompactions), "foreground")
				b.ReportMetric(float64(f.BackgroundCompactions), "background")
				b.ReportMetric(float64(f.summaries), "summaries")
				b.ReportMetric(float64(f.Waits.Count), "waits")
				b.ReportMetric(f.Waits.Total.Seconds(), "wait-total-s")
				b.ReportMetric(f.Waits.Longest.Seconds(), "wait-longest-s")
				b.ReportMetric(float64(f.AtLimit.Pruned), "pruned")
				b.ReportMetric(float64(f.SoftMark), "soft-mark")
			})
		}
	}
}
