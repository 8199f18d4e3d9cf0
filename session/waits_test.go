package session

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/session/store"
)

// clockedSummarizer takes took of the simulated clock's time: it moves the
// clock on itself, so a request path that calls it waits exactly took.
type clockedSummarizer struct {
	clock *simClock
	took  time.Duration
	calls atomic.Int32
}

func (c *clockedSummarizer) Summarize(_ context.Context, req compact.SummaryRequest) (string, error) {
	c.calls.Add(1)
	c.clock.Advance(c.took)
	return fmt.Sprintf("The agent worked through %d turns.", len(req.Turns)), nil
}

// busyOnce is a store.Memory whose lease another holder has at the first
// try: a compaction waits for it once.
type busyOnce struct {
	*store.Memory
	tries atomic.Int32
}

func (b *busyOnce) Acquire(ctx context.Context, id string, ttl time.Duration) (store.Lease, error) {
	if b.tries.Add(1) == 1 {
		return store.Lease{}, fmt.Errorf("%w: another process compacts %q", ErrBusy, id)
	}
	return b.Memory.Acquire(ctx, id, ttl)
}

// Status counts as a wait a request path that blocked: one whose
// compaction called the summarizer, or that waited for another
// compaction or another holder's lease. A compaction that pruning alone
// achieved takes moments, and is no wait; nor is a Compress that found
// nothing to do.
func TestWaitsCountRequestPathsThatBlocked(t *testing.T) {
	for _, name := range []string{"without a store", "with a store", "with a lease held once"} {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			clock := newSimClock()
			sum := &clockedSummarizer{clock: clock, took: 10 * time.Second}
			var opts []Option
			switch name {
			case "with a store":
				opts = append(opts, WithStore(store.NewMemory()))
			case "with a lease held once":
				opts = append(opts, WithStore(&busyOnce{Memory: store.NewMemory()}))
			}
			engine := newTestCompressor(sum, compact.WithPruning(true), compact.WithClock(clock.Now))
			s, err := Open(ctx, "waits", engine, append(opts, WithClock(clock.Now))...)
			require.NoError(t, err)
			defer func() { require.NoError(t, s.Close(ctx)) }()

			// Tool output pruning alone brings under the threshold.
			mustAppend(t, s, toolRounds(12)...)
			require.True(t, s.ShouldCompress())
			res, err := s.Compress(ctx)
			require.NoError(t, err)
			require.Empty(t, res.Skipped)
			require.Empty(t, res.Summarizer, "pruning alone was enough")
			st := s.Status()
			assert.Equal(t, 1, st.ForegroundCompactions)
			if name == "with a lease held once" {
				assert.Equal(t, 1, st.Waits.Count, "a request path that waited for the lease blocked")
			} else {
				assert.Zero(t, st.Waits.Count, "a compaction that only pruned is no wait: %+v", st.Waits)
			}
			waitsBefore := st.Waits.Count

			// Under the threshold: nothing to do, no wait.
			res, err = s.Compress(ctx)
			require.NoError(t, err)
			require.NotEmpty(t, res.Skipped)
			assert.Equal(t, waitsBefore, s.Status().Waits.Count)

			// Talk, which only a summary shrinks.
			appendUntil(t, s, chatHistory("waits", 200)[1:], func() bool { return s.ShouldCompress() })
			res, err = s.Compress(ctx)
			require.NoError(t, err)
			require.NotEmpty(t, res.Summarizer)
			st = s.Status()
			assert.Equal(t, 2, st.ForegroundCompactions)
			assert.Equal(t, waitsBefore+1, st.Waits.Count, "the summary was waited for")
			assert.Equal(t, 10*time.Second, st.Waits.Longest)
			assert.EqualValues(t, 1, sum.calls.Load())
		})
	}
}
