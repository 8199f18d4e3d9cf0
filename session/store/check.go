package store

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"time"
)

// The checks every Store makes the same way, exported so that a store in
// another package (ours or a host's) refuses exactly what Memory does.

// CheckRange reports why from and to cannot bound a Read (an error wrapping
// ErrInvalidRange), or nil.
func CheckRange(from, to int64) error {
	switch {
	case from < 1:
		return fmt.Errorf("%w: from %d is below 1", ErrInvalidRange, from)
	case to != 0 && to < from:
		return fmt.Errorf("%w: to %d is below from %d", ErrInvalidRange, to, from)
	}
	return nil
}

// CheckCompaction reports why c cannot follow prev, the session's latest
// compaction (zero when there is none), on a log whose last record is
// numbered last: an error wrapping ErrConflict, or ErrInvalidRange for a
// folded range that cannot be, or nil. It ignores c.From, which the store
// sets to prev.Through+1.
func CheckCompaction(prev, c Compaction, last int64) error {
	switch {
	case c.FoldedFrom == 0 && c.FoldedThrough == 0:
	case c.FoldedFrom < 1 || c.FoldedThrough < c.FoldedFrom || c.FoldedThrough > c.Through:
		return fmt.Errorf("%w: compaction %d folds records %d to %d, which is not a range within 1 to %d",
			ErrInvalidRange, c.N, c.FoldedFrom, c.FoldedThrough, c.Through)
	}
	switch {
	case c.N != prev.N+1:
		return fmt.Errorf("%w: compaction %d does not follow compaction %d", ErrConflict, c.N, prev.N)
	case c.Through < prev.Through:
		return fmt.Errorf("%w: compaction %d ends at record %d, before compaction %d's %d",
			ErrConflict, c.N, c.Through, prev.N, prev.Through)
	case c.Through > last:
		return fmt.Errorf("%w: compaction %d ends at record %d, past the log's last, %d", ErrConflict, c.N, c.Through, last)
	}
	return nil
}

// CheckLease reports why held, the session's latest grant (with an empty ID
// once released; zero when the session was never leased), does not let
// lease's holder write at now, by the store's clock: an error wrapping
// ErrStaleFence or ErrLeaseLost, or nil. A zero lease on a session never
// leased may write: a Session whose store is not a Leaser commits under
// one.
func CheckLease(held, lease Lease, now time.Time) error {
	switch {
	case lease.Fence == 0 && held.Fence == 0:
		return nil
	case lease.Fence < held.Fence:
		return fmt.Errorf("%w: fence %d, superseded by %d", ErrStaleFence, lease.Fence, held.Fence)
	case lease.Fence > held.Fence || held.ID == "" || held.ID != lease.ID:
		return fmt.Errorf("%w: fence %d is not held", ErrLeaseLost, lease.Fence)
	case !now.Before(held.Expires):
		return fmt.Errorf("%w: fence %d expired at %s", ErrLeaseLost, lease.Fence, held.Expires.Format(time.RFC3339Nano))
	}
	return nil
}

// LeaseHeldError reports a lease Acquire could not grant because another
// holder has it. It unwraps to ErrBusy.
type LeaseHeldError struct {
	Fence   int64     // the holder's fence
	Expires time.Time // when the holder's lease lapses unless renewed
}

// Error says until when the lease is held.
func (e *LeaseHeldError) Error() string {
	return fmt.Sprintf("lease held under fence %d until %s", e.Fence, e.Expires.Format(time.RFC3339Nano))
}

// Unwrap returns ErrBusy.
func (e *LeaseHeldError) Unwrap() error { return ErrBusy }

// NewLeaseID returns a random lease id: 128 bits in hex, so a holder's id
// cannot be guessed or collide.
func NewLeaseID() string {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		// crypto/rand does not fail on the platforms Go supports (Go 1.24
		// makes it fatal); fall back to the clock rather than panic.
		return fmt.Sprintf("t%x", time.Now().UnixNano())
	}
	return hex.EncodeToString(b[:])
}
