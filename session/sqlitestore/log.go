package sqlitestore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/session/internal/codec"
	"github.com/contextkit/compact/session/store"
)

// begin checks what every method checks first: ctx, then the session id.
func begin(ctx context.Context, op, id string) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("sqlitestore: %s %q: %w", op, id, err)
	}
	if err := store.CheckID(id); err != nil {
		return fmt.Errorf("sqlitestore: %s: %w", op, err)
	}
	return nil
}

// Append adds msgs to the end of session id's log in one transaction and
// returns the number of the last, and that of the latest compaction.
func (s *Store) Append(ctx context.Context, id string, msgs ...compact.Message) (int64, int, error) {
	if err := begin(ctx, "append", id); err != nil {
		return 0, 0, err
	}
	bodies := make([][]byte, len(msgs))
	for i, m := range msgs {
		b, err := codec.Message(i, m)
		if err != nil {
			return 0, 0, fmt.Errorf("sqlitestore: append %q: %w", id, err)
		}
		bodies[i] = b
	}
	var (
		last int64
		n    int
	)
	err := s.write(ctx, func(ctx context.Context, tx *sql.Tx) error {
		var deleted bool
		if len(msgs) == 0 {
			err := tx.QueryRowContext(ctx, `SELECT last_seq, compactions, deleted FROM sessions WHERE id = ?`, id).Scan(&last, &n, &deleted)
			if errors.Is(err, sql.ErrNoRows) {
				return nil
			}
			if err == nil && deleted {
				err = store.ErrDeleted
			}
			return err
		}
		if err := tx.StmtContext(ctx, s.nextSeq).QueryRowContext(ctx, id, len(msgs)).Scan(&last, &n, &deleted); err != nil {
			return err
		}
		if deleted {
			return store.ErrDeleted // the savepoint's rollback undoes the count
		}
		at := s.now().UnixNano()
		first := last - int64(len(msgs)) + 1
		insertMessage := tx.StmtContext(ctx, s.insertMessage)
		for i := range msgs {
			if _, err := insertMessage.ExecContext(ctx, id, first+int64(i), at, string(bodies[i])); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return 0, 0, fmt.Errorf("sqlitestore: append %q: %w", id, err)
	}
	return last, n, nil
}

// Read returns the records of session id numbered from through to.
func (s *Store) Read(ctx context.Context, id string, from, to int64) ([]store.Record, error) {
	if err := begin(ctx, "read", id); err != nil {
		return nil, err
	}
	if err := store.CheckRange(from, to); err != nil {
		return nil, fmt.Errorf("sqlitestore: read %q: %w", id, err)
	}
	var recs []store.Record
	err := s.read(ctx, func(tx *sql.Tx) (err error) {
		if err := alive(ctx, tx, id); err != nil {
			return err
		}
		recs, err = records(ctx, tx, id, from, to)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("sqlitestore: read %q: %w", id, err)
	}
	return recs, nil
}

// records reads the records of session id numbered from through to (0: the
// last).
func records(ctx context.Context, tx *sql.Tx, id string, from, to int64) (_ []store.Record, err error) {
	if to == 0 {
		to = 1<<63 - 1
	}
	rows, err := tx.QueryContext(ctx, `SELECT seq, at, body FROM messages
		WHERE session = ? AND seq BETWEEN ? AND ? ORDER BY seq`, id, from, to)
	if err != nil {
		return nil, err
	}
	defer closeRows(rows, &err)
	var recs []store.Record
	for rows.Next() {
		r, err := scanRecord(rows, id)
		if err != nil {
			return nil, err
		}
		recs = append(recs, r)
	}
	return recs, rows.Err()
}

// scanRecord reads one row of seq, at, body.
func scanRecord(rows *sql.Rows, id string) (store.Record, error) {
	var (
		r    store.Record
		at   int64
		body []byte
	)
	if err := rows.Scan(&r.Seq, &at, &body); err != nil {
		return r, fmt.Errorf("session %q: a record: %w: %v", id, store.ErrCorrupt, err)
	}
	m, err := codec.DecodeMessage(body)
	if err != nil {
		return r, fmt.Errorf("session %q record %d: %w: %v", id, r.Seq, store.ErrCorrupt, err)
	}
	r.Message, r.At = m, time.Unix(0, at)
	return r, nil
}

// head is a session's row: its counters.
type head struct {
	last, through int64 // the log's last record; the latest compaction's Through
	n             int   // the latest compaction's N
}

// readHead reads session id's counters; zero for an unknown session, and
// store.ErrDeleted for a deleted one.
func readHead(ctx context.Context, tx *sql.Tx, id string) (head, error) {
	var (
		h       head
		deleted bool
	)
	err := tx.QueryRowContext(ctx, `SELECT last_seq, compactions, live_through, deleted FROM sessions WHERE id = ?`, id).
		Scan(&h.last, &h.n, &h.through, &deleted)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return head{}, nil
	case err == nil && deleted:
		return head{}, store.ErrDeleted
	}
	return h, err
}

// alive returns store.ErrDeleted for a deleted session, nil for any
// other.
func alive(ctx context.Context, tx *sql.Tx, id string) error {
	_, err := readHead(ctx, tx, id)
	return err
}

// compactionLive reads the Live and Through of compaction n of session id.
func compactionLive(ctx context.Context, tx *sql.Tx, id string, n int) ([]compact.Message, int64, error) {
	var (
		body    []byte
		through int64
	)
	err := tx.QueryRowContext(ctx, `SELECT live, through_seq FROM compactions WHERE session = ? AND n = ?`, id, n).
		Scan(&body, &through)
	if err != nil {
		return nil, 0, fmt.Errorf("session %q compaction %d: %w", id, n, err)
	}
	live, err := codec.DecodeMessages(body)
	if err != nil {
		return nil, 0, fmt.Errorf("session %q compaction %d: %w: %v", id, n, store.ErrCorrupt, err)
	}
	return live, through, nil
}

// history reads the live history just after compaction n (0: before any)
// followed by the log up to through.
func history(ctx context.Context, tx *sql.Tx, id string, n int, through int64) ([]compact.Message, error) {
	var msgs []compact.Message
	from := int64(1)
	if n > 0 {
		live, t, err := compactionLive(ctx, tx, id, n)
		if err != nil {
			return nil, err
		}
		msgs, from = live, t+1
	}
	if from > through {
		return msgs, nil
	}
	recs, err := records(ctx, tx, id, from, through)
	if err != nil {
		return nil, err
	}
	for _, r := range recs {
		msgs = append(msgs, r.Message)
	}
	return msgs, nil
}

// Live returns session id's live history, the number of the last record in
// it and of the latest compaction, from one snapshot of the file.
func (s *Store) Live(ctx context.Context, id string) ([]compact.Message, int64, int, error) {
	if err := begin(ctx, "live", id); err != nil {
		return nil, 0, 0, err
	}
	var (
		msgs []compact.Message
		h    head
	)
	err := s.read(ctx, func(tx *sql.Tx) (err error) {
		if h, err = readHead(ctx, tx, id); err != nil {
			return err
		}
		msgs, err = history(ctx, tx, id, h.n, h.last)
		return err
	})
	if err != nil {
		return nil, 0, 0, fmt.Errorf("sqlitestore: live %q: %w", id, err)
	}
	return msgs, h.last, h.n, nil
}

// Snapshot returns the history compaction n of a session read, for sid =
// store.SnapshotID(id, n).
func (s *Store) Snapshot(ctx context.Context, sid string) ([]compact.Message, error) {
	id, n, ok := store.ParseSnapshotID(sid)
	if !ok {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("sqlitestore: snapshot %q: %w", sid, err)
		}
		return nil, fmt.Errorf("sqlitestore: snapshot: %w: %q is not a snapshot id", store.ErrInvalidID, sid)
	}
	if err := begin(ctx, "snapshot", id); err != nil {
		return nil, err
	}
	var msgs []compact.Message
	err := s.read(ctx, func(tx *sql.Tx) error {
		if err := alive(ctx, tx, id); err != nil {
			return err
		}
		var from, through, kept int64
		err := tx.QueryRowContext(ctx, `SELECT from_seq, through_seq,
			(SELECT count(*) FROM messages m WHERE m.session = c.session AND m.seq BETWEEN c.from_seq AND c.through_seq)
			FROM compactions c WHERE session = ? AND n = ?`, id, n).Scan(&from, &through, &kept)
		if errors.Is(err, sql.ErrNoRows) {
			return store.ErrNotFound
		}
		if err != nil {
			return err
		}
		if from <= through && kept < through-from+1 {
			return fmt.Errorf("%w: %d of records %d to %d", store.ErrExpired, through-from+1-kept, from, through)
		}
		msgs, err = history(ctx, tx, id, n-1, through)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("sqlitestore: snapshot %q: %w", sid, err)
	}
	return msgs, nil
}

// closeRows closes rows and keeps the first error: *err's, or Close's.
func closeRows(rows *sql.Rows, err *error) {
	if cerr := rows.Close(); *err == nil && cerr != nil {
		*err = cerr
	}
}
