package sqlitestore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
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

// write runs fn in an IMMEDIATE transaction, retrying while SQLite reports
// the file busy or locked, until ctx is done.
func (s *Store) write(ctx context.Context, fn func(*sql.Tx) error) error {
	return retry(ctx, func() error { return inTx(ctx, s.w, fn) })
}

// read runs fn in a read transaction: every query in it sees one snapshot.
func (s *Store) read(ctx context.Context, fn func(*sql.Tx) error) error {
	return retry(ctx, func() error { return inTx(ctx, s.r, fn) })
}

func inTx(ctx context.Context, db *sql.DB, fn func(*sql.Tx) error) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := fn(tx); err != nil {
		_ = tx.Rollback()
		return err
	}
	return tx.Commit()
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
