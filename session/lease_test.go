package session

import (
	"context"
	"testing"
	"time"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/session/store"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Two Sessions on one store stand for two processes: the store's lease, not
// the Session's slot, keeps their compactions apart.

func TestCompressWaitsForAnotherHoldersLease(t *testing.T) {
	noLeaks(t)
	ctx := context.Background()
	st := store.NewMemory()
	other, err := st.Acquire(ctx, "agent-1", time.Minute)
	require.NoError(t, err)

	impatient := newTestSession(t, "agent-1", &recorder{Out: "summary"}, WithStore(st), WithWait(false))
	mustAppend(t, impatient, chatHistory("agent-1", 200)...)
	_, err = impatient.Compress(ctx)
	require.ErrorIs(t, err, ErrBusy, "another holder compacts this session")
	var held *store.LeaseHeldError
	require.ErrorAs(t, err, &held)
	assert.Equal(t, other.Fence, held.Fence)

	patient := newTestSession(t, "agent-1", &recorder{Out: "summary"}, WithStore(st))
	done := compactAsync(ctx, patient)
	select {
	case o := <-done:
		require.Failf(t, "Compress did not wait for the lease", "it returned %v", o.err)
	case <-time.After(50 * time.Millisecond):
	}
	require.NoError(t, st.Release(ctx, "agent-1", other))
	require.NoError(t, await(t, done, "the compaction").err)
	comps, err := st.Compactions(ctx, "agent-1")
	require.NoError(t, err)
	require.Len(t, comps, 1)
	assert.Greater(t, comps[0].Fence, other.Fence)

	cancelled, cancel := context.WithTimeout(ctx, 30*time.Millisecond)
	defer cancel()
	again, err := st.Acquire(ctx, "agent-1", time.Minute)
	require.NoError(t, err, "the compaction released its lease")
	_, err = patient.Compress(cancelled, compact.Force())
	assert.ErrorIs(t, err, context.DeadlineExceeded, "waiting for the lease honours ctx")
	require.NoError(t, st.Release(ctx, "agent-1", again))
}

// stalled is a store.Memory whose renewals do nothing: the holder looks
// alive to itself but its lease lapses, as when a process pauses.
type stalled struct{ *store.Memory }

func (s stalled) Renew(_ context.Context, _ string, l store.Lease, _ time.Duration) (store.Lease, error) {
	return l, nil
}

func TestAHolderThatLostItsLeaseCannotSave(t *testing.T) {
	noLeaks(t)
	ctx := context.Background()
	st := stalled{store.NewMemory()}
	g := newGate(1)
	s := newTestSession(t, "agent-1", g, WithStore(st), WithLeaseTTL(60*time.Millisecond))
	hist := chatHistory("agent-1", 200)
	mustAppend(t, s, hist...)

	done := compactAsync(ctx, s)
	await(t, g.entered, "the summarizer")
	time.Sleep(120 * time.Millisecond) // the lease lapses
	taker, err := st.Acquire(ctx, "agent-1", time.Minute)
	require.NoError(t, err, "another holder takes the lapsed lease")
	late := user("agent-1 appended while the holder was paused")
	mustAppend(t, s, late)
	close(g.release)

	o := await(t, done, "the compaction")
	require.ErrorIs(t, o.err, store.ErrStaleFence)
	assert.Nil(t, o.res)
	assert.True(t, equalHistory(append(hist, late), s.Messages()), "the live history is untouched")
	comps, err := st.Compactions(ctx, "agent-1")
	require.NoError(t, err)
	assert.Empty(t, comps, "nothing was saved")
	logged, err := st.Read(ctx, "agent-1", 1, 0)
	require.NoError(t, err)
	assert.Len(t, logged, 201, "nothing was lost")
	require.NoError(t, st.Release(ctx, "agent-1", taker))
}

func TestRenewalKeepsALongCompactionsLease(t *testing.T) {
	noLeaks(t)
	ctx := context.Background()
	// The store's clock moves only as the lease is renewed, two thirds of
	// a TTL each time: however late the machine runs a renewal, the lease
	// is still held when it comes, and after a few the first grant has
	// long expired, so only the renewals can be keeping it.
	clock := newSimClock()
	st := store.NewMemoryClock(clock.Now)
	spy := &renewals{Memory: st, clock: clock, renewed: make(chan struct{}, 64)}
	const ttl = 30 * time.Millisecond
	g := newGate(1)
	s := newTestSession(t, "agent-1", g, WithStore(spy), WithLeaseTTL(ttl))
	mustAppend(t, s, chatHistory("agent-1", 200)...)

	done := compactAsync(ctx, s)
	await(t, g.entered, "the summarizer")
	start := clock.Now()
	for i := 0; i < 4; i++ {
		await(t, spy.renewed, "a renewal")
	}
	require.Greater(t, clock.Now().Sub(start), 2*ttl, "the first grant has expired by the store's clock")
	_, err := st.Acquire(ctx, "agent-1", time.Minute)
	require.ErrorIs(t, err, ErrBusy, "the running compaction still holds the lease")
	close(g.release)
	require.NoError(t, await(t, done, "the compaction").err)
	comps, err := st.Compactions(ctx, "agent-1")
	require.NoError(t, err)
	assert.Len(t, comps, 1)
}

// renewals is a store.Memory whose clock moves two thirds of a lease's TTL
// just before each renewal, which it announces on renewed once it holds.
type renewals struct {
	*store.Memory
	clock   *simClock
	renewed chan struct{}
}

func (r *renewals) Renew(ctx context.Context, id string, lease store.Lease, ttl time.Duration) (store.Lease, error) {
	r.clock.Advance(ttl * 2 / 3)
	l, err := r.Memory.Renew(ctx, id, lease, ttl)
	if err == nil {
		select {
		case r.renewed <- struct{}{}:
		default:
		}
	}
	return l, err
}
