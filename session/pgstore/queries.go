package pgstore

import "strings"

// queries are the Store's statements with its schema filled in. The schema
// is an identifier, quoted by pgx.Identifier; every value is a parameter.
type queries struct {
	appendMsgs, lastSeq, records, head, compactionLive, compactionThrough string
	ensure, lockLease, insertCompaction, setHead, compactions, spend      string
	grant, renew, release, like, search, scan                             string
}

func newQueries(schema string) queries {
	q := func(sql string) string { return strings.ReplaceAll(sql, "$S", schema) }
	return queries{
		// One statement, so one round trip: the session row's counter hands
		// out the numbers (its row lock orders concurrent appends), and the
		// messages go in with them.
		appendMsgs: q(`WITH s AS (
				INSERT INTO $S.sessions AS t (id, last_seq) VALUES ($1, $2)
				ON CONFLICT (id) DO UPDATE SET last_seq = t.last_seq + excluded.last_seq
				RETURNING last_seq, compactions
			), ins AS (
				INSERT INTO $S.messages (session, seq, at, body, search)
				SELECT $1, s.last_seq - $2 + m.ord, now(), m.body, m.search
				FROM s, unnest($3::text[], $4::text[]) WITH ORDINALITY AS m (body, search, ord)
			)
			SELECT last_seq, compactions FROM s`),
		lastSeq: q(`SELECT last_seq, compactions FROM $S.sessions WHERE id = $1`),
		records: q(`SELECT seq, at, body FROM $S.messages
			WHERE session = $1 AND seq BETWEEN $2 AND $3 ORDER BY seq`),
		head:              q(`SELECT last_seq, compactions, live_through FROM $S.sessions WHERE id = $1`),
		compactionLive:    q(`SELECT live, through_seq FROM $S.compactions WHERE session = $1 AND n = $2`),
		compactionThrough: q(`SELECT through_seq FROM $S.compactions WHERE session = $1 AND n = $2`),
		ensure:            q(`INSERT INTO $S.sessions (id) VALUES ($1) ON CONFLICT (id) DO NOTHING`),
		lockLease: q(`SELECT lease_id, lease_fence, lease_expires, now(), last_seq, compactions, live_through
			FROM $S.sessions WHERE id = $1 FOR UPDATE`),
		insertCompaction: q(`INSERT INTO $S.compactions
			(session, n, from_seq, through_seq, live, at, tokens_before, tokens_after, summarizer, fence,
			 folded_from, folded_through, spend)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`),
		setHead: q(`UPDATE $S.sessions SET compactions = $2, live_through = $3 WHERE id = $1`),
		compactions: q(`SELECT n, from_seq, through_seq, live, at, tokens_before, tokens_after, summarizer, fence,
				folded_from, folded_through, spend
			FROM $S.compactions WHERE session = $1 ORDER BY n`),
		spend: q(`SELECT spend FROM $S.compactions WHERE session = $1 ORDER BY n DESC LIMIT 1`),
		grant: q(`UPDATE $S.sessions SET lease_id = $2, lease_fence = lease_fence + 1,
				lease_expires = now() + $3 * interval '1 microsecond'
			WHERE id = $1 RETURNING lease_fence, lease_expires`),
		renew: q(`UPDATE $S.sessions SET lease_expires = now() + $2 * interval '1 microsecond'
			WHERE id = $1 RETURNING lease_expires`),
		release: q(`UPDATE $S.sessions SET lease_id = NULL WHERE id = $1 AND lease_id = $2 AND lease_fence = $3`),
		// A page of a search: LIMIT NULL is no limit. like is what the
		// trigram index serves; search, for a text the index cannot serve,
		// reads the session's records.
		like: q(`SELECT seq, at, body FROM $S.messages
			WHERE session = $1 AND seq > $2 AND search LIKE $3 ORDER BY seq LIMIT $4`),
		search: q(`SELECT seq, at, body FROM $S.messages
			WHERE session = $1 AND seq > $2 AND strpos(search, $3) > 0 ORDER BY seq LIMIT $4`),
		scan: q(`SELECT seq, at, body FROM $S.messages WHERE session = $1 AND seq > $2 ORDER BY seq LIMIT $3`),
	}
}
