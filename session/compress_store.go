package session

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/session/store"
)

// compactStored compacts a session kept in a store: under the session's
// lease (when the store is a Leaser) it reads the live history from the
// store, runs run on it, commits the result, and installs it with every
// message logged since. A compaction is logged and counted by its kind k;
// a Reset (kindReset) is not. A compaction off the request path (in the
// background, or idle) does not wait for a lease another holds. Errors of
// this package name op. The caller holds the slot.
//
// Once the store has committed, the result is returned whatever follows: if
// the view cannot be brought up to date, with an error wrapping ErrStale.
// leaseWaited reports whether it waited for another holder's lease.
func (s *Session) compactStored(ctx context.Context, op string, k kind, run compactFunc) (res *compact.Result, leaseWaited bool, err error) {
	count := k != kindReset
	var c *compaction
	fail := func(err error) (*compact.Result, bool, error) {
		if count {
			err = s.fail(c, err)
		}
		return nil, leaseWaited, err
	}
	hold, err := s.lease(ctx, s.noWait || k == kindBackground || k == kindIdle)
	leaseWaited = hold.waited
	if err != nil {
		return fail(err)
	}
	lease, runCtx, stop := hold.lease, hold.ctx, hold.stop
	defer stop()

	live, through, n, err := s.store.Live(runCtx, s.id)
	if err != nil {
		return fail(s.leaseCause(runCtx, s.errorf(op, fmt.Errorf("reading the live history: %w", err))))
	}
	if count {
		c = s.begin(k, live)
	}
	in, lines := live, []keptLine(nil)
	if s.recall {
		in, lines = stripRecallLines(live)
	}
	res, err = run(runCtx, in)
	if err != nil {
		return fail(s.leaseCause(runCtx, err))
	}
	if res.Skipped != "" {
		// Nothing to commit; the view still learns what the store holds.
		s.log.Debug("compaction skipped", "why", res.Skipped)
		s.installNewer(live, through, n)
		return ownResult(res), leaseWaited, nil
	}
	res, folded := s.settle(runCtx, live, through, n, res, lines, k == kindRecorded)
	compacted := compact.Clone(res.Messages)
	last, err := s.store.Commit(ctx, s.id, store.Compaction{
		N: n + 1, Through: through, Live: compacted,
		FoldedFrom: folded.From, FoldedThrough: folded.To,
		TokensBefore: s.countAll(live), TokensAfter: s.countAll(compacted),
		Summarizer: res.Summarizer, Spend: s.spending(),
	}, lease)
	if err != nil {
		return fail(s.errorf(op, fmt.Errorf("committing compaction %d: %w", n+1, err)))
	}
	stop()
	s.mu.Lock()
	prev := s.folded
	s.folded = foldedOf{n: n + 1, r: folded}
	s.mu.Unlock()
	s.redactCommitted(ctx, prev, n+1, folded)

	arrived, err := s.installCommitted(ctx, compacted, n+1, through, last)
	if count {
		c.res, c.snapshot = res, store.SnapshotID(s.id, n+1)
		s.done(c, arrived)
	}
	if err != nil {
		s.log.Warn("bringing the view up to date after a compaction failed", errAttr(err))
		return res, leaseWaited, s.errorf(op, fmt.Errorf("%w: compaction %d was committed, but reading what other processes appended meanwhile failed: %w",
			ErrStale, n+1, err))
	}
	return res, leaseWaited, nil
}

// installNewer makes live, the live history after compaction n up to
// record through, as the store gave it, the view, unless the view is as
// new already.
func (s *Session) installNewer(live []compact.Message, through int64, n int) {
	s.order.Lock()
	defer s.order.Unlock()
	s.mu.Lock()
	newer := n > s.n || n == s.n && through > s.seq
	s.mu.Unlock()
	if newer {
		s.install(compact.Clone(live), through, n)
	}
}

