// Package store is what a session store implements, as database/sql/driver
// is beside database/sql: a host opens sessions with package session and
// picks a store; whoever writes a store reads this package.
//
// A [Store] keeps, for each session id, an append-only log of every message
// the session was given ([Record] values, Seq dense from 1) and the list of
// its compactions ([Compaction] values); the live history is derived from
// the two. A store shared by processes is also a [Leaser], so that each
// session compacts in one place at a time under a fenced [Lease]; a
// [Searcher] finds logged messages by their [SearchText] through an index;
// a [Spender] reads what a session was billed without reading its
// compactions. A store that can forget is a [Deleter] (a session whole,
// leaving a tombstone: calls on it fail with [ErrDeleted]), an [Expirer]
// (the folded records and idle sessions a [Retention] no longer keeps) and
// a [Rewriter] (folded records rewritten in place, for redaction at rest).
// The errors a store returns wrap the sentinels here
// ([ErrInvalidID], [ErrInvalidRange], [ErrConflict], [ErrLeaseLost],
// [ErrStaleFence], [ErrNotFound], [ErrBusy], [ErrCorrupt], [ErrDeleted],
// [ErrExpired]), and
// [CheckID], [CheckRange], [CheckCompaction] and [CheckLease] refuse
// exactly what the built-in stores refuse, so that a store of your own
// refuses the same. A compaction's input stays readable as a snapshot
// named by [SnapshotID].
//
// [Memory] keeps everything in memory, for tests and single processes;
// packages session/sqlitestore and session/pgstore keep it on disk, and
// package session/storetest proves that an implementation keeps the rules
// written on [Store], [Leaser], [Searcher], [Spender], [Deleter],
// [Expirer] and [Rewriter]:
//
//	func TestMyStore(t *testing.T) {
//		storetest.Run(t, func(t *testing.T) store.Store { return mystore.Open(t.TempDir()) })
//	}
//
// This package imports nothing of package session; session imports it.
package store
