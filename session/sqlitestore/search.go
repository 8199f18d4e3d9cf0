package sqlitestore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/contextkit/compact/session"
	"github.com/contextkit/compact/session/internal/codec"
)

// trigram is the shortest text the FTS5 trigram index can look up.
const trigram = 3

// Bounds of the index's upkeep: a search that finds more than lagMax
// messages not yet indexed indexes them first, indexBatch to a transaction
// so that no write waits long behind it.
const (
	lagMax     = 256
	indexBatch = 2000
)

// Search returns the records of session id after after whose
// session.SearchText contains text, ignoring case, oldest first, at most
// limit. Text of three or more ASCII characters is looked up in the trigram
// index, then the messages appended since the index was last brought up to
// date are read, and every candidate is checked exactly; shorter or
// non-ASCII text (whose case folding SQLite and Go may see differently), or
// text holding NUL (which ends an FTS5 query), is matched by reading the
// session's log.
func (s *Store) Search(ctx context.Context, id, text string, after int64, limit int) ([]session.Record, error) {
	if err := begin(ctx, "search", id); err != nil {
		return nil, err
	}
	indexed := len(text) >= trigram && indexable(text)
	if indexed {
		if err := s.catchUp(ctx); err != nil {
			return nil, fmt.Errorf("sqlitestore: search %q: indexing: %w", id, err)
		}
	}
	want := strings.ToLower(text)
	var out []session.Record
	err := s.read(ctx, func(tx *sql.Tx) (err error) {
		out = nil
		var rows *sql.Rows
		if indexed {
			// The index up to its mark, then the log past it. CROSS JOIN
			// keeps the index the outer loop: the other way round, SQLite
			// would run the MATCH once per message of the session.
			rows, err = tx.QueryContext(ctx, `
				SELECT m.seq, m.at, m.body FROM message_text CROSS JOIN messages m ON m.rowid = message_text.rowid
				WHERE message_text MATCH ? AND m.session = ? AND m.seq > ?
				UNION ALL
				SELECT seq, at, body FROM messages
				WHERE session = ? AND seq > ? AND rowid > (SELECT indexed FROM search_index)
				ORDER BY 1`, phrase(text), id, after, id, after)
		} else {
			rows, err = tx.QueryContext(ctx, `SELECT seq, at, body FROM messages
				WHERE session = ? AND seq > ? ORDER BY seq`, id, after)
		}
		if err != nil {
			return err
		}
		defer closeRows(rows, &err)
		for (limit <= 0 || len(out) < limit) && rows.Next() {
			r, err := scanRecord(rows, id)
			if err != nil {
				return err
			}
			if strings.Contains(strings.ToLower(session.SearchText(r.Message)), want) {
				out = append(out, r)
			}
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("sqlitestore: search %q: %w", id, err)
	}
	return out, nil
}

// catchUp indexes the messages appended since the index was last brought
// up to date, if there are more than lagMax of them.
func (s *Store) catchUp(ctx context.Context) error {
	var lag int64
	err := s.read(ctx, func(tx *sql.Tx) error {
		return tx.QueryRowContext(ctx, `SELECT coalesce(max(rowid), 0) - (SELECT indexed FROM search_index) FROM messages`).Scan(&lag)
	})
	if err != nil || lag <= lagMax {
		return err
	}
	for done := false; !done; {
		err := s.write(ctx, func(tx *sql.Tx) error {
			var mark int64
			if err := tx.QueryRowContext(ctx, `SELECT indexed FROM search_index`).Scan(&mark); err != nil {
				return err
			}
			rows, err := tx.QueryContext(ctx, `SELECT rowid, session, seq, body FROM messages
				WHERE rowid > ? ORDER BY rowid LIMIT ?`, mark, indexBatch)
			if err != nil {
				return err
			}
			type entry struct {
				rowid int64
				text  string
			}
			var batch []entry
			for rows.Next() {
				var (
					e    entry
					sid  string
					seq  int64
					body []byte
				)
				if err := rows.Scan(&e.rowid, &sid, &seq, &body); err != nil {
					return errors.Join(err, rows.Close())
				}
				m, err := codec.DecodeMessage(body)
				if err != nil {
					return errors.Join(fmt.Errorf("session %q record %d: %w: %v", sid, seq, session.ErrCorrupt, err), rows.Close())
				}
				e.text = session.SearchText(m)
				batch = append(batch, e)
			}
			if err := errors.Join(rows.Err(), rows.Close()); err != nil {
				return err
			}
			done = len(batch) < indexBatch
			for _, e := range batch {
				if _, err := tx.ExecContext(ctx, `INSERT INTO message_text (rowid, text) VALUES (?, ?)`, e.rowid, e.text); err != nil {
					return err
				}
				mark = e.rowid
			}
			_, err = tx.ExecContext(ctx, `UPDATE search_index SET indexed = ?`, mark)
			return err
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// phrase quotes text as one FTS5 phrase: with the trigram tokenizer, a
// match anywhere inside a message's text.
func phrase(text string) string {
	return `"` + strings.ReplaceAll(text, `"`, `""`) + `"`
}

// indexable reports whether the index can look s up: ASCII without NUL.
func indexable(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == 0 || s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}
