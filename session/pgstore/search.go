package pgstore

import (
	"context"
	"fmt"
	"strings"

	"github.com/contextkit/compact/session/internal/codec"
	"github.com/contextkit/compact/session/internal/searchpart"
	"github.com/contextkit/compact/session/store"
	"github.com/jackc/pgx/v5"
)

// Bounds of the search table's upkeep: a search of a session with more
// than lagMax records not in the table yet puts them in first, at most
// indexRows records or indexBytes bytes of text to a statement.
const (
	lagMax     = 256
	indexRows  = 256
	indexBytes = 256 << 10
)

// maxParts bounds the pieces of one text in the search table: the last of
// a text longer than that many holds the rest.
const maxParts = 1 << 20

// likeWindow bounds the bytes of a text Search looks up (the first; each
// candidate is checked whole): pg_trgm prices a lookup by its trigrams, so
// that the planner reads a session's texts in order rather than look up a
// long text, at ten times the time; thirty-odd trigrams rule out as much.
const likeWindow = 32

// analyzeAfter is how many records a catch-up puts in the search table
// before it has Postgres vacuum it and gather its statistics again: with none
// (a table just filled, before autovacuum came by), the planner reads a
// session's texts in order for every text, the rarest included.
const analyzeAfter = 2000

// Search returns the records of session id after after whose
// store.SearchText contains text, ignoring case, oldest first, at most
// limit. The candidates are found in the search table, which holds each
// record's text lower-cased, a long text in overlapping pieces (see
// searchpart) so that a candidate is a record with a piece holding the
// text's window: through the trigram index when the text has a
// word of three letters or digits (see searchIndex), by reading the
// session's texts otherwise. The table holds a session's records up to the
// last a search put in; the records after it are read from the log. Each
// candidate is checked exactly, a page at a time, so that a page the check
// thinned is followed by the next.
func (s *Store) Search(ctx context.Context, id, text string, after int64, limit int) ([]store.Record, error) {
	if err := begin(ctx, "search", id); err != nil {
		return nil, err
	}
	want := strings.ToLower(text)
	needle := postgresText(want)
	if needle != "" {
		if err := s.catchUp(ctx, id); err != nil {
			return nil, fail(ctx, "search", id, fmt.Errorf("indexing: %w", err))
		}
	}
	var out []store.Record
	err := s.snapshotTx(ctx, func(tx pgx.Tx) error {
		out = nil
		if err := s.alive(ctx, tx, id); err != nil {
			return err
		}
		// The planner prices matching a text at next to nothing, and a
		// table of a few thousand records cheap to read whole; but each
		// text read is one decompressed, often from TOAST, so reading the
		// whole table costs what the index saves. The index, or the
		// session's records in order, serve every page better.
		if _, err := tx.Exec(ctx, `SET LOCAL enable_seqscan = off`); err != nil {
			return err
		}
		// pages reads pages of rows of seq, at, body from query until the
		// search has all it wants or a page comes back short; args are
		// query's after the session, the seq after which to read and the
		// page's size (see queries).
		pages := func(query string, from int64, args ...any) (bool, error) {
			for {
				var n any // no limit
				if limit > 0 {
					n = limit - len(out)
				}
				// Each page is planned for its own text (an unnamed
				// statement), never with a generic plan made for another:
				// whether the index or the session's records in order serve
				// a text best depends on the text.
				rows, err := tx.Query(ctx, query, append([]any{pgx.QueryExecModeExec, id, from, n}, args...)...)
				if err != nil {
					return false, err
				}
				read := 0
				recs, err := collect(rows, id, func(r store.Record) (bool, bool) {
					read++
					from = r.Seq
					return strings.Contains(strings.ToLower(store.SearchText(r.Message)), want), true
				})
				if err != nil {
					return false, err
				}
				out = append(out, recs...)
				if limit > 0 && len(out) == limit {
					return true, nil
				}
				if limit <= 0 || read < n.(int) {
					return false, nil
				}
			}
		}
		from := after
		if needle != "" {
			var indexed, last int64
			if err := tx.QueryRow(ctx, s.q.indexed, id).Scan(&indexed, &last); err != nil {
				return err
			}
			if after < indexed {
				// A piece of a record holding needle holds its window.
				window := searchpart.Prefix(searchpart.FoldedWindow(needle), likeWindow)
				query, arg := s.q.search, any(window)
				if trigrams(window) {
					query, arg = s.q.like, "%"+escapeLike(window)+"%"
				}
				full, err := pages(query, after, arg, indexed)
				if full || err != nil {
					return err
				}
				from = indexed
			}
		}
		_, err := pages(s.q.scan, from)
		return err
	})
	if err != nil {
		return nil, fail(ctx, "search", id, err)
	}
	return out, nil
}

