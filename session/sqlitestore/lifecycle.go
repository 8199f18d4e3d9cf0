package sqlitestore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/contextkit/compact/session/internal/codec"
	"github.com/contextkit/compact/session/store"
)

// Delete deletes session id whole in one transaction (its records and
// their search index entries, its compactions, its spend and its lease),
// leaving its row as a tombstone, unless another holder's lease on it is
// unexpired. The bytes are freed for reuse within the file; VACUUM gives
// them back to the file system.
func (s *Store) Delete(ctx context.Context, id string) error {
	if err := begin(ctx, "delete", id); err != nil {
		return err
	}
	err := s.write(ctx, func(ctx context.Context, tx *sql.Tx) error {
		if err := ensure(ctx, tx, id); err != nil {
			return err
		}
		if err := alive(ctx, tx, id); errors.Is(err, store.ErrDeleted) {
			return nil
		} else if err != nil {
			return err
		}
		held, err := readLease(ctx, tx, id)
		if err != nil {
			return err
		}
		if held.ID != "" && s.now().Before(held.Expires) {
			return &store.LeaseHeldError{Fence: held.Fence, Expires: held.Expires}
		}
		return deleteSession(ctx, tx, id)
	})
	if err != nil {
		return fmt.Errorf("sqlitestore: delete %q: %w", id, err)
	}
	return nil
}

// deleteSession deletes everything of session id and marks its row.
func deleteSession(ctx context.Context, tx *sql.Tx, id string) error {
	if err := unindex(ctx, tx, `SELECT rowid FROM messages
		WHERE session = ? AND seq <= (SELECT indexed FROM sessions WHERE id = ?)`, id, id); err != nil {
		return err
	}
	for _, q := range []string{
		`DELETE FROM messages WHERE session = ?`,
		`DELETE FROM compactions WHERE session = ?`,
		`UPDATE sessions SET deleted = 1, last_seq = 0, compactions = 0, live_through = 0, indexed = 0,
			lease_id = NULL, lease_expires = 0 WHERE id = ?`,
	} {
		if _, err := tx.ExecContext(ctx, q, id); err != nil {
			return err
		}
	}
	return nil
}

// unindex deletes from the search index the rows of the records whose
// rowids in messages query selects: each record's pieces, under rowid<<
// partBits + 0, 1, 2... (see catchUp).
func unindex(ctx context.Context, tx *sql.Tx, query string, args ...any) (err error) {
	rows, err := tx.QueryContext(ctx, query, args...)
	if err != nil {
		return err
	}
	var rowids []int64
	for rows.Next() {
		var r int64
		if err := rows.Scan(&r); err != nil {
			return errors.Join(err, rows.Close())
		}
		rowids = append(rowids, r)
	}
	if err := errors.Join(rows.Err(), rows.Close()); err != nil {
		return err
	}
	for _, r := range rowids {
		if err := unindexRecord(ctx, tx, r); err != nil {
			return err
		}
	}
	return nil
}

// unindexRecord deletes from the search index the pieces of the record
// whose rowid in messages is rowid.
func unindexRecord(ctx context.Context, tx *sql.Tx, rowid int64) error {
	_, err := tx.ExecContext(ctx, `DELETE FROM message_search WHERE rowid BETWEEN ? AND ?`,
		rowid<<partBits, (rowid+1)<<partBits-1)
	return err
}

// foldedRecord is the condition that the row m of messages was folded by
// one of its session's compactions.
const foldedRecord = `EXISTS (SELECT 1 FROM compactions c WHERE c.session = m.session
	AND c.folded_from > 0 AND m.seq BETWEEN c.folded_from AND c.folded_through)`

