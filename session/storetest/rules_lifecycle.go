package storetest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/session/store"
)

// Sizes of the archive the retention and rewrite rules build: more records
// than a store with a lazily built search index (sqlitestore's, pgstore's)
// leaves to a scan, so that the index is exercised too.
const (
	archived     = 300 // records appended
	foldedFrom   = 2   // the compaction folds these...
	foldedTo     = 290 // ...through these
	archivedLive = 295 // and takes in the log through this one
)

// age is what the retention rules wait before they expire what they
// appended, and older the age they expire it at.
const (
	age   = 300 * time.Millisecond
	older = 200 * time.Millisecond
)

var lifecycleRules = []rule{
	{
		name:        "delete-is-whole-and-final",
		deleter:     true,
		explanation: "a user asked to be forgotten: after Delete nothing of the session can be read, and every call a process still holding it makes fails with ErrDeleted instead of writing the session back",
		check: func(ctx context.Context, st store.Store, id string) error {
			if err := archive(ctx, st, id); err != nil {
				return err
			}
			other := id + "-kept"
			if _, err := appendAll(ctx, st, other, text("kept", 3)...); err != nil {
				return err
			}
			if err := st.(store.Deleter).Delete(ctx, id); err != nil {
				return fmt.Errorf("store.Delete: %w", err)
			}
			errs := callAll(ctx, st, id)
			for _, name := range sortedKeys(errs) {
				err := errs[name]
				switch name {
				case "Release", "Delete":
					if err != nil {
						return fmt.Errorf("%s of a deleted session: %v, want nil", name, err)
					}
				default:
					if !errors.Is(err, store.ErrDeleted) {
						return fmt.Errorf("%s of a deleted session: %v, want an error wrapping ErrDeleted", name, err)
					}
				}
			}
			if recs, err := st.Read(ctx, other, 1, 0); err != nil || len(recs) != 3 {
				return fmt.Errorf("another session after a Delete: %d records, %v; want its 3", len(recs), err)
			}
			return nil
		},
	},
	{
		name:        "delete-of-an-unknown-id-is-final",
		deleter:     true,
		explanation: "a Delete that reaches the store before the session's first Append still wins: the Append that follows fails with ErrDeleted",
		check: func(ctx context.Context, st store.Store, id string) error {
			if err := st.(store.Deleter).Delete(ctx, id); err != nil {
				return fmt.Errorf("store.Delete of an unknown session: %w", err)
			}
			if _, _, err := st.Append(ctx, id, text("late", 1)...); !errors.Is(err, store.ErrDeleted) {
				return fmt.Errorf("store.Append after Delete: %v, want an error wrapping ErrDeleted", err)
			}
			return nil
		},
	},
	{
		name:        "delete-waits-for-the-lease",
		deleter:     true,
		leaser:      true,
		explanation: "a compaction in flight is not torn in half: Delete is refused with ErrBusy, changing nothing, while another holder's lease is unexpired, and the holder finds the session deleted once it is",
		check: func(ctx context.Context, st store.Store, id string) error {
			l, d := st.(store.Leaser), st.(store.Deleter)
			if _, err := appendAll(ctx, st, id, text("m", 4)...); err != nil {
				return err
			}
			lease, err := l.Acquire(ctx, id, leaseTTL)
			if err != nil {
				return fmt.Errorf("store.Acquire: %w", err)
			}
			if err := d.Delete(ctx, id); !errors.Is(err, store.ErrBusy) {
				return fmt.Errorf("store.Delete under another's lease: %v, want an error wrapping ErrBusy", err)
			}
			if err := commit(ctx, st, id, 1, 4, text("live", 1), lease); err != nil {
				return fmt.Errorf("the holder's commit after a refused Delete: %w", err)
			}
			if err := l.Release(ctx, id, lease); err != nil {
				return fmt.Errorf("store.Release: %w", err)
			}
			if err := d.Delete(ctx, id); err != nil {
				return fmt.Errorf("store.Delete once released: %w", err)
			}
			if _, err := l.Renew(ctx, id, lease, leaseTTL); !errors.Is(err, store.ErrDeleted) {
				return fmt.Errorf("store.Renew after Delete: %v, want an error wrapping ErrDeleted", err)
			}
			if _, err := l.Acquire(ctx, id, leaseTTL); !errors.Is(err, store.ErrDeleted) {
				return fmt.Errorf("store.Acquire after Delete: %v, want an error wrapping ErrDeleted", err)
			}
			return nil
		},
	},
	{
		name:        "expire-drops-only-old-folded-records",
		expirer:     true,
		explanation: "retention keeps the live history whole: Expire deletes the records a compaction folded that are older than the age, never a record the live history holds or a newer one, and a search no longer finds what it deleted",
		check: func(ctx context.Context, st store.Store, id string) error {
			live, err := archiveLive(ctx, st, id)
			if err != nil {
				return err
			}
			time.Sleep(age)
			if _, err := appendAll(ctx, st, id, text("fresh", 1)...); err != nil {
				return err
			}
			got, err := st.(store.Expirer).Expire(ctx, store.Retention{Folded: older, Prefix: id})
			if err != nil {
				return fmt.Errorf("store.Expire: %w", err)
			}
			if want := int64(foldedTo - foldedFrom + 1); got.Records != want || got.Sessions != 0 {
				return fmt.Errorf("store.Expire deleted %+v, want %d records and no session", got, want)
			}
			recs, err := st.Read(ctx, id, 1, 0)
			if err != nil {
				return fmt.Errorf("store.Read: %w", err)
			}
			var want []int64
			for q := int64(1); q <= archived+1; q++ {
				if q < foldedFrom || q > foldedTo {
					want = append(want, q)
				}
			}
			if !slices.Equal(seqs(recs), want) {
				return fmt.Errorf("records after Expire: %v, want every record but %d-%d", seqs(recs), foldedFrom, foldedTo)
			}
			msgs, _, _, err := st.Live(ctx, id)
			if err != nil {
				return fmt.Errorf("store.Live: %w", err)
			}
			if err := sameMessages("live history after Expire", append(live, text("fresh", 1)...), msgs); err != nil {
				return err
			}
			if _, err := st.Snapshot(ctx, store.SnapshotID(id, 1)); !errors.Is(err, store.ErrExpired) {
				return fmt.Errorf("store.Snapshot of a compaction whose input expired: %v, want an error wrapping ErrExpired", err)
			}
			if s, ok := st.(store.Searcher); ok {
				hits, err := s.Search(ctx, id, "archived 150 ", 0, 0)
				if err != nil || len(hits) != 0 {
					return fmt.Errorf("store.Search for an expired record: %v, %v; want nothing", seqs(hits), err)
				}
				hits, err = s.Search(ctx, id, "archived 292 ", 0, 0)
				if err != nil || !slices.Equal(seqs(hits), []int64{292}) {
					return fmt.Errorf("store.Search for a kept record: %v, %v; want [292]", seqs(hits), err)
				}
			}
			return nil
		},
	},
	{
		name:        "expire-drops-idle-sessions",
		expirer:     true,
		explanation: "a session idle past the age is deleted whole, as Delete deletes it, while a session used since, or leased, is kept; Expire keeps to the sessions Prefix names",
		check: func(ctx context.Context, st store.Store, id string) error {
			idle, busy, leased := id+"/idle", id+"/busy", id+"/leased"
			for _, s := range []string{idle, busy, leased} {
				if _, err := appendAll(ctx, st, s, text("m", 2)...); err != nil {
					return err
				}
			}
			keep := 2 // busy and leased
			if l, ok := st.(store.Leaser); ok {
				if _, err := l.Acquire(ctx, leased, leaseTTL); err != nil {
					return fmt.Errorf("store.Acquire: %w", err)
				}
			} else {
				keep, leased = 1, ""
			}
			time.Sleep(age)
			if _, err := appendAll(ctx, st, busy, text("again", 1)...); err != nil {
				return err
			}
			e := st.(store.Expirer)
			got, err := e.Expire(ctx, store.Retention{Idle: older, Prefix: id + "/"})
			if err != nil {
				return fmt.Errorf("store.Expire: %w", err)
			}
			if got.Sessions != 1 {
				return fmt.Errorf("store.Expire deleted %+v, want 1 session (the idle one of %d)", got, keep+1)
			}
			if _, _, _, err := st.Live(ctx, idle); !errors.Is(err, store.ErrDeleted) {
				return fmt.Errorf("store.Live of the idle session: %v, want an error wrapping ErrDeleted", err)
			}
			for _, s := range []string{busy, leased} {
				if s == "" {
					continue
				}
				if recs, err := st.Read(ctx, s, 1, 0); err != nil || len(recs) < 2 {
					return fmt.Errorf("session %q after Expire: %d records, %v; want it kept", s, len(recs), err)
				}
			}
			return nil
		},
	},
	{
		name:        "rewrite-only-folded-records",
		rewriter:    true,
		explanation: "redaction at rest rewrites what the model no longer reads verbatim and nothing else: Rewrite replaces folded records, which Read and Search then see, and refuses, changing nothing, a batch holding a record the live history reads",
		check: func(ctx context.Context, st store.Store, id string) error {
			live, err := archiveLive(ctx, st, id)
			if err != nil {
				return err
			}
			rw := st.(store.Rewriter)
			clean := compact.Message{Role: compact.RoleUser, Content: "rewritten [REDACTED]"}
			err = rw.Rewrite(ctx, id, []store.Record{{Seq: 150, Message: clean}, {Seq: archivedLive, Message: clean}})
			if !errors.Is(err, store.ErrInvalidRange) {
				return fmt.Errorf("store.Rewrite of a record the live history reads: %v, want an error wrapping ErrInvalidRange", err)
			}
			if recs, err := st.Read(ctx, id, 150, 150); err != nil || len(recs) != 1 || recs[0].Message.Content != "archived 150 secret-150" {
				return fmt.Errorf("record 150 after a refused Rewrite: %+v, %v; want it unchanged", recs, err)
			}
			before, err := st.Read(ctx, id, 150, 150)
			if err != nil {
				return fmt.Errorf("store.Read: %w", err)
			}
			if err := rw.Rewrite(ctx, id, []store.Record{{Seq: 150, Message: clean}}); err != nil {
				return fmt.Errorf("store.Rewrite of a folded record: %w", err)
			}
			recs, err := st.Read(ctx, id, 150, 150)
			if err != nil || len(recs) != 1 {
				return fmt.Errorf("store.Read of the rewritten record: %d records, %v", len(recs), err)
			}
			if err := sameMessage(clean, recs[0].Message); err != nil {
				return fmt.Errorf("the rewritten record: %w", err)
			}
			if !recs[0].At.Equal(before[0].At) {
				return fmt.Errorf("the rewritten record's At moved from %v to %v", before[0].At, recs[0].At)
			}
			if s, ok := st.(store.Searcher); ok {
				if hits, err := s.Search(ctx, id, "secret-150", 0, 0); err != nil || len(hits) != 0 {
					return fmt.Errorf("store.Search for the text rewritten away: %v, %v; want nothing", seqs(hits), err)
				}
				if hits, err := s.Search(ctx, id, "rewritten [redacted]", 0, 0); err != nil || !slices.Equal(seqs(hits), []int64{150}) {
					return fmt.Errorf("store.Search for the new text: %v, %v; want [150]", seqs(hits), err)
				}
			}
			msgs, _, _, err := st.Live(ctx, id)
			if err != nil {
				return fmt.Errorf("store.Live: %w", err)
			}
			return sameMessages("live history after Rewrite", live, msgs)
		},
	},
}

