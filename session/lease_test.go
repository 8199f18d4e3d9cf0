package session

import (
	"context"
	"testing"
	"time"

	"github.com/contextkit/compact"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Two Sessions on one store stand for two processes: the store's lease, not
// the Session's slot, keeps their compactions apart.

func TestCompressWaitsForAnotherHoldersLease(t *testing.T) {
	noLeaks(t)
	ctx := context.Background()
	store := NewMemoryStore()
	other, err := store.Acquire(ctx, "agent-1", time.Minute)
	require.NoError(t, err)

	impatient := newTestSession(t, "agent-1", &recorder{Out: "summary"}, WithStore(store), WithWait(false))
	mustAppend(t, impatient, chatHistory("agent-1", 200)...)
	_, err = impatient.Compress(ctx)
	require.ErrorIs(t, err, ErrBusy, "another holder compacts this session")
	var held *LeaseHeldError
	require.ErrorAs(t, err, &held)
	assert.Equal(t, other.Fence, held.Fence)

	patient := newTestSession(t, "agent-1", &recorder{Out: "summary"}, WithStore(store))
	done := compactAsync(ctx, patient)
	select {
	case o := <-done:
		require.Failf(t, "Compress did not wait for the lease", "it returned %v", o.err)
	case <-time.After(50 * time.Millisecond):
	}
	require.NoError(t, store.Release(ctx, "agent-1", other))
	require.NoError(t, await(t, done, "the compaction").err)
	comps, err := store.Compactions(ctx, "agent-1")
	require.NoError(t, err)
	require.Len(t, comps, 1)
	assert.Greater(t, comps[0].Fence, other.Fence)

	cancelled, cancel := context.WithTimeout(ctx, 30*time.Millisecond)
	defer cancel()
	again, err := store.Acquire(ctx, "agent-1", time.Minute)
	require.NoError(t, err, "the compaction released its lease")
	_, err = patient.Compress(cancelled, compact.Force())
	assert.ErrorIs(t, err, context.DeadlineExceeded, "waiting for the lease honours ctx")
	require.NoError(t, store.Release(ctx, "agent-1", again))
}

// stalled is a MemoryStore whose renewals do nothing: the holder looks
// alive to itself but its lease lapses, as when a process pauses.
type stalled struct{ *MemoryStore }

func (s stalled) Renew(_ context.Context, _ string, l Lease, _ time.Duration) (Lease, error) {
	return l, nil
}

func TestAHolderThatLostItsLeaseCannotSave(t *testing.T) {
	noLeaks(t)
	ctx := context.Background()
	store := stalled{NewMemoryStore()}
	g := newGate(1)
	s := newTestSession(t, "agent-1", g, WithStore(store), WithLeaseTTL(60*time.Millisecond))
	hist := chatHistory("agent-1", 200)
	mustAppend(t, s, hist...)

	done := compactAsync(ctx, s)
	await(t, g.entered, "the summarizer")
	time.Sleep(120 * time.Millisecond) // the lease lapses
	taker, err := store.Acquire(ctx, "agent-1", time.Minute)
	require.NoError(t, err, "another holder takes the lapsed lease")
	late := user("agent-1 appended while the holder was paused")
	mustAppend(t, s, late)
	close(g.release)

	o := await(t, done, "the compaction")
	require.ErrorIs(t, o.err, ErrStaleFence)
	assert.Nil(t, o.res)
	assert.True(t, equalHistory(append(hist, late), s.Messages()), "the live history is untouched")
	comps, err := store.Compactions(ctx, "agent-1")
	require.NoError(t, err)
	assert.Empty(t, comps, "nothing was saved")
	logged, err := store.Read(ctx, "agent-1", 1, 0)
	require.NoError(t, err)
	assert.Len(t, logged, 201, "nothing was lost")
	require.NoError(t, store.Release(ctx, "agent-1", taker))
}

func TestRenewalKeepsALongCompactionsLease(t *testing.T) {
	noLeaks(t)
	ctx := context.Background()
	// The store's clock moves only as the lease is renewed, two thirds of
	// a TTL each time: however late the machine runs a renewal, the lease
	// is still held when it comes, and after a few the first grant has
	// long expired, so only the renewals can be keeping it.
	clock := newSimClock()
	store := NewMemoryStore()
	store.clock = clock.Now
	spy := &renewals{MemoryStore: store, clock: clock, renewed: make(chan struct{}, 64)}
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
	_, err := store.Acquire(ctx, "agent-1", time.Minute)
	require.ErrorIs(t, err, ErrBusy, "the running compaction still holds the lease")
	close(g.release)
	require.NoError(t, await(t, done, "the compaction").err)
	comps, err := store.Compactions(ctx, "agent-1")
	require.NoError(t, err)
	assert.Len(t, comps, 1)
}

// renewals is a MemoryStore whose clock moves two thirds of a lease's TTL
// just before each renewal, which it announces on renewed once it holds.
type renewals struct {
	*MemoryStore
	clock   *simClock
	renewed chan struct{}
}

func (r *renewals) Renew(ctx context.Context, id string, lease Lease, ttl time.Duration) (Lease, error) {
	r.clock.Advance(ttl * 2 / 3)
	l, err := r.MemoryStore.Renew(ctx, id, lease, ttl)
	if err == nil {
		select {
		case r.renewed <- struct{}{}:
		default:
		}
	}
	return l, err
}
