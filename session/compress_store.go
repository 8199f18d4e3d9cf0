package session

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/contextkit/compact"
)

// compactStored compacts a session kept in a store: under the session's
// lease (when the store is a Leaser) it reads the live history from the
// store, runs run on it, commits the result, and installs it with every
// message logged since. A compaction (count set) is logged and counted; a
// Reset is not. The caller holds the slot.
func (s *Session) compactStored(ctx context.Context, count bool,
	run func(context.Context, []compact.Message) (*compact.Result, error)) (*compact.Result, error) {
	var c *compaction
	fail := func(err error) (*compact.Result, error) {
		if count {
			err = s.fail(c, err)
		}
		return nil, err
	}
	lease, runCtx, stop, err := s.lease(ctx)
	if err != nil {
		return fail(err)
	}
	defer stop()

	live, through, n, err := s.store.Live(runCtx, s.id)
	if err != nil {
		return fail(s.leaseCause(runCtx, fmt.Errorf("compact: session %q: reading the live history: %w", s.id, err)))
	}
	if count {
		c = s.begin(live)
		if s.recall {
			run = s.withRecallLines(run, through)
		}
	}
	res, err := run(runCtx, live)
	if err != nil {
		return fail(s.leaseCause(runCtx, err))
	}
	if res.Skipped != "" {
		s.log.Debug("compaction skipped", "why", res.Skipped)
		return res, nil
	}
	compacted := compact.Clone(res.Messages)
	tokensBefore := s.countAll(live)
	if err := s.store.Commit(ctx, s.id, Compaction{
		N: n + 1, Through: through, Live: compacted,
		TokensBefore: tokensBefore, TokensAfter: s.countAll(compacted),
		Summarizer: res.Summarizer,
	}, lease); err != nil {
		return fail(fmt.Errorf("compact: session %q: committing compaction %d: %w", s.id, n+1, err))
	}
	stop()

	arrived, err := s.installAfter(ctx, compacted, through)
	if err != nil {
		// The compaction is committed; this process's copy of the history
		// is stale until the next call that takes a ctx reads it again.
		s.log.Warn("re-reading the live history after a compaction failed", errAttr(err))
	}
	if count {
		c.res, c.snapshot = res, SnapshotID(s.id, n+1)
		s.done(c, arrived)
	}
	return res, nil
}

// installAfter makes compacted, followed by every record logged after
// through, the live history, and returns how many records followed.
func (s *Session) installAfter(ctx context.Context, compacted []compact.Message, through int64) (int, error) {
	s.order.Lock()
	defer s.order.Unlock()
	recs, err := s.store.Read(ctx, s.id, through+1, 0)
	if err != nil {
		s.mu.Lock()
		s.loaded = false
		s.mu.Unlock()
		return 0, err
	}
	last := through
	msgs := make([]compact.Message, 0, len(compacted)+len(recs))
	msgs = append(msgs, compacted...)
	for _, r := range recs {
		msgs = append(msgs, r.Message)
		last = r.Seq
	}
	s.install(msgs, last)
	return len(recs), nil
}

// lease takes the session's lease when the store is a Leaser, waiting for
// another holder's to end unless the session does not wait. It returns the
// lease, a context that is cancelled if the lease is lost while it is
// renewed, and stop, which stops renewing and releases the lease (once, however
// often it is called). Without a Leaser the lease is zero and ctx is
// returned as it is.
func (s *Session) lease(ctx context.Context) (Lease, context.Context, func(), error) {
	if s.leaser == nil {
		return Lease{}, ctx, func() {}, nil
	}
	lease, err := s.acquireLease(ctx)
	if err != nil {
		return Lease{}, nil, nil, err
	}
	runCtx, cancel := context.WithCancelCause(ctx)
	renewed := make(chan struct{})
	go s.renew(runCtx, cancel, lease, renewed)
	stopped := false
	stop := func() {
		if stopped {
			return
		}
		stopped = true
		cancel(nil)
		<-renewed
		// Release even when ctx is done, briefly: otherwise the session
		// stays locked for the rest of the TTL.
		rctx, done := context.WithTimeout(context.WithoutCancel(ctx), releaseTimeout)
		defer done()
		if err := s.leaser.Release(rctx, s.id, lease); err != nil {
			s.log.Warn("releasing the compaction lease failed", "fence", lease.Fence, errAttr(err))
		}
	}
	return lease, runCtx, stop, nil
}

// releaseTimeout bounds the release of a lease after its compaction ended,
// when the caller's context is already done.
const releaseTimeout = 5 * time.Second

// leasePollMin and leasePollMax bound how often a Compress waiting for
// another holder's lease asks again: the wait doubles from the first to the
// second, and never runs past the holder's expiry.
const (
	leasePollMin = 10 * time.Millisecond
	leasePollMax = 500 * time.Millisecond
)

// acquireLease acquires the session's lease, polling while another holds it.
func (s *Session) acquireLease(ctx context.Context) (Lease, error) {
	wait := leasePollMin
	for {
		lease, err := s.leaser.Acquire(ctx, s.id, s.leaseTTL)
		if err == nil {
			return lease, nil
		}
		if !errors.Is(err, ErrBusy) {
			return Lease{}, fmt.Errorf("compact: session %q: acquiring the compaction lease: %w", s.id, err)
		}
		if s.noWait {
			return Lease{}, fmt.Errorf("compact: session %q: %w", s.id, err)
		}
		d := wait
		var held *LeaseHeldError
		if errors.As(err, &held) {
			// The store's clock may differ from ours; the expiry is a hint.
			if until := time.Until(held.Expires); until > 0 && until < d {
				d = until
			}
		}
		timer := time.NewTimer(d)
		select {
		case <-ctx.Done():
			timer.Stop()
			return Lease{}, fmt.Errorf("compact: session %q: waiting for the compaction lease: %w", s.id, ctx.Err())
		case <-timer.C:
		}
		wait = min(2*wait, leasePollMax)
	}
}

// renew renews lease every third of the TTL until ctx is done, and cancels
// ctx with the store's error when the lease is lost. It closes done when it
// returns.
func (s *Session) renew(ctx context.Context, cancel context.CancelCauseFunc, lease Lease, done chan<- struct{}) {
	defer close(done)
	t := time.NewTicker(s.leaseTTL / 3)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		l, err := s.leaser.Renew(ctx, s.id, lease, s.leaseTTL)
		switch {
		case err == nil:
			lease = l
		case errors.Is(err, ErrLeaseLost) || errors.Is(err, ErrStaleFence):
			cancel(fmt.Errorf("compact: session %q: %w", s.id, err))
			return
		case ctx.Err() != nil:
			return
		default:
			// A store that failed once may answer next time; if the lease
			// lapses meanwhile, the commit is refused and nothing is lost.
			s.log.Warn("renewing the compaction lease failed", "fence", lease.Fence, errAttr(err))
		}
	}
}

// leaseCause returns the reason runCtx was cancelled when it was the loss of
// the lease, joined to err; err otherwise.
func (s *Session) leaseCause(runCtx context.Context, err error) error {
	if cause := context.Cause(runCtx); cause != nil && !errors.Is(cause, context.Canceled) && !errors.Is(cause, context.DeadlineExceeded) {
		return fmt.Errorf("%w (%w)", cause, err)
	}
	return err
}
