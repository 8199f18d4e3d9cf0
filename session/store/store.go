package store

import (
	"context"
	"time"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/models"
)

// Store keeps sessions durably: for each session id an append-only log of
// every message the session was given (the archive), and the list of its
// compactions. The live history, the next request, is derived from the two:
// the Live of the latest compaction followed by every logged message after
// that compaction's Through, or the whole log when there has been none. A
// compaction never deletes or edits the log, so every message a summary
// folded stays readable verbatim, and messages appended while a compaction
// runs (on any process or host) land after the compacted history, in log
// order.
//
// An implementation must keep these rules; package session/storetest checks
// them:
//   - It is safe for concurrent use, from many goroutines and, for a store
//     shared by processes or hosts, from all of them at once.
//   - Every method refuses a session id that Open refuses (and a snapshot id
//     where a session id is expected) with an error wrapping ErrInvalidID,
//     and honours ctx, returning an error wrapping ctx.Err() when it gives
//     up.
//   - It never keeps or modifies a slice or message it is given, nor hands
//     out one it keeps: what goes in and what comes out are copies.
//   - It keeps every message verbatim: each string of each field (content,
//     parts, names, tool calls and their arguments, ids) byte for byte,
//     NUL bytes and bytes that are not valid UTF-8 included, which JSON
//     alone would turn into U+FFFD. Read, Live, Snapshot, Compactions and
//     Search give back exactly what Append and Commit were given, so a
//     history reads the same after a restart as before it. (A message
//     with both Content and MultiContent set, which no provider accepts,
//     may be refused, naming its index.)
//   - Append adds msgs to the end of the session's log, in order and all or
//     nothing, numbering them with the next sequence numbers (the first
//     message of a session is 1, and numbers are dense), and returns the
//     number of the last and n, the number of the latest compaction (0 when
//     there is none), read atomically with it: a Session compares the two
//     with its own copy of the history to notice what other processes
//     appended or compacted. Concurrent appends to one session never
//     interleave within one call and never share a number. Nothing is
//     overwritten. An empty Append appends nothing and reports the same.
//   - Read returns the records numbered from through to, inclusive, oldest
//     first, verbatim as appended; to 0 means through the last. A range past
//     the end returns what exists. from below 1 or to below from (other
//     than 0) is refused with an error wrapping ErrInvalidRange. Records
//     a retention policy deleted (see Expirer) are skipped.
//   - Live returns the live history; through, the sequence number of the
//     last logged message it includes (0 when the log is empty); and n, the
//     number of the latest compaction (0 when there is none), all read
//     atomically: never a compaction without the log records it covers. An
//     unknown session has an empty history, through 0 and n 0.
//   - Commit records c as the session's next compaction and returns last,
//     the number of the log's last record as it committed (read atomically
//     with the commit), so that a Session knows, without reading the log
//     again, whether other processes appended meanwhile. It refuses, with
//     nothing changed, an error wrapping ErrLeaseLost or ErrStaleFence when
//     the store is a Leaser and lease is no longer held or has been
//     superseded, an error wrapping ErrConflict when c.N is not one more
//     than the number of the latest compaction or c.Through lies before
//     that compaction's Through or past the end of the log, and an error
//     wrapping ErrInvalidRange when c's folded range is not one (see
//     CheckCompaction). The store sets c.From to one past the latest
//     compaction's Through (1 for the first), c.Fence to lease.Fence, and
//     c.At, when zero, to now; it keeps the other fields as given.
//   - Compactions returns every compaction of the session, oldest first.
//   - Snapshot takes a snapshot id, SnapshotID(id, n), and returns the live
//     history as it stood just before compaction n: the input that
//     compaction read. An unknown snapshot is an error wrapping
//     ErrNotFound; a string that is no snapshot id, one wrapping
//     ErrInvalidID.
//
// A store shared by more than one process should also be a Leaser, so that
// a session compacts in one place at a time.
type Store interface {
	Append(ctx context.Context, id string, msgs ...compact.Message) (last int64, n int, err error)
	Read(ctx context.Context, id string, from, to int64) ([]Record, error)
	Live(ctx context.Context, id string) (msgs []compact.Message, through int64, n int, err error)
	Commit(ctx context.Context, id string, c Compaction, lease Lease) (last int64, err error)
	Compactions(ctx context.Context, id string) ([]Compaction, error)
	Snapshot(ctx context.Context, sid string) ([]compact.Message, error)
}

// Record is one message of a session's log, as appended.
type Record struct {
	// Seq numbers the message in its session's log: 1 for the first
	// message, dense, never reused.
	Seq     int64
	Message compact.Message
	// At is when the store appended it, by the store's clock.
	At time.Time
}

