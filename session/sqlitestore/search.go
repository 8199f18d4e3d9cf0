package sqlitestore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"hash/fnv"
	"strings"
	"unicode/utf8"

	"github.com/contextkit/compact/session/internal/codec"
	"github.com/contextkit/compact/session/internal/searchpart"
	"github.com/contextkit/compact/session/store"
)

// trigram is the shortest text the FTS5 trigram index can look up.
const trigram = 3

// Bounds of the index's upkeep: a search of a session with more than
// lagMax records not yet indexed indexes them first, at most indexRows
// records or indexBytes bytes of text to a transaction, so that no write
// of any process waits long behind it.
const (
	lagMax     = 256
	indexRows  = 256
	indexBytes = 64 << 10
)

// maxTerms bounds the trigrams of a text a lookup asks the index for:
// enough to make a long text's candidates few, few enough that the lookup
// stays short.
const maxTerms = 24

// Search returns the records of session id after after whose
// store.SearchText contains text, ignoring case, oldest first, at most
// limit. Text of three or more ASCII characters is looked up in the
// session's part of the trigram index (every record of the session up to
// sessions.indexed), then the records appended since are read, and every
// candidate is checked exactly; shorter or non-ASCII text (whose case
// folding SQLite and Go may see differently), or text holding NUL (which
// ends an FTS5 query), is matched by reading the session's log.
//
// The index keeps, for each trigram, only the rowids of the texts holding
// it, and a long text as overlapping pieces (see searchpart), so that a
// candidate is a piece holding every trigram looked up, not a whole long
// text: a lookup asks for rows holding every trigram of the session's tag
// and of text's window, in rowid order, which for one session is the order
// of its records and of each record's pieces, so the lookup stops at the
// limit.
func (s *Store) Search(ctx context.Context, id, text string, after int64, limit int) ([]store.Record, error) {
	if err := begin(ctx, "search", id); err != nil {
		return nil, err
	}
	var match string // the index lookup; "" when the index cannot serve text
	if len(text) >= trigram && indexable(text) {
		match = lookup(id, text)
		if err := s.catchUp(ctx, id); err != nil {
			return nil, fmt.Errorf("sqlitestore: search %q: indexing: %w", id, err)
		}
	}
	want := strings.ToLower(text)
	var out []store.Record
	err := s.read(ctx, func(tx *sql.Tx) error {
		out = nil
		if err := alive(ctx, tx, id); err != nil {
			return err
		}
		// add reads rows of seq, at, body, keeping the matches, and reports
		// whether the search has all it wants.
		add := func(rows *sql.Rows) (full bool, err error) {
			defer closeRows(rows, &err)
			for rows.Next() {
				r, err := scanRecord(rows, id)
				if err != nil {
					return false, err
				}
				if strings.Contains(strings.ToLower(store.SearchText(r.Message)), want) {
					out = append(out, r)
					if limit > 0 && len(out) == limit {
						return true, nil
					}
				}
			}
			return false, rows.Err()
		}
		from := after // the records read after the index's
		if match != "" {
			indexed, err := indexedThrough(ctx, tx, id)
			if err != nil {
				return err
			}
			if after < indexed {
				if full, err := indexLookup(ctx, tx, id, match, after, indexed, add); full || err != nil {
					return err
				}
				from = indexed
			}
		}
		rows, err := tx.QueryContext(ctx, `SELECT seq, at, body FROM messages
			WHERE session = ? AND seq > ? ORDER BY seq`, id, from)
		if err != nil {
			return err
		}
		_, err = add(rows)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("sqlitestore: search %q: %w", id, err)
	}
	return out, nil
}

// partBits is how many low bits of a row of the index number the piece of
// its record (see searchpart): a row's rowid is the record's rowid in
// messages shifted left by partBits, plus the piece's number. Few, because
// the index keeps each trigram's rowids as differences, in fewer bytes the
// smaller they are: at most 64 pieces a text (the last of a text of more
// than 240 KiB holds the rest).
const partBits = 6

// indexLookup reads the index for the records of session id after after,
// up to indexed, that have a piece matching match, in the session's order,
// each record once, passing their rows of seq, at, body to add until add
// reports it has all it wants (full).
//
// The index is read in rowid order (a session's order: a session's
// records are only ever inserted by Append, in order), from past the
// record after, in one lookup; the pieces of one record are adjacent, so
// each record is read once, when its first matching piece comes.
func indexLookup(ctx context.Context, tx *sql.Tx, id, match string, after, indexed int64,
	add func(*sql.Rows) (bool, error)) (full bool, err error) {
	var past int64 // the record after, as a rowid of messages
	err = tx.QueryRowContext(ctx, `SELECT coalesce((SELECT rowid FROM messages
		WHERE session = ? AND seq <= ? ORDER BY seq DESC LIMIT 1), 0)`, id, after).Scan(&past)
	if err != nil {
		return false, err
	}
	pieces, err := tx.QueryContext(ctx, `SELECT rowid FROM message_search
		WHERE message_search MATCH ? AND rowid >= ? ORDER BY rowid`, match, (past+1)<<partBits)
	if err != nil {
		return false, err
	}
	defer closeRows(pieces, &err)
	for pieces.Next() {
		var rowid int64
		if err := pieces.Scan(&rowid); err != nil {
			return false, err
		}
		r := rowid >> partBits
		if r == past {
			continue // another piece of a record read
		}
		past = r
		// Another session's row (whose tag is the same) is no record of
		// this one.
		rows, err := tx.QueryContext(ctx, `SELECT seq, at, body FROM messages
			WHERE rowid = ? AND session = ? AND seq <= ?`, r, id, indexed)
		if err != nil {
			return false, err
		}
		if full, err := add(rows); full || err != nil {
			return full, err
		}
	}
	return false, pieces.Err()
}

// indexedThrough reads the last record of session id in the index.
func indexedThrough(ctx context.Context, tx *sql.Tx, id string) (int64, error) {
	var indexed int64
	err := tx.QueryRowContext(ctx, `SELECT indexed FROM sessions WHERE id = ?`, id).Scan(&indexed)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	return indexed, err
}

// catchUp indexes the records of session id appended since it was last
// brought up to date, if there are more than lagMax of them.
//
// Each record is in the index as the pieces of its text (see
// searchpart.Split), each prefixed with tagText(id), under the rowids
// rowid<<partBits + 0, 1, 2..., where rowid is the record's in messages.
// Whatever removes or rewrites records must keep the index with them: a
// record up to sessions.indexed has its rows in message_search, which
// deleting the record must delete too (contentless_delete allows DELETE
// FROM message_search WHERE rowid BETWEEN rowid<<partBits AND
// (rowid+1)<<partBits - 1), and rewriting it must replace (delete them,
// then insert the pieces of the new SearchText the same way). The index
// holds a session's records from the first to sessions.indexed with no
// gap, but for records removed altogether.
func (s *Store) catchUp(ctx context.Context, id string) error {
	var lag int64
	err := s.read(ctx, func(tx *sql.Tx) error {
		err := tx.QueryRowContext(ctx, `SELECT last_seq - indexed FROM sessions WHERE id = ?`, id).Scan(&lag)
		if errors.Is(err, sql.ErrNoRows) {
			return nil
		}
		return err
	})
	if err != nil || lag <= lagMax {
		return err
	}
	tag := tagText(id)
	for done := false; !done; {
		err := s.write(ctx, func(ctx context.Context, tx *sql.Tx) error {
			indexed, err := indexedThrough(ctx, tx, id)
			if err != nil {
				return err
			}
			rows, err := tx.QueryContext(ctx, `SELECT rowid, seq, body FROM messages
				WHERE session = ? AND seq > ? ORDER BY seq LIMIT ?`, id, indexed, indexRows)
			if err != nil {
				return err
			}
			type entry struct {
				rowid int64
				text  string
			}
			var (
				batch []entry
				size  int
			)
			for size < indexBytes && rows.Next() {
				var (
					e    entry
					body []byte
				)
				if err := rows.Scan(&e.rowid, &indexed, &body); err != nil {
					return errors.Join(err, rows.Close())
				}
				m, err := codec.DecodeMessage(body)
				if err != nil {
					return errors.Join(fmt.Errorf("session %q record %d: %w: %v", id, indexed, store.ErrCorrupt, err), rows.Close())
				}
				e.text = store.SearchText(m)
				size += len(e.text)
				batch = append(batch, e)
			}
			// Done once the records ran out before the batch was full.
			done = size < indexBytes && len(batch) < indexRows
			if err := errors.Join(rows.Err(), rows.Close()); err != nil {
				return err
			}
			for _, e := range batch {
				if err := indexRecord(ctx, tx, e.rowid, tag, e.text); err != nil {
					return err
				}
			}
			_, err = tx.ExecContext(ctx, `UPDATE sessions SET indexed = ? WHERE id = ?`, indexed, id)
			return err
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// indexRecord puts in the index the pieces of text, the SearchText of the
// record whose rowid in messages is rowid, each prefixed with tag.
func indexRecord(ctx context.Context, tx *sql.Tx, rowid int64, tag, text string) error {
	for k, part := range searchpart.Split(text, 1<<partBits) {
		if _, err := tx.ExecContext(ctx, `INSERT INTO message_search (rowid, text) VALUES (?, ?)`,
			rowid<<partBits|int64(k), tag+part); err != nil {
			return err
		}
	}
	return nil
}

// tag is a session's mark in the index: four letters from a hash of its
// id, between two bytes no text of a message is expected to hold, so that
// a lookup asks for the rows of one session (and rarely a few of another,
// which the join on the session drops).
func tag(id string) string {
	const letters = "abcdefghijklmnopqrstuvwxyz234567"
	h := fnv.New32a()
	_, _ = h.Write([]byte(id))
	v := h.Sum32()
	var b [6]byte
	b[0], b[5] = 0x01, 0x01
	for i := 1; i <= 4; i++ {
		b[i] = letters[v&31]
		v >>= 5
	}
	return string(b[:])
}

// tagText is what each text of session id starts with in the index.
func tagText(id string) string { return tag(id) + "\n" }

// lookup is the FTS5 query for the rows of session id whose text may hold
// text: every trigram of the session's tag, and up to maxTerms trigrams of
// text's window (searchpart.Window: what a piece of a text holding text is
// sure to hold whole) (the index keeps no positions, so a row holding them all is a
// candidate the search checks). The trigram tokenizer folds ASCII
// case as strings.ToLower does.
func lookup(id, text string) string {
	t := tag(id)
	var terms []string
	for i := 0; i+trigram <= len(t); i++ {
		terms = append(terms, t[i:i+trigram])
	}
	// Every trigram of text, spread over it when there are more than
	// maxTerms: trigrams that overlap rule out far more texts than trigrams
	// that only tile it, and a false candidate costs a decoding.
	text = searchpart.Window(text)
	var all []string
	seen := map[string]bool{}
	for i := 0; i+trigram <= len(text); i++ {
		if tri := strings.ToLower(text[i : i+trigram]); !seen[tri] {
			seen[tri] = true
			all = append(all, tri)
		}
	}
	if len(all) > maxTerms {
		spread := make([]string, maxTerms)
		for k := range spread {
			spread[k] = all[k*(len(all)-1)/(maxTerms-1)]
		}
		all = spread
	}
	terms = append(terms, all...)
	for i, term := range terms {
		terms[i] = `"` + strings.ReplaceAll(term, `"`, `""`) + `"`
	}
	return strings.Join(terms, " AND ")
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
