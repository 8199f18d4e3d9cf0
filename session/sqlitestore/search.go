package sqlitestore

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/contextkit/compact/session"
)

// trigram is the shortest text the FTS5 trigram index can look up.
const trigram = 3

// Search returns the records of session id after after whose
// session.SearchText contains text, ignoring case, oldest first, at most
// limit. Text of three or more ASCII characters is looked up in the trigram
// index and each candidate checked exactly; shorter or non-ASCII text (whose
// case folding SQLite and Go may see differently) is matched by reading the
// session's log.
func (s *Store) Search(ctx context.Context, id, text string, after int64, limit int) ([]session.Record, error) {
	if err := begin(ctx, "search", id); err != nil {
		return nil, err
	}
	want := strings.ToLower(text)
	var out []session.Record
	err := s.read(ctx, func(tx *sql.Tx) error {
		out = nil
		var (
			rows *sql.Rows
			err  error
		)
		if len(text) >= trigram && ascii(text) {
			// CROSS JOIN keeps the index first: left to the planner, it
			// walks the session's messages and runs the full-text query
			// once for each (47 s over 20,000 messages instead of 1 ms).
			rows, err = tx.QueryContext(ctx, `SELECT m.seq, m.at, m.body
				FROM message_text CROSS JOIN messages m ON m.rowid = message_text.rowid
				WHERE message_text MATCH ? AND m.session = ? AND m.seq > ?
				ORDER BY message_text.rowid`, phrase(text), id, after)
		} else {
			rows, err = tx.QueryContext(ctx, `SELECT seq, at, body FROM messages
				WHERE session = ? AND seq > ? ORDER BY seq`, id, after)
		}
		if err != nil {
			return err
		}
		defer rows.Close()
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

// phrase quotes text as one FTS5 phrase: with the trigram tokenizer, a
// match anywhere inside a message's text.
func phrase(text string) string {
	return `"` + strings.ReplaceAll(text, `"`, `""`) + `"`
}

func ascii(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}
