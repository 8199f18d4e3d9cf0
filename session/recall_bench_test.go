package session_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/session"
	"github.com/contextkit/compact/session/internal/storebench"
	"github.com/contextkit/compact/session/store"
)

// benchArchiveTokens is the size of the archive the search benchmarks read:
// a long agent run, several times any window.
const benchArchiveTokens = 1_000_000

// BenchmarkRecallSearch runs context_search over a 1,000,000-token archive
// in each store. Goals (issue 13): 50 ms in memory and on SQLite, 150 ms on
// Postgres on loopback.
func BenchmarkRecallSearch(b *testing.B) {
	ctx := context.Background()
	msgs := storebench.Archive(b, benchArchiveTokens)
	for _, name := range recallStores {
		b.Run(name, func(b *testing.B) {
			st := openStore(b, name)
			s, err := session.Open(context.Background(), "bench", compact.New(), session.WithStore(st), session.WithRecall(true))
			if err != nil {
				b.Fatal(err)
			}
			for i := 0; i < len(msgs); i += 1000 {
				if err := s.Append(ctx, msgs[i:min(i+1000, len(msgs))]...); err != nil {
					b.Fatal(err)
				}
			}
			// A store may bring its index up to date on the first search
			// after many appends (SQLite's does); that is paid once, here,
			// and reported, not measured with the searches.
			if sr, ok := st.(store.Searcher); ok {
				start := time.Now()
				if _, err := sr.Search(ctx, "bench", "warm up", 0, 1); err != nil {
					b.Fatal(err)
				}
				b.Logf("%s: the first search took %s", name, time.Since(start).Round(time.Millisecond))
			}
			search := s.Tools()[0].Handle
			for _, q := range storebench.Queries {
				b.Run(q.Name, func(b *testing.B) {
					out, err := search(ctx, q.Args)
					if err != nil || !strings.Contains(string(out), `"matches":[{`) {
						b.Fatalf("%s: %v %.300s", q.Name, err, out)
					}
					b.ResetTimer()
					for i := 0; i < b.N; i++ {
						if _, err := search(ctx, q.Args); err != nil {
							b.Fatal(err)
						}
					}
				})
			}
		})
	}
}
