package pgstore

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/session/internal/codec"
	"github.com/contextkit/compact/session/store"
	"github.com/jackc/pgx/v5"
)

// begin checks what every method checks first: ctx, then the session id.
func begin(ctx context.Context, op, id string) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("pgstore: %s %q: %w", op, id, err)
	}
	if err := store.CheckID(id); err != nil {
		return fmt.Errorf("pgstore: %s: %w", op, err)
	}
	return nil
}

// fail wraps err from op on session id, making sure an error caused by
// ctx says so.
func fail(ctx context.Context, op, id string, err error) error {
	if ctx.Err() != nil && !errors.Is(err, ctx.Err()) {
		return fmt.Errorf("pgstore: %s %q: %w (%w)", op, id, ctx.Err(), err)
	}
	return fmt.Errorf("pgstore: %s %q: %w", op, id, err)
}

// searchText is what the search table holds for m: its SearchText lower-
// cased, as valid UTF-8 without NUL, which Postgres text cannot hold. It
// only narrows the candidates: Search checks each against the message
// itself, which the body keeps byte for byte.
func searchText(m compact.Message) string {
	return postgresText(strings.ToLower(store.SearchText(m)))
}

func postgresText(s string) string {
	return strings.ReplaceAll(strings.ToValidUTF8(s, "\uFFFD"), "\x00", "")
}

// Append adds msgs to the end of session id's log in one statement and
// returns the number of the last, and that of the latest compaction.
func (s *Store) Append(ctx context.Context, id string, msgs ...compact.Message) (int64, int, error) {
	if err := begin(ctx, "append", id); err != nil {
		return 0, 0, err
	}
	var (
		last int64
		n    int
	)
	if len(msgs) == 0 {
		var deleted bool
		err := s.pool.QueryRow(ctx, s.q.lastSeq, id).Scan(&last, &n, &deleted)
		if err == nil && deleted {
			err = store.ErrDeleted
		}
		if err != nil && !errors.Is(err, pgx.ErrNoRows) {
			return 0, 0, fail(ctx, "append", id, err)
		}
		return last, n, nil
	}
	bodies := make([]string, len(msgs))
	for i, m := range msgs {
		b, err := codec.Message(i, m)
		if err != nil {
			return 0, 0, fmt.Errorf("pgstore: append %q: %w", id, err)
		}
		bodies[i] = string(b)
	}
	if err := s.pool.QueryRow(ctx, s.q.appendMsgs, id, len(msgs), bodies).Scan(&last, &n); err != nil {
		if errors.Is(err, pgx.ErrNoRows) {
			// The session's row is a tombstone: the update skipped it.
			err = store.ErrDeleted
		}
		return 0, 0, fail(ctx, "append", id, err)
	}
	return last, n, nil
}

// Read returns the records of session id numbered from through to.
func (s *Store) Read(ctx context.Context, id string, from, to int64) ([]store.Record, error) {
	if err := begin(ctx, "read", id); err != nil {
		return nil, err
	}
	if err := store.CheckRange(from, to); err != nil {
		return nil, fmt.Errorf("pgstore: read %q: %w", id, err)
	}
	if err := s.alive(ctx, s.pool, id); err != nil {
		return nil, fail(ctx, "read", id, err)
	}
	recs, err := s.records(ctx, s.pool, id, from, to)
	if err != nil {
		return nil, fail(ctx, "read", id, err)
	}
	return recs, nil
}

// querier is a pool or a transaction.
type querier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// records reads the records of session id numbered from through to (0: the
// last).
func (s *Store) records(ctx context.Context, q querier, id string, from, to int64) ([]store.Record, error) {
	if to == 0 {
		to = 1<<63 - 1
	}
	rows, err := q.Query(ctx, s.q.records, id, from, to)
	if err != nil {
		return nil, err
	}
	return collect(rows, id, nil)
}

