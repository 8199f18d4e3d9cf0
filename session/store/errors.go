package store

import "errors"

// Errors a caller can test with errors.Is.
var (
	// ErrBusy reports that a compaction of the same session is already
	// running (here, or under a lease another holder has on a shared
	// Store) and the caller asked not to wait for it.
	ErrBusy = errors.New("session: a compaction of this session is running")

	// ErrInvalidID reports a session id a Session cannot take: empty,
	// not valid UTF-8, holding a control character, or holding
	// SnapshotMarker, which only snapshot ids may contain.
	ErrInvalidID = errors.New("session: invalid session id")

	// ErrLeaseLost reports a lease that is no longer held: it expired or
	// was released. A commit under it is refused and nothing is changed.
	ErrLeaseLost = errors.New("session: lease lost")

	// ErrStaleFence reports a lease superseded by a later grant with a
	// greater fencing token: its holder paused past its expiry and another
	// took over. A commit under it is refused and nothing is changed.
	ErrStaleFence = errors.New("session: stale fencing token")

	// ErrConflict reports a compaction that does not follow the session's
	// latest one (its number or its range), as when two holders compacted
	// the same history on a store without leases. Nothing is changed.
	ErrConflict = errors.New("session: conflicting compaction")

	// ErrNotFound reports a snapshot that does not exist.
	ErrNotFound = errors.New("session: not found")

	// ErrInvalidRange reports a range of sequence numbers that cannot be:
	// a Read from below 1 or to below from, or a compaction's folded range
	// outside the records it covers.
	ErrInvalidRange = errors.New("session: invalid range")

	// ErrDeleted reports a session that was deleted (see Deleter): every
	// call on it fails, and nothing writes it back.
	ErrDeleted = errors.New("session: session deleted")

	// ErrExpired reports a snapshot whose input a retention policy
	// deleted in part (see Expirer).
	ErrExpired = errors.New("session: expired by retention")

	// ErrCorrupt reports a stored row a store cannot read back; the error
	// names the session and the row.
	ErrCorrupt = errors.New("session: corrupt store")
)
