package pgstore

import (
	"context"
	"strings"

	"github.com/contextkit/compact/session"
	"github.com/jackc/pgx/v5"
)

// Search returns the records of session id after after whose
// session.SearchText contains text, ignoring case, oldest first, at most
// limit. Postgres finds the candidates in the search column, a lower-cased
// copy of each message's text, through the trigram index when the text has
// a word of three letters or digits (see trigramIndex) and by reading the
// session's records otherwise; each candidate is checked exactly, a page at
// a time, so that a page the check thinned is followed by the next.
func (s *Store) Search(ctx context.Context, id, text string, after int64, limit int) ([]session.Record, error) {
	if err := begin(ctx, "search", id); err != nil {
		return nil, err
	}
	want := strings.ToLower(text)
	needle := postgresText(want)
	// Each page is planned for its own text (an unnamed statement), never
	// with a generic plan cached for another: whether the index or the
	// session's records in order serve a text best depends on the text.
	exec := pgx.QueryExecModeExec
	page := func(after int64, n any) (pgx.Rows, error) {
		switch {
		case needle == "":
			return s.pool.Query(ctx, s.q.scan, exec, id, after, n)
		case trigrams(needle):
			return s.pool.Query(ctx, s.q.like, exec, id, after, "%"+escapeLike(needle)+"%", n)
		}
		return s.pool.Query(ctx, s.q.search, exec, id, after, needle, n)
	}
	var out []session.Record
	for {
		var n any // no limit
		if limit > 0 {
			n = limit - len(out)
		}
		rows, err := page(after, n)
		if err != nil {
			return nil, fail(ctx, "search", id, err)
		}
		read := 0
		recs, err := collect(rows, id, func(r session.Record) (bool, bool) {
			read++
			after = r.Seq
			return strings.Contains(strings.ToLower(session.SearchText(r.Message)), want), true
		})
		if err != nil {
			return nil, fail(ctx, "search", id, err)
		}
		out = append(out, recs...)
		if limit <= 0 || read < n.(int) || len(out) == limit {
			return out, nil
		}
	}
}

// trigrams reports whether LIKE '%needle%' gives pg_trgm something to look
// up: a run of three ASCII letters or digits (pg_trgm makes its trigrams of
// words). Without one the index would be read whole, and reading the
// session's records is cheaper.
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