// Expire deletes the folded records older than r.Folded and the sessions
// idle past r.Idle, a transaction per session.
func (s *Store) Expire(ctx context.Context, r store.Retention) (store.Expired, error) {
	var out store.Expired
	if err := ctx.Err(); err != nil {
		return out, fmt.Errorf("sqlitestore: expire: %w", err)
	}
	if r.Folded <= 0 && r.Idle <= 0 {
		return out, nil
	}
	var ids []string
	err := s.read(ctx, func(tx *sql.Tx) (err error) {
		ids = nil
		rows, err := tx.QueryContext(ctx, `SELECT id FROM sessions WHERE deleted = 0 AND substr(id, 1, length(?)) = ? ORDER BY id`, r.Prefix, r.Prefix)
		if err != nil {
			return err
		}
		defer closeRows(rows, &err)
		for rows.Next() {
			var id string
			if err := rows.Scan(&id); err != nil {
				return err
			}
			ids = append(ids, id)
		}
		return rows.Err()
	})
	if err != nil {
		return out, fmt.Errorf("sqlitestore: expire: %w", err)
	}
	for _, id := range ids {
		var (
			records int64
			idle    bool
		)
		err := s.write(ctx, func(ctx context.Context, tx *sql.Tx) error {
			records, idle = 0, false
			if err := alive(ctx, tx, id); err != nil {
				return nil // deleted meanwhile
			}
			now := s.now()
			if r.Idle > 0 {
				var active int64
				if err := tx.QueryRowContext(ctx, `SELECT max(
					coalesce((SELECT at FROM messages WHERE session = s.id ORDER BY seq DESC LIMIT 1), 0),
					coalesce((SELECT max(at) FROM compactions WHERE session = s.id), 0))
					FROM sessions s WHERE id = ?`, id).Scan(&active); err != nil {
					return err
				}
				held, err := readLease(ctx, tx, id)
				if err != nil {
					return err
				}
				leased := held.ID != "" && now.Before(held.Expires)
				if !leased && active <= now.Add(-r.Idle).UnixNano() {
					idle = true
					return deleteSession(ctx, tx, id)
				}
			}
			if r.Folded <= 0 {
				return nil
			}
			cutoff := now.Add(-r.Folded).UnixNano()
			if err := unindex(ctx, tx, `SELECT rowid FROM messages m WHERE session = ? AND at < ? AND `+foldedRecord+`
				AND seq <= (SELECT indexed FROM sessions WHERE id = ?)`, id, cutoff, id); err != nil {
				return err
			}
			res, err := tx.ExecContext(ctx, `DELETE FROM messages AS m WHERE session = ? AND at < ? AND `+foldedRecord, id, cutoff)
			if err != nil {
				return err
			}
			records, err = res.RowsAffected()
			return err
		})
		if err != nil {
			return out, fmt.Errorf("sqlitestore: expire %q: %w", id, err)
		}
		out.Records += records
		if idle {
			out.Sessions++
		}
	}
	return out, nil
}

// Rewrite replaces the messages of folded records of session id, and
// their text in the search index, in one transaction.
func (s *Store) Rewrite(ctx context.Context, id string, recs []store.Record) error {
	if err := begin(ctx, "rewrite", id); err != nil {
		return err
	}
	bodies := make([]string, len(recs))
	for i, r := range recs {
		b, err := codec.Message(i, r.Message)
		if err != nil {
			return fmt.Errorf("sqlitestore: rewrite %q: %w", id, err)
		}
		bodies[i] = string(b)
	}
	tag := tagText(id)
	err := s.write(ctx, func(ctx context.Context, tx *sql.Tx) error {
		if err := alive(ctx, tx, id); err != nil {
			return err
		}
		indexed, err := indexedThrough(ctx, tx, id)
		if err != nil {
			return err
		}
		for i, r := range recs {
			var folded bool
			if err := tx.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM compactions
				WHERE session = ? AND folded_from > 0 AND ? BETWEEN folded_from AND folded_through)`, id, r.Seq).Scan(&folded); err != nil {
				return err
			}
			if !folded {
				return fmt.Errorf("%w: record %d is not folded", store.ErrInvalidRange, r.Seq)
			}
			var rowid int64
			err := tx.QueryRowContext(ctx, `UPDATE messages SET body = ? WHERE session = ? AND seq = ? RETURNING rowid`,
				bodies[i], id, r.Seq).Scan(&rowid)
			if errors.Is(err, sql.ErrNoRows) {
				continue // expired
			}
			if err != nil {
				return err
			}
			if r.Seq > indexed {
				continue
			}
			if err := unindexRecord(ctx, tx, rowid); err != nil {
				return err
			}
			if err := indexRecord(ctx, tx, rowid, tag, store.SearchText(r.Message)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("sqlitestore: rewrite %q: %w", id, err)
	}
	return nil
}

// Vacuum rebuilds the file to give the pages that deletes freed back to
// the file system (SQLite's VACUUM): run it after an Expire that deleted
// much. It needs room for a copy of the file and holds the write lock
// while it runs.
func (s *Store) Vacuum(ctx context.Context) error {
	err := retry(ctx, func() error {
		_, err := s.w.ExecContext(ctx, `VACUUM`)
		return err
	})
	if err != nil {
		return fmt.Errorf("sqlitestore: vacuum %s: %w", s.path, err)
	}
	return nil
}

var (
	_ store.Deleter  = (*Store)(nil)
	_ store.Expirer  = (*Store)(nil)
	_ store.Rewriter = (*Store)(nil)
)