// installCommitted is where a committed compaction enters the view, the
// one place (a compaction run off the request path installs its result
// here too). It makes the view the live history after compaction n,
// just committed over the log up to through with compacted as its Live,
// when the log ended at record last: compacted, then the records after
// through. Those this view already holds are taken from it; only records
// other processes appended are read, so when none did (the common case)
// nothing is read and nothing can fail. It returns how many records
// follow compacted. If the read fails, the view holds compaction n with
// the records it had, which the next Append or Sync completes.
func (s *Session) installCommitted(ctx context.Context, compacted []compact.Message, n int, through, last int64) (int, error) {
	s.order.Lock()
	defer s.order.Unlock()
	s.mu.Lock()
	if s.n >= n {
		// An Append that met the commit has read the history since.
		arrived := len(s.history) - len(compacted)
		s.mu.Unlock()
		return max(arrived, 0), nil
	}
	// The view is compaction n-1's Live and the records after it up to
	// seq; those after through are its tail.
	var tail []compact.Message
	have := through
	if s.n == n-1 && s.seq >= through && s.seq-through <= int64(len(s.history)) {
		tail = s.history[len(s.history)-int(s.seq-through):]
		have = s.seq
	}
	s.mu.Unlock()
	msgs := concat(compacted, tail)
	var err error
	if last > have {
		var recs []store.Record
		recs, err = s.store.Read(ctx, s.id, have+1, last)
		if err == nil && int64(len(recs)) != last-have {
			err = fmt.Errorf("%w: reading records %d to %d gave %d", store.ErrCorrupt, have+1, last, len(recs))
		}
		if err == nil {
			for _, r := range recs {
				msgs = append(msgs, r.Message)
			}
			have = last
		}
	}
	if err != nil {
		s.install(concat(compacted, tail), have, n)
		return len(tail), err
	}
	s.install(msgs, have, n)
	return len(msgs) - len(compacted), nil
}

// leaseHold is a lease taken by lease: the lease, a context that is
// cancelled if the lease is lost while it is renewed, and stop, which
// stops renewing and releases the lease (once, however often it is
// called). waited reports that another holder's lease was waited for.
type leaseHold struct {
	lease  store.Lease
	ctx    context.Context
	stop   func()
	waited bool
}

// lease takes the session's lease when the store is a Leaser, waiting for
// another holder's to end unless noWait is set. Without a Leaser the
// lease is zero and ctx is returned as it is. On error only waited is set.
func (s *Session) lease(ctx context.Context, noWait bool) (leaseHold, error) {
	if s.leaser == nil {
		return leaseHold{ctx: ctx, stop: func() {}}, nil
	}
	lease, waited, err := s.acquireLease(ctx, noWait)
	if err != nil {
		return leaseHold{waited: waited}, err
	}
	runCtx, cancel := context.WithCancelCause(ctx)
	renewed := make(chan struct{})
	go s.renew(runCtx, cancel, lease, renewed)
	var once sync.Once
	stop := func() {
		once.Do(func() {
			cancel(nil)
			<-renewed
			// Release even when ctx is done, briefly: otherwise the session
			// stays locked for the rest of the TTL.
			rctx, done := context.WithTimeout(context.WithoutCancel(ctx), releaseTimeout)
			defer done()
			if err := s.leaser.Release(rctx, s.id, lease); err != nil {
				s.log.Warn("releasing the compaction lease failed", "fence", lease.Fence, errAttr(err))
			}
		})
	}
	return leaseHold{lease: lease, ctx: runCtx, stop: stop, waited: waited}, nil
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

// acquireLease acquires the session's lease, polling while another holds it
// unless noWait is set. waited reports whether it polled.
func (s *Session) acquireLease(ctx context.Context, noWait bool) (_ store.Lease, waited bool, _ error) {
	wait := leasePollMin
	for ; ; waited = true {
		lease, err := s.leaser.Acquire(ctx, s.id, s.leaseTTL)
		if err == nil {
			return lease, waited, nil
		}
		if !errors.Is(err, ErrBusy) {
			return store.Lease{}, waited, s.errorf("acquiring the compaction lease", err)
		}
		if noWait {
			return store.Lease{}, waited, fmt.Errorf("session: %q: %w", s.id, err)
		}
		d := wait
		var held *store.LeaseHeldError
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
			return store.Lease{}, true, s.errorf("waiting for the compaction lease", ctx.Err())
		case <-timer.C:
		}
		wait = min(2*wait, leasePollMax)
	}
}

// renew renews lease every third of the TTL until ctx is done, and cancels
// ctx with the store's error when the lease is lost. It closes done when it
// returns.
func (s *Session) renew(ctx context.Context, cancel context.CancelCauseFunc, lease store.Lease, done chan<- struct{}) {
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
		case errors.Is(err, store.ErrLeaseLost) || errors.Is(err, store.ErrStaleFence):
			cancel(s.errorf("renewing the compaction lease", err))
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
