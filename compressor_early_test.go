package compact

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/contextkit/compact/internal/msgtest"
	"github.com/contextkit/compact/prune"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// An early compaction compacts a history under the threshold, which an
// ordinary one returns untouched.
func TestEarlyCompactsUnderTheThreshold(t *testing.T) {
	c := newTestCompressor(&recorder{})
	in := longSession(12)
	require.Less(t, c.count(in), c.threshold(), "the history is under the threshold")

	res, err := c.Compress(context.Background(), in)
	require.NoError(t, err)
	require.NotEmpty(t, res.Skipped, "an ordinary compaction leaves it")

	res, err = c.Compress(context.Background(), in, Early())
	require.NoError(t, err)
	assert.Empty(t, res.Skipped)
	assert.GreaterOrEqual(t, res.SummaryIndex, 0)
	assert.Less(t, res.TokensAfter, res.TokensBefore)
	require.NoError(t, Validate(res.Messages))
}

// Unlike Force, Early keeps the pause and the backoff: a host that
// compacts ahead of time never overrides what protects the summarizer.
func TestEarlyKeepsThePauseAndTheBackoff(t *testing.T) {
	t.Run("pause", func(t *testing.T) {
		c := newTestCompressor(&recorder{})
		th := c.threshold()
		in := longSession(30)
		for range 2 {
			_, err := c.Compress(context.Background(), in)
			require.NoError(t, err)
			c.ShouldCompress(th + 100) // the next request, counted and reported, is still over
			c.UpdateUsage(Usage{PromptTokens: th + 100})
		}
		require.True(t, c.Status().Paused)
		_, err := c.Compress(context.Background(), longSession(12), Early())
		assert.ErrorIs(t, err, ErrPaused)
	})
	t.Run("backoff", func(t *testing.T) {
		now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
		r := &recorder{Err: errors.New("503")}
		c := newTestCompressor(r, WithFailurePolicy(AbortOnFailure), WithClock(func() time.Time { return now }))
		_, err := c.Compress(context.Background(), longSession(30))
		require.ErrorIs(t, err, ErrSummarizer)
		calls := r.Calls()
		_, err = c.Compress(context.Background(), longSession(12), Early())
		assert.ErrorIs(t, err, ErrBackoff)
		assert.Equal(t, calls, r.Calls(), "the summarizer is not called while backing off")
	})
}

// Early keeps the cheap tier: when pruning alone leaves room to spare, no
// summarizer is called.
func TestEarlyPrunesAloneWhenThatIsEnough(t *testing.T) {
	r := &recorder{}
	c := newTestCompressor(r, WithPruning(true), WithPruneOptions(prune.WithClearAtLeast(0)))
	in := msgtest.AgentRun(7)
	require.Less(t, c.count(in), c.threshold())
	res, err := c.Compress(context.Background(), in, Early())
	require.NoError(t, err)
	assert.Equal(t, -1, res.SummaryIndex, "pruning alone")
	assert.NotEmpty(t, res.Pruned)
	assert.Zero(t, r.Calls())
}
