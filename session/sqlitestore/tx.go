package sqlitestore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"
	"time"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// Bounds of the pause between two tries of a transaction SQLite found busy
// past its busy timeout: doubling from the first to the second.
const (
	retryMin = 2 * time.Millisecond
	retryMax = 200 * time.Millisecond
)

// maxBatch bounds the writes one transaction commits together.
const maxBatch = 64

// txFunc is the body of one write: it runs inside a transaction it must
// not end, with the batch's ctx (see write), and may run more than once if
// the transaction is tried again.
type txFunc func(ctx context.Context, tx *sql.Tx) error

// pending is one caller's write, waiting for a batch or in one.
type pending struct {
	ctx  context.Context
	fn   txFunc
	err  error
	done chan struct{} // closed once err is set
	lead chan struct{} // closed when its caller is to run the next batch
	// Under writes.mu: taken once a batch holds it, leading once its
	// caller is to run the next batch; either way it cannot be withdrawn.
	taken, leading bool
}

func (p *pending) finish(err error) {
	p.err = err
	close(p.done)
}

// writes is the queue of a Store's writes. The caller whose write finds no
// batch running runs one; writes that arrive meanwhile wait, and the first
// of them runs the next batch, taking all that have arrived (up to
// maxBatch) into one IMMEDIATE transaction. So a process makes one
// transaction of many sessions' appends when they come together, and each
// caller waits for at most the batch running and its own: under load, the
// file's lock is taken once for many writes instead of once for each, and
// no caller is left behind (the database/sql pool would hand the one write
// connection out in random order).
type writes struct {
	mu      sync.Mutex
	queue   []*pending
	running bool // a batch is running, or its leader is on its way
}

// write runs fn in an IMMEDIATE transaction, alone or batched with other
// callers' writes, each in a savepoint of its own so that one's error
// undoes only its own changes, and retries while SQLite reports the file
// busy or locked, until ctx is done. fn gets a ctx that is not the
// caller's (one caller's cancellation must not cut another's write short);
// a caller whose ctx ends before its write commits gets an error wrapping
// ctx.Err(), and its write is not made.
func (s *Store) write(ctx context.Context, fn txFunc) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	p := &pending{ctx: ctx, fn: fn, done: make(chan struct{}), lead: make(chan struct{})}
	q := &s.writes
	q.mu.Lock()
	q.queue = append(q.queue, p)
	lead := !q.running
	q.running = true
	q.mu.Unlock()
	if !lead {
		select {
		case <-p.done:
			return p.err
		case <-p.lead:
		case <-ctx.Done():
			q.mu.Lock()
			if !p.taken && !p.leading {
				q.remove(p)
				q.mu.Unlock()
				return ctx.Err()
			}
			q.mu.Unlock()
			select {
			case <-p.done:
				return p.err
			case <-p.lead:
			}
		}
	}
	s.runBatch()
	<-p.done
	return p.err
}

// remove takes p out of the queue. The caller holds q.mu.
func (q *writes) remove(p *pending) {
	for i, x := range q.queue {
		if x == p {
			q.queue = append(q.queue[:i], q.queue[i+1:]...)
			return
		}
	}
}

// runBatch takes the writes at the head of the queue (the caller's is the
// first) into one batch, commits it, and hands the next batch to the first
// write still waiting.
func (s *Store) runBatch() {
	q := &s.writes
	q.mu.Lock()
	n := min(len(q.queue), maxBatch)
	batch := make([]*pending, n)
	copy(batch, q.queue)
	q.queue = append(q.queue[:0], q.queue[n:]...)
	for _, p := range batch {
		p.taken = true
	}
	q.mu.Unlock()

	s.commit(batch)

	q.mu.Lock()
	if len(q.queue) > 0 {
		next := q.queue[0]
		next.leading = true
		close(next.lead)
	} else {
		q.running = false
	}
	q.mu.Unlock()
}

