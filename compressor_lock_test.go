package compact

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/contextkit/compact/handoff"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// blockingSummarizer stands for a slow model call: it tells started when a
// call begins and answers only once release is closed (or its context
// ends).
type blockingSummarizer struct {
	started chan struct{}
	release chan struct{}
}

func (b *blockingSummarizer) Summarize(ctx context.Context, req SummaryRequest) (string, error) {
	b.started <- struct{}{}
	select {
	case <-b.release:
		return "The slow summary.", nil
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

// waitOrFail waits for ch to deliver, or fails t after a bound far beyond
// any scheduling delay: what it guards would otherwise hang the test.
func waitOrFail[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(30 * time.Second):
		require.Failf(t, "never happened", "%s", what)
		panic("unreachable")
	}
}

// A caller whose deadline ends while another compaction holds the
// Compressor gives up with its context's error; it does not wait behind a
// slow model call. The compaction it waited behind is not disturbed.
func TestCompressGivesUpWaitingWhenItsContextEnds(t *testing.T) {
	slow := &blockingSummarizer{started: make(chan struct{}, 1), release: make(chan struct{})}
	c := newTestCompressor(slow)
	first := make(chan error, 1)
	go func() {
		_, err := c.Compress(context.Background(), longSession(30), Force())
		first <- err
	}()
	waitOrFail(t, slow.started, "the first compaction's summarizer call")

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	second := make(chan error, 1)
	go func() {
		_, err := c.Compress(ctx, longSession(30), Force())
		second <- err
	}()
	err := waitOrFail(t, second, "the waiting caller's return")
	assert.True(t, errors.Is(err, context.DeadlineExceeded), "got %v", err)
	select {
	case <-first:
		require.Fail(t, "the first compaction finished before its summarizer answered")
	default:
	}

	close(slow.release)
	require.NoError(t, waitOrFail(t, first, "the first compaction"))
	assert.Equal(t, 1, c.Status().Compressions)
}

// The checks that need no lock come first: an unforced request under the
// threshold, or a broken input, gets its answer while another compaction
// runs.
func TestChecksThatNeedNoLockDoNotWait(t *testing.T) {
	slow := &blockingSummarizer{started: make(chan struct{}, 1), release: make(chan struct{})}
	c := newTestCompressor(slow)
	done := make(chan error, 1)
	go func() {
		_, err := c.Compress(context.Background(), longSession(30), Force())
		done <- err
	}()
	waitOrFail(t, slow.started, "the compaction's summarizer call")

	small := make(chan *Result, 1)
	go func() {
		res, err := c.Compress(context.Background(), []Message{user("hi")})
		assert.NoError(t, err)
		small <- res
	}()
	assert.NotEmpty(t, waitOrFail(t, small, "the answer under the threshold").Skipped)

	broken := make(chan error, 1)
	go func() {
		_, err := c.Compress(context.Background(), []Message{user("u"), result("c9", "x")}, Force())
		broken <- err
	}()
	assert.ErrorIs(t, waitOrFail(t, broken, "the refusal of a broken input"), ErrInvalidHistory)

	close(slow.release)
	require.NoError(t, waitOrFail(t, done, "the compaction"))
}

// Policy.Start runs once the compaction released the Compressor: it may
// use the Compressor itself.
func TestHandoffStartRunsOutsideTheRunLock(t *testing.T) {
	var c *Compressor
	started := false
	c = newHandoffCompressor(handoff.Policy{
		Enabled: true, Root: t.TempDir(), Mode: handoff.FreshSession, AfterCompactions: 1,
		Start: func(ctx context.Context, r handoff.Report) (string, error) {
			started = true
			_, err := c.Compress(ctx, longSession(30), Force())
			return "next", err
		},
	})
	res, err := c.Compress(context.Background(), longSession(30), Force())
	require.NoError(t, err)
	assert.True(t, started)
	require.NotNil(t, res.Handoff)
	assert.Equal(t, "next", res.Handoff.ContinuationID)
	assert.Equal(t, 2, c.Status().Compressions)
	assert.Equal(t, 1, c.Status().Handoffs, "the inner compaction wrote no second packet while the first was being written")
}
