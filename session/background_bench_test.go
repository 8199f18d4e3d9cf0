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
// compaction on the request path and in the background, on a store.Memory.
// It reports the figures ReplayFigures.Report names. Run it with
// -benchtime 1x: the figures are the same every time.
// BenchmarkBackgroundReplayOnSQLite is issue 31's.
func BenchmarkBackgroundReplay(b *testing.B) {
	msgs := joinedTranscripts(b)
	for _, took := range []time.Duration{20 * time.Second, 200 * time.Second} {
		for _, background := range []bool{false, true} {
			b.Run(fmt.Sprintf("summarizer=%v/background=%t", took, background), func(b *testing.B) {
				var f ReplayFigures
				for range b.N {
					f = Replay(b, msgs, nil, background, 2*time.Second, took, compact.WithContextWindow(128_000))
				}
				f.Report(b)
			})
		}
	}
}