// collect reads rows of seq, at, body into records, keeping only those keep
// accepts (all when keep is nil) and stopping when it says there is no
// need for more.
func collect(rows pgx.Rows, id string, keep func(store.Record) (keep, more bool)) ([]store.Record, error) {
	defer rows.Close()
	var recs []store.Record
	for rows.Next() {
		var (
			r    store.Record
			body string
		)
		if err := rows.Scan(&r.Seq, &r.At, &body); err != nil {
			return nil, fmt.Errorf("session %q: a record: %w: %v", id, store.ErrCorrupt, err)
		}
		m, err := codec.DecodeMessage([]byte(body))
		if err != nil {
			return nil, fmt.Errorf("session %q record %d: %w: %v", id, r.Seq, store.ErrCorrupt, err)
		}
		r.Message = m
		if keep == nil {
			recs = append(recs, r)
			continue
		}
		k, more := keep(r)
		if k {
			recs = append(recs, r)
		}
		if !more {
			break
		}
	}
	return recs, rows.Err()
}

// head is a session's row: its counters.
type head struct {
	last, through int64 // the log's last record; the latest compaction's Through
	n             int   // the latest compaction's N
}

// history reads the live history just after compaction n (0: before any)
// followed by the log up to through.
func (s *Store) history(ctx context.Context, tx pgx.Tx, id string, n int, through int64) ([]compact.Message, error) {
	var msgs []compact.Message
	from := int64(1)
	if n > 0 {
		var body string
		var t int64
		if err := tx.QueryRow(ctx, s.q.compactionLive, id, n).Scan(&body, &t); err != nil {
			return nil, fmt.Errorf("session %q compaction %d: %w", id, n, err)
		}
		live, err := codec.DecodeMessages([]byte(body))
		if err != nil {
			return nil, fmt.Errorf("session %q compaction %d: %w: %v", id, n, store.ErrCorrupt, err)
		}
		msgs, from = live, t+1
	}
	if from > through {
		return msgs, nil
	}
	recs, err := s.records(ctx, tx, id, from, through)
	if err != nil {
		return nil, err
	}
	for _, r := range recs {
		msgs = append(msgs, r.Message)
	}
	return msgs, nil
}

// snapshotTx runs fn in a read-only transaction that sees one snapshot.
func (s *Store) snapshotTx(ctx context.Context, fn func(pgx.Tx) error) error {
	return pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, fn)
}

// Live returns session id's live history, the number of the last record in
// it and of the latest compaction, from one snapshot of the database.
func (s *Store) Live(ctx context.Context, id string) ([]compact.Message, int64, int, error) {
	if err := begin(ctx, "live", id); err != nil {
		return nil, 0, 0, err
	}
	var (
		msgs []compact.Message
		h    head
	)
	err := s.snapshotTx(ctx, func(tx pgx.Tx) error {
		var deleted bool
		err := tx.QueryRow(ctx, s.q.head, id).Scan(&h.last, &h.n, &h.through, &deleted)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil
		}
		if err != nil {
			return err
		}
		if deleted {
			h = head{}
			return store.ErrDeleted
		}
		msgs, err = s.history(ctx, tx, id, h.n, h.last)
		return err
	})
	if err != nil {
		return nil, 0, 0, fail(ctx, "live", id, err)
	}
	return msgs, h.last, h.n, nil
}

// Snapshot returns the history compaction n of a session read, for sid =
// store.SnapshotID(id, n).
func (s *Store) Snapshot(ctx context.Context, sid string) ([]compact.Message, error) {
	id, n, ok := store.ParseSnapshotID(sid)
	if !ok {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("pgstore: snapshot %q: %w", sid, err)
		}
		return nil, fmt.Errorf("pgstore: snapshot: %w: %q is not a snapshot id", store.ErrInvalidID, sid)
	}
	if err := begin(ctx, "snapshot", id); err != nil {
		return nil, err
	}
	var msgs []compact.Message
	err := s.snapshotTx(ctx, func(tx pgx.Tx) error {
		if err := s.alive(ctx, tx, id); err != nil {
			return err
		}
		var from, through, kept int64
		err := tx.QueryRow(ctx, s.q.compactionThrough, id, n).Scan(&from, &through, &kept)
		if errors.Is(err, pgx.ErrNoRows) {
			return store.ErrNotFound
		}
		if err != nil {
			return err
		}
		if from <= through && kept < through-from+1 {
			return fmt.Errorf("%w: %d of records %d to %d", store.ErrExpired, through-from+1-kept, from, through)
		}
		msgs, err = s.history(ctx, tx, id, n-1, through)
		return err
	})
	if err != nil {
		return nil, fail(ctx, "snapshot", sid, err)
	}
	return msgs, nil
}
