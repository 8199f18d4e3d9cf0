package store

import (
	"context"
	"time"
)

// Deleter is a Store that can delete a session whole, for a user who asks
// that their conversation be forgotten.
//
// Delete removes everything the store keeps of session id (its log
// records, its compactions and so its snapshots, its search index
// entries, its spend and its lease) in one operation that happens whole
// or not at all, and keeps a tombstone in their place: from then on every
// method of the store given id fails with an error wrapping ErrDeleted
// (Release does nothing), so that a process still holding the session
// learns it on its next call and never writes the session back into
// existence. The id is not reused. Delete refuses, changing nothing, with
// a *LeaseHeldError (which wraps ErrBusy) while another holder's lease on
// the session is unexpired: a compaction in flight commits or lapses
// first, and then its holder finds the session deleted. Deleting a session
// deleted already, or one the store never saw, succeeds (the unknown id is
// tombstoned too).
type Deleter interface {
	Delete(ctx context.Context, id string) error
}

// Retention says what an Expirer deletes. A zero age deletes nothing of
// its kind.
type Retention struct {
	// Folded is the age past which a log record that a compaction has
	// folded (one within the FoldedFrom-FoldedThrough range of one of its
	// session's compactions) is deleted, by the time the store appended
	// it. A folded record is never part of the live history, which the
	// compaction's Live and the records after its Through make up, so
	// the live history is never touched.
	Folded time.Duration
	// Idle is the age past which a whole session is deleted, as Delete
	// deletes it, when nothing was appended to it or committed for it
	// since and no unexpired lease is held on it.
	Idle time.Duration
	// Prefix, when set, limits the policy to the sessions whose id starts
	// with it (a tenant's, say); "" means every session.
	Prefix string
}

// Expired counts what an Expire deleted.
type Expired struct {
	Records  int64 // folded records deleted
	Sessions int   // idle sessions deleted
}

// Expirer is a Store that can delete what a retention policy no longer
// keeps, across all its sessions. A host schedules Expire (once a day,
// say); cmd/compact's "store expire" runs it against a store's DSN.
//
// Expire deletes, each session in one transaction of its own, the folded
// records older than r.Folded (their search index entries with them) and
// the sessions idle past r.Idle (leaving tombstones, as Delete does), and
// returns what it deleted, the partial count included when it fails
// midway. Once a record has expired, Read and Search skip it (the log's
// numbers are not reused, so a gap in a Read says what expired), and a
// Snapshot that needs it fails with an error wrapping ErrExpired.
type Expirer interface {
	Expire(ctx context.Context, r Retention) (Expired, error)
}

// Rewriter is a Store that can rewrite folded records in place, for a host
// that keeps no secret at rest once the model no longer reads it verbatim
// (see WithRedactFolded).
//
// Rewrite replaces the Message of each of recs, by Seq, in session id's
// log, and what Search matches for it, all or nothing, keeping each
// record's Seq and At. It refuses, changing nothing, with an error
// wrapping ErrInvalidRange, a record that no compaction of the session
// has folded: the live history stays verbatim. A record that expired is
// skipped.
type Rewriter interface {
	Rewrite(ctx context.Context, id string, recs []Record) error
}