// archive gives session id a log, a compaction and (on a Leaser) a
// released lease: something of every kind a store keeps.
func archive(ctx context.Context, st store.Store, id string) error {
	_, err := archiveLive(ctx, st, id)
	if err != nil {
		return err
	}
	if l, ok := st.(store.Leaser); ok {
		lease, err := l.Acquire(ctx, id, leaseTTL)
		if err != nil {
			return fmt.Errorf("store.Acquire: %w", err)
		}
		return l.Release(ctx, id, lease)
	}
	return nil
}

// archiveLive appends the archive's records to session id, each holding
// "secret-<seq>", searches it once (so that a store indexing lazily
// indexes it) and commits a compaction folding foldedFrom to foldedTo; it
// returns the live history.
func archiveLive(ctx context.Context, st store.Store, id string) ([]compact.Message, error) {
	msgs := make([]compact.Message, archived)
	for i := range msgs {
		msgs[i] = compact.Message{Role: compact.RoleUser, Content: fmt.Sprintf("archived %d secret-%d", i+1, i+1)}
	}
	if _, err := appendAll(ctx, st, id, msgs...); err != nil {
		return nil, err
	}
	if s, ok := st.(store.Searcher); ok {
		if _, err := s.Search(ctx, id, "archived 1 ", 0, 0); err != nil {
			return nil, fmt.Errorf("store.Search: %w", err)
		}
	}
	var lease store.Lease
	if l, ok := st.(store.Leaser); ok {
		var err error
		if lease, err = l.Acquire(ctx, id, leaseTTL); err != nil {
			return nil, fmt.Errorf("store.Acquire: %w", err)
		}
		defer func() { _ = l.Release(ctx, id, lease) }()
	}
	live := append([]compact.Message{msgs[0], {Role: compact.RoleUser, Content: "summary of the archive"}}, msgs[foldedTo:archivedLive]...)
	if _, err := commitFolded(ctx, st, id, store.Compaction{N: 1, Through: archivedLive, Live: live,
		FoldedFrom: foldedFrom, FoldedThrough: foldedTo}, lease); err != nil {
		return nil, err
	}
	return append(live, msgs[archivedLive:]...), nil
}