// catchUp puts in the search table the records of session id appended
// since it was last brought up to date, if there are more than lagMax of
// them: each batch one statement, so the table always holds a session's
// records from the first to the last it holds, and a batch another process
// put in meanwhile is skipped, not doubled.
//
// A record is in the table as the pieces of its search text (see
// searchpart.Split), a row each, numbered by part from 0. Whatever removes
// or rewrites records must keep the table with them: deleting a record
// deletes its rows (the foreign key cascades); rewriting its body must,
// when it has rows, replace them in the same transaction (delete the
// session's rows of the record's seq, insert the pieces of searchText of
// the new message).
func (s *Store) catchUp(ctx context.Context, id string) error {
	var indexed, last int64
	if err := s.pool.QueryRow(ctx, s.q.indexed, id).Scan(&indexed, &last); err != nil {
		return err
	}
	if last-indexed <= lagMax {
		return nil
	}
	added := 0
	defer func() {
		if added >= analyzeAfter {
			_, _ = s.pool.Exec(ctx, s.q.analyze) // statistics help; their absence is no error
			return
		}
		if added > 0 {
			// GIN keeps what was inserted in a pending list until a vacuum
			// comes by; a lookup reads the whole list, and the planner,
			// rightly, shuns an index with a long one, reading the
			// session's texts instead (a 1M-token session's, 5x slower).
			// Emptying it helps; failing to (a role that does not own the
			// index) is no error.
			_, _ = s.pool.Exec(ctx, s.q.flush)
		}
	}()
	for indexed < last {
		rows, err := s.pool.Query(ctx, s.q.unindexed, id, indexed, indexRows)
		if err != nil {
			return err
		}
		var (
			batch searchRows
			size  int
		)
		for size < indexBytes && rows.Next() {
			var (
				seq  int64
				body string
			)
			if err := rows.Scan(&seq, &body); err != nil {
				rows.Close()
				return err
			}
			m, err := codec.DecodeMessage([]byte(body))
			if err != nil {
				rows.Close()
				return fmt.Errorf("session %q record %d: %w: %v", id, seq, store.ErrCorrupt, err)
			}
			text := searchText(m)
			batch.add(seq, text)
			size += len(text)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		if batch.records == 0 {
			return nil
		}
		if _, err := s.pool.Exec(ctx, s.q.index, id, batch.seqs, batch.parts, batch.texts); err != nil {
			return err
		}
		indexed, added = batch.seqs[len(batch.seqs)-1], added+batch.records
	}
	return nil
}

// searchRows are rows of the search table to insert, as the arrays the
// statements unnest: the pieces of each record's search text.
type searchRows struct {
	seqs    []int64
	parts   []int32
	texts   []string
	records int
}

// add adds the pieces of text, the search text of record seq.
func (r *searchRows) add(seq int64, text string) {
	for k, part := range searchpart.Split(text, maxParts) {
		r.seqs, r.parts, r.texts = append(r.seqs, seq), append(r.parts, int32(k)), append(r.texts, part)
	}
	r.records++
}

// trigrams reports whether LIKE '%needle%' gives pg_trgm something to look
// up: a run of three ASCII letters or digits (pg_trgm makes its trigrams of
// words). Without one the index would be read whole, and reading the
// session's texts is cheaper.
func trigrams(needle string) bool {
	run := 0
	for i := 0; i < len(needle); i++ {
		c := needle[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' {
			if run++; run == 3 {
				return true
			}
			continue
		}
		run = 0
	}
	return false
}

// escapeLike escapes LIKE's wildcards and its escape character in s.
func escapeLike(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
}