// Compaction is one compaction of a session, as committed to its Store.
type Compaction struct {
	// N numbers the compaction within its session, from 1. The snapshot of
	// the history it compacted is SnapshotID(id, N).
	N int
	// From and Through are the sequence numbers of the log records this
	// compaction took in for the first time: From is one past the previous
	// compaction's Through (1 for the first), Through the last record in
	// its input. Every record up to Through is now either folded into the
	// summary or carried verbatim in Live; From is greater than Through
	// when a forced compaction had no new records.
	From, Through int64
	// Live is the compacted history, the engine's Result.Messages: the live
	// history starts with it until the next compaction.
	Live []compact.Message
	// FoldedFrom and FoldedThrough are the sequence numbers of the first and
	// last log records the summaries in Live stand for (a summary updated
	// from an earlier one stands for the earlier one's records too); both 0
	// when Live holds no summary. So each compaction can be audited from
	// the store alone: every record up to Through lies in this range or is
	// carried in Live (verbatim, or pruned in place), unless the compaction
	// is a Reset. A range that cannot be bounds nothing: FoldedFrom is 1 or
	// more and at most FoldedThrough, which is at most Through.
	FoldedFrom, FoldedThrough int64
	// At is when the compaction was committed.
	At time.Time
	// TokensBefore and TokensAfter are the sizes of the compaction's input
	// and of Live, as the session's counter measured them.
	TokensBefore, TokensAfter int
	// Summarizer names the summarizer whose summary was used, "" when none
	// was (pruning was enough), or ResetSummarizer for a Reset.
	Summarizer string
	// Fence is the fencing token of the lease the compaction was committed
	// under; 0 for a store that is not a Leaser. Fences of one session's
	// compactions never decrease.
	Fence int64
	// Spend is what the session had been billed when the compaction was
	// committed (see Session.Status): what the Session read from the store
	// when it opened, plus what its engine counted since. A store keeps it
	// as given; the zero Spend for a compaction committed by a version that
	// did not record it.
	Spend models.Spend
}

// ResetSummarizer is the Summarizer of the compaction a Session commits when
// it is Reset: a compaction whose Live is empty.
const ResetSummarizer = "reset"

// Leaser is a Store that can grant a lease on one session, so that
// processes and hosts sharing the store compact a session one at a time. A
// Session uses it whenever its store offers it: it acquires the lease before
// reading the history it compacts, renews it while the engine runs, and
// commits under it.
//
// An implementation must keep these rules:
//   - Acquire grants the lease on session id for ttl when no unexpired lease
//     is held on it, and otherwise fails at once with an error wrapping
//     ErrBusy (it never waits). Every grant carries a fence greater than
//     any fence granted before on that session, in any process.
//   - A lease is held until its Expires, by the store's clock, or until it
//     is released or superseded. Renew extends a lease still held to ttl
//     from now; a lease no longer held cannot be renewed (an error wrapping
//     ErrLeaseLost or ErrStaleFence).
//   - Commit under a lease no longer held is refused (see Store).
//   - Release gives up a lease still held, so that another may acquire it
//     at once; releasing a lease no longer held does nothing.
type Leaser interface {
	Acquire(ctx context.Context, id string, ttl time.Duration) (Lease, error)
	Renew(ctx context.Context, id string, lease Lease, ttl time.Duration) (Lease, error)
	Release(ctx context.Context, id string, lease Lease) error
}

// Lease is a grant of one session's compaction to one holder.
type Lease struct {
	// ID identifies the grant; only its holder knows it.
	ID string
	// Fence is the fencing token: it grows with every grant on the
	// session, so a store refuses a commit under an older one.
	Fence int64
	// Expires is when the lease lapses unless renewed, by the store's
	// clock.
	Expires time.Time
}

// Spender is a Store that can read the Spend of a session's latest
// compaction without reading the compactions: a Session opening the
// session reads what earlier processes were billed from it. Spend returns
// the zero Spend for a session without compactions, and refuses an id as
// the Store's methods do.
type Spender interface {
	Spend(ctx context.Context, id string) (models.Spend, error)
}

// Searcher is a Store that can find logged messages by their text faster
// than reading the whole log, for recall tools over a long archive.
//
// Search returns the records of session id numbered after after whose
// SearchText contains text, ignoring case (as strings.ToLower folds it,
// which also reads each byte that is not UTF-8 as U+FFFD), oldest first,
// at most limit of them (limit 0 or less means no limit). The match is
// exact: a store that uses an index checks each candidate. An empty text
// matches every record.
type Searcher interface {
	Search(ctx context.Context, id, text string, after int64, limit int) ([]Record, error)
}