// commit runs batch in one transaction, trying again while the file is
// busy, and finishes each write with its outcome. A write whose caller's
// ctx has ended is dropped before each try (the try in progress is
// abandoned for it, and made again without it).
func (s *Store) commit(batch []*pending) {
	wait := retryMin
	var last error // the last busy try's error
	for {
		live := batch[:0]
		for _, p := range batch {
			if p.ctx.Err() != nil {
				p.finish(gaveUp(p.ctx, last))
				continue
			}
			live = append(live, p)
		}
		batch = live
		if len(batch) == 0 {
			return
		}
		ctx, stop := anyDone(batch)
		errs, err := s.try(ctx, batch)
		if err == nil {
			stop()
			for i, p := range batch {
				p.finish(errs[i])
			}
			return
		}
		switch {
		case ctx.Err() != nil:
			stop()
			continue // a caller gave up (the error says no more): the others try again at once
		case !busy(err):
			stop()
			for _, p := range batch {
				p.finish(err)
			}
			return
		}
		last = err
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
		case <-t.C:
		}
		t.Stop()
		stop()
		wait = min(2*wait, retryMax)
	}
}

// gaveUp is the error of a write whose caller's ctx ended, after the last
// try's error err (nil if none was made).
func gaveUp(ctx context.Context, err error) error {
	switch {
	case err == nil || errors.Is(err, context.Canceled):
		return ctx.Err()
	case busy(err):
		return fmt.Errorf("%w (the file stayed busy: %w)", ctx.Err(), err)
	}
	return fmt.Errorf("%w (%w)", ctx.Err(), err)
}

// anyDone returns a context cancelled as soon as the ctx of any write of
// batch is, and a function that releases it.
func anyDone(batch []*pending) (context.Context, func()) {
	ctx, cancel := context.WithCancel(context.Background())
	stops := make([]func() bool, len(batch))
	for i, p := range batch {
		stops[i] = context.AfterFunc(p.ctx, cancel)
	}
	return ctx, func() {
		for _, stop := range stops {
			stop()
		}
		cancel()
	}
}

// try makes one transaction of batch: each write in a savepoint of its
// own, undone alone if it fails. It returns each write's error, or the
// transaction's when it did not commit. A lone write needs no savepoint:
// its error is the transaction's.
func (s *Store) try(ctx context.Context, batch []*pending) ([]error, error) {
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	errs := make([]error, len(batch))
	lone := len(batch) == 1
	exec := func(query string) error {
		_, err := tx.ExecContext(ctx, query)
		return err
	}
	for i, p := range batch {
		if !lone {
			if err := exec(`SAVEPOINT write`); err != nil {
				return nil, errors.Join(err, tx.Rollback())
			}
		}
		err := p.fn(ctx, tx)
		if err != nil && (lone || busy(err) || ctx.Err() != nil) {
			return nil, errors.Join(err, tx.Rollback())
		}
		if !lone {
			if err != nil {
				if rerr := exec(`ROLLBACK TO write`); rerr != nil {
					return nil, errors.Join(rerr, tx.Rollback())
				}
			}
			if rerr := exec(`RELEASE write`); rerr != nil {
				return nil, errors.Join(rerr, tx.Rollback())
			}
		}
		errs[i] = err
	}
	return errs, tx.Commit()
}

// read runs fn in a read transaction: every query in it sees one snapshot.
func (s *Store) read(ctx context.Context, fn func(*sql.Tx) error) error {
	return retry(ctx, func() error {
		tx, err := s.r.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		if err := fn(tx); err != nil {
			_ = tx.Rollback()
			return err
		}
		return tx.Commit()
	})
}

// retry calls try until it succeeds, fails with an error other than busy,
// or ctx is done (then the error wraps ctx.Err()).
func retry(ctx context.Context, try func() error) error {
	wait := retryMin
	for {
		err := try()
		if err == nil || !busy(err) {
			if err != nil && ctx.Err() != nil && !errors.Is(err, ctx.Err()) {
				return fmt.Errorf("%w (%w)", ctx.Err(), err)
			}
			return err
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("%w (the file stayed busy: %w)", ctx.Err(), err)
		case <-t.C:
		}
		wait = min(2*wait, retryMax)
	}
}

// busy reports whether err is SQLite's "database is busy" or "locked",
// which a later try may not meet.
func busy(err error) bool {
	var se *sqlite.Error
	if !errors.As(err, &se) {
		return false
	}
	code := se.Code() & 0xff
	return code == sqlite3.SQLITE_BUSY || code == sqlite3.SQLITE_LOCKED
}
