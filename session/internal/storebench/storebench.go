// Package storebench holds the benchmarks every store.Store runs the
// same way, so that their figures compare: the cost of a turn, and the
// store's share of a compaction.
package storebench

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/session"
	"github.com/contextkit/compact/session/store"
	"github.com/contextkit/compact/tokens"
)

var run atomic.Int64

// id makes a session id no other benchmark run uses, for stores shared
// between runs.
func id(what string) string {
	return fmt.Sprintf("bench-%d-%d-%s", time.Now().UnixNano(), run.Add(1), what)
}

// history is n messages of about tokens tokens each (as tokens.Estimator
// counts: four characters a token), user and assistant in turn.
func history(n, tokens int) []compact.Message {
	body := strings.Repeat("word ", tokens*4/5)
	out := make([]compact.Message, n)
	for i := range out {
		role := compact.RoleUser
		if i%2 == 1 {
			role = compact.RoleAssistant
		}
		out[i] = compact.Message{Role: role, Content: fmt.Sprintf("turn %d: %s", i, body)}
	}
	return out
}

// preload appends msgs to session id in batches.
func preload(b *testing.B, st store.Store, id string, msgs []compact.Message) {
	const batch = 500
	for i := 0; i < len(msgs); i += batch {
		if _, _, err := st.Append(context.Background(), id, msgs[i:min(i+batch, len(msgs))]...); err != nil {
			b.Fatal(err)
		}
	}
}

// Turn measures what a host pays per turn on a session of about n messages
// kept in st: Append of the user message and the reply (one store write),
// then ShouldCompress. It reports the median and the 99th percentile
// besides the mean.
func Turn(b *testing.B, st store.Store, n int) {
	ctx := context.Background()
	turn := []compact.Message{
		{Role: compact.RoleUser, Content: "Run the tests again and tell me which ones still fail."},
		{Role: compact.RoleAssistant, Content: "Two tests still fail: TestStoreFlush and TestStoreReopen. Both time out on the lock."},
	}
	// The history is rebuilt every refill turns so that a long benchmark
	// measures a session of about n messages, not of n plus 2·b.N.
	refill := max(n/4, 250)
	base := history(n, 40)
	engine := func() compact.ContextEngine {
		return compact.New(compact.WithContextWindow(10_000_000), compact.WithTokenCounter(tokens.Estimator{}))
	}
	var s *session.Session
	took := make([]time.Duration, 0, b.N)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if i%refill == 0 {
			b.StopTimer()
			sid := id(fmt.Sprint(n))
			preload(b, st, sid, base)
			var err error
			if s, err = session.Open(context.Background(), sid, engine(), session.WithStore(st)); err != nil {
				b.Fatal(err)
			}
			if err := s.Sync(ctx); err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
		}
		start := time.Now()
		if err := s.Append(ctx, turn...); err != nil {
			b.Fatal(err)
		}
		_ = s.ShouldCompress()
		took = append(took, time.Since(start))
	}
	b.StopTimer()
	reportQuantiles(b, took)
}

// reportQuantiles reports the median and the 99th percentile of took in
// microseconds.
func reportQuantiles(b *testing.B, took []time.Duration) {
	if len(took) == 0 {
		return
	}
	b.ReportMetric(float64(Quantile(took, 0.5))/1e3, "p50-µs")
	b.ReportMetric(float64(Quantile(took, 0.99))/1e3, "p99-µs")
}

// Quantile returns the p-quantile of took (0 when it is empty), the
// nearest rank below; it sorts took.
func Quantile(took []time.Duration, p float64) time.Duration {
	if len(took) == 0 {
		return 0
	}
	slices.Sort(took)
	return took[int(p*float64(len(took)-1))]
}

// Compaction measures one compaction of a session whose live history takes
// about tokens tokens, with an engine that answers at once: what is left is
// the store's share (lease, reading the history, committing the result,
// reading what arrived, releasing) plus the Session's bookkeeping.
func Compaction(b *testing.B, st store.Store, size int) {
	ctx := context.Background()
	const per = 200 // tokens per message
	base := history(size/per, per)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		sid := id("compaction")
		preload(b, st, sid, base)
		s, err := session.Open(context.Background(), sid, instant{}, session.WithStore(st), session.WithTokenCounter(tokens.Estimator{}))
		if err != nil {
			b.Fatal(err)
		}
		if err := s.Sync(ctx); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		if _, err := s.Compress(ctx); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(tokens.CountMessages(tokens.Estimator{}, base)), "history-tokens")
}

// instant is an engine that compacts any history at once into a summary
// and the last message.
type instant struct{}

func (instant) Name() string                                     { return "instant" }
func (instant) UpdateUsage(compact.Usage)                        {}
func (instant) ShouldCompress(int) bool                          { return true }
func (instant) HasContentToCompress(msgs []compact.Message) bool { return len(msgs) > 1 }
func (instant) Status() compact.Status                           { return compact.Status{Engine: "instant"} }

func (instant) Compress(_ context.Context, msgs []compact.Message, _ ...compact.CompressOption) (*compact.Result, error) {
	out := []compact.Message{
		{Role: compact.RoleUser, Content: compact.SummaryPrefix + "\nThe user and the agent ran the tests."},
		compact.Clone(msgs[len(msgs)-1:])[0],
	}
	return &compact.Result{Messages: out, MessagesBefore: len(msgs), MessagesAfter: len(out),
		SummarizedFrom: 0, SummarizedTo: len(msgs) - 2, SummaryIndex: 0, Lifted: -1, Summarizer: "instant"}, nil
}

// Search measures a search for a rare line in an archive of about tokens
// tokens in one session, once the store's index (if it keeps one) is up to
// date: a warm-up search runs first, untimed.
func Search(b *testing.B, st store.Store, tokens int) {
	s, ok := st.(store.Searcher)
	if !ok {
		b.Skipf("%T is not a store.Searcher", st)
	}
	ctx := context.Background()
	const per = 200
	msgs := history(tokens/per, per)
	for i := 97; i < len(msgs); i += 1000 {
		msgs[i].Content += "\npanic: runtime error: index out of range [3] with length 3"
	}
	sid := id("search")
	preload(b, st, sid, msgs)
	if _, err := s.Search(ctx, sid, "Index Out Of Range", 0, 20); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		found, err := s.Search(ctx, sid, "Index Out Of Range", 0, 20)
		if err != nil {
			b.Fatal(err)
		}
		if len(found) != (len(msgs)+902)/1000 {
			b.Fatalf("found %d", len(found))
		}
	}
}
