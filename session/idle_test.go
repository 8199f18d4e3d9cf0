package session

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/session/store"
)

// CompressIfIdle compacts a session quiet for longer than its prompt cache
// lives, earlier than automatic compaction would, and does nothing to a
// session in use, too small, or already compacting.
func TestCompressIfIdle(t *testing.T) {
	ctx := context.Background()
	open := func(t *testing.T, opts ...Option) (*Session, *simClock) {
		clock := newSimClock()
		s := newTestSession(t, "idle", &recorder{}, append([]Option{WithStore(store.NewMemory()), WithClock(clock.Now)}, opts...)...)
		return s, clock
	}
	hist := chatHistory("idle", 400)
	grow := func(t *testing.T, s *Session, share float64) {
		appendUntil(t, s, hist, func() bool { return float64(s.Status().RequestTokens) >= share*float64(s.Status().Threshold) })
		s.Messages() // a request: the session is active now
	}

	t.Run("quiet past the cache lifetime: compacts", func(t *testing.T) {
		s, clock := open(t)
		grow(t, s, 0.6)
		require.False(t, s.ShouldCompress(), "under the threshold")
		clock.Advance(defaultIdleAfter)
		before := s.Tokens()
		res, err := s.CompressIfIdle(ctx)
		require.NoError(t, err)
		assert.Empty(t, res.Skipped)
		assert.Less(t, s.Tokens(), before)
		st := s.Status()
		assert.Equal(t, 1, st.IdleCompactions)
		assert.Zero(t, st.ForegroundCompactions+st.BackgroundCompactions)
		assert.Zero(t, st.Waits.Count, "nobody waited")
	})
	t.Run("in use: nothing", func(t *testing.T) {
		s, clock := open(t)
		grow(t, s, 0.6)
		clock.Advance(defaultIdleAfter - time.Second)
		res, err := s.CompressIfIdle(ctx)
		require.NoError(t, err)
		assert.Contains(t, res.Skipped, "active 4m59s ago")
		assert.Zero(t, s.Status().Compactions)
		s.UpdateUsage(compact.Usage{PromptTokens: 10})
		clock.Advance(time.Minute)
		res, err = s.CompressIfIdle(ctx)
		require.NoError(t, err)
		assert.Contains(t, res.Skipped, "active 1m0s ago", "a usage report is activity")
	})
	t.Run("the host's idle time", func(t *testing.T) {
		s, clock := open(t, WithIdleAfter(time.Hour))
		grow(t, s, 0.6)
		clock.Advance(defaultIdleAfter)
		res, err := s.CompressIfIdle(ctx)
		require.NoError(t, err)
		assert.Contains(t, res.Skipped, "idle after 1h0m0s")
	})
	t.Run("too small: nothing", func(t *testing.T) {
		s, clock := open(t)
		grow(t, s, 0.2)
		clock.Advance(defaultIdleAfter)
		res, err := s.CompressIfIdle(ctx)
		require.NoError(t, err)
		assert.Contains(t, res.Skipped, "under the idle mark")
		assert.True(t, equalHistory(s.Messages(), res.Messages), "the Result's Messages is the request")
	})
	t.Run("under the idle mark by the count, over it by the last usage report: compacts", func(t *testing.T) {
		clock := newSimClock()
		s, err := Open(ctx, "idle", newTestCompressor(&recorder{}, compact.WithContextWindow(16_000)), WithClock(clock.Now))
		require.NoError(t, err)
		grow(t, s, 0.3)
		st := s.Status()
		require.Less(t, float64(st.RequestTokens), idleMark*float64(st.Threshold))
		s.UpdateUsage(compact.Usage{PromptTokens: st.RequestTokens + st.Threshold/5})
		clock.Advance(defaultIdleAfter)
		res, err := s.CompressIfIdle(ctx)
		require.NoError(t, err)
		assert.Empty(t, res.Skipped)
		assert.Equal(t, 1, s.Status().IdleCompactions)
	})
	t.Run("compacting: nothing, and no wait", func(t *testing.T) {
		g := newGate(2)
		clock := newSimClock()
		s := newTestSession(t, "idle", g, WithClock(clock.Now))
		mustAppend(t, s, hist[:200]...)
		done := compactAsync(ctx, s, compact.Force())
		await(t, g.entered, "the compaction")
		clock.Advance(time.Hour)
		res, err := s.CompressIfIdle(ctx)
		require.NoError(t, err)
		assert.Contains(t, res.Skipped, "running")
		close(g.release)
		require.NoError(t, await(t, done, "Compress").err)
	})
	t.Run("closed", func(t *testing.T) {
		s, _ := open(t)
		require.NoError(t, s.Close(ctx))
		_, err := s.CompressIfIdle(ctx)
		assert.ErrorIs(t, err, ErrClosed)
	})
}
