package storebench

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/session"
	"github.com/contextkit/compact/session/store"
)

// Load appends msgs to each session of ids the way a fleet writes them:
// batch messages to one session, then the same to the next, round and
// round, so that the sessions' records interleave in the store as they
// would when their agents run side by side.
func Load(tb testing.TB, st store.Store, ids []string, msgs []compact.Message, batch int) {
	tb.Helper()
	ctx := context.Background()
	for off := 0; off < len(msgs); off += batch {
		for _, id := range ids {
			if _, _, err := st.Append(ctx, id, msgs[off:min(off+batch, len(msgs))]...); err != nil {
				tb.Fatal(err)
			}
		}
	}
}

// Recall measures context_search end to end (the store, the exact check,
// the snippets, the answer's token budget) on a store holding sessions
// sessions of an Archive of tokens tokens each: one sub-benchmark per
// query of Queries, each search on the next of up to searched sessions,
// reporting the median and the 99th percentile in milliseconds. Loading
// the store, and the first search (which may bring a store's index up to
// date), are paid before any timing and logged.
func Recall(b *testing.B, st store.Store, sessions, tokens int) {
	ctx := context.Background()
	msgs := Archive(b, tokens)
	ids := make([]string, sessions)
	for i := range ids {
		ids[i] = id(fmt.Sprintf("recall-%d", i))
	}
	start := time.Now()
	Load(b, st, ids, msgs, 50)
	b.Logf("loaded %d sessions of %d messages in %s", sessions, len(msgs), time.Since(start).Round(time.Millisecond))

	const searched = 20
	var handles []func(context.Context, string) (json.RawMessage, error)
	for i := 0; i < min(searched, sessions); i++ {
		// Spread over the store, first and last included.
		sid := ids[i*(sessions-1)/max(min(searched, sessions)-1, 1)]
		s, err := session.Open(ctx, sid, compact.New(), session.WithStore(st), session.WithRecall(true))
		if err != nil {
			b.Fatal(err)
		}
		handles = append(handles, s.Tools()[0].Handle)
	}
	// A store may bring its index up to date on the first search after
	// many appends (SQLite's does), for longer than a context_search may
	// take: that is paid here, once, straight from the store.
	if sr, ok := st.(store.Searcher); ok {
		start = time.Now()
		for _, sid := range ids {
			if _, err := sr.Search(ctx, sid, "warm up", 0, 1); err != nil {
				b.Fatal(err)
			}
		}
		b.Logf("the first search of each session took %s in all", time.Since(start).Round(time.Millisecond))
	}

	for _, q := range Queries {
		b.Run(q.Name, func(b *testing.B) {
			for _, h := range handles {
				out, err := h(ctx, q.Args)
				if err != nil || !strings.Contains(string(out), `"matches":[{`) {
					b.Fatalf("%s: %v %.300s", q.Name, err, out)
				}
			}
			took := make([]time.Duration, 0, b.N)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				t := time.Now()
				if _, err := handles[i%len(handles)](ctx, q.Args); err != nil {
					b.Fatal(err)
				}
				took = append(took, time.Since(t))
			}
			b.StopTimer()
			b.ReportMetric(float64(Quantile(took, 0.5))/1e6, "p50-ms")
			b.ReportMetric(float64(Quantile(took, 0.99))/1e6, "p99-ms")
		})
	}
}

// RecallSizes are the archives Recall measures: one session of 1M tokens,
// one of 10M, and a store of 1,000 sessions of 100k tokens each.
var RecallSizes = []struct {
	Name             string
	Sessions, Tokens int
}{
	{"sessions=1/tokens=1M", 1, 1_000_000},
	{"sessions=1/tokens=10M", 1, 10_000_000},
	{"sessions=1000/tokens=100k", 1000, 100_000},
}
