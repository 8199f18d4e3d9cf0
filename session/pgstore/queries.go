package pgstore

import "strings"

// queries are the Store's statements with its schema filled in. The schema
// is an identifier, quoted by pgx.Identifier; every value is a parameter.
type queries struct {
	appendMsgs, lastSeq, records, head, compactionLive, compactionThrough string
	ensure, lockLease, insertCompaction, setHead, compactions, spend      string
	grant, renew, release, like, search, scan, indexed, unindexed, index  string
	analyze, flush, alive, deleteSession, expireFolded, activity          string
	liveSessions, unfolded, rewrite                                       string
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
				WHERE NOT t.deleted
				RETURNING last_seq, compactions
			), ins AS (
				INSERT INTO $S.messages (session, seq, at, body)
				SELECT $1, s.last_seq - $2 + m.ord, now(), m.body
				FROM s, unnest($3::text[]) WITH ORDINALITY AS m (body, ord)
			)
			SELECT last_seq, compactions FROM s`),
		lastSeq: q(`SELECT last_seq, compactions, deleted FROM $S.sessions WHERE id = $1`),
		records: q(`SELECT seq, at, body FROM $S.messages
			WHERE session = $1 AND seq BETWEEN $2 AND $3 ORDER BY seq`),
		head:           q(`SELECT last_seq, compactions, live_through, deleted FROM $S.sessions WHERE id = $1`),
		compactionLive: q(`SELECT live, through_seq FROM $S.compactions WHERE session = $1 AND n = $2`),
		compactionThrough: q(`SELECT from_seq, through_seq,
			(SELECT count(*) FROM $S.messages m WHERE m.session = c.session AND m.seq BETWEEN c.from_seq AND c.through_seq)
			FROM $S.compactions c WHERE session = $1 AND n = $2`),
		ensure: q(`INSERT INTO $S.sessions (id) VALUES ($1) ON CONFLICT (id) DO NOTHING`),
		lockLease: q(`SELECT lease_id, lease_fence, lease_expires, now(), last_seq, compactions, live_through, deleted
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
		// A page of a search, of the records after $2, at most $3 (NULL:
		// no limit). like and search look $4 up among the pieces of the
		// records in the search table (up to $5), each record once: like is what the trigram index serves;
		// search, for a text the index cannot serve, reads the session's
		// texts. scan reads the session's records, past the table too.
		like: q(`SELECT m.seq, m.at, m.body FROM (SELECT DISTINCT s.seq FROM $S.message_search s
				WHERE s.session = $1 AND s.seq > $2 AND s.search LIKE $4 AND s.seq <= $5 ORDER BY s.seq LIMIT $3) c
			JOIN $S.messages m ON m.session = $1 AND m.seq = c.seq ORDER BY m.seq`),
		search: q(`SELECT m.seq, m.at, m.body FROM (SELECT DISTINCT s.seq FROM $S.message_search s
				WHERE s.session = $1 AND s.seq > $2 AND strpos(s.search, $4) > 0 AND s.seq <= $5 ORDER BY s.seq LIMIT $3) c
			JOIN $S.messages m ON m.session = $1 AND m.seq = c.seq ORDER BY m.seq`),
		scan: q(`SELECT seq, at, body FROM $S.messages WHERE session = $1 AND seq > $2 ORDER BY seq LIMIT $3`),
		// The search table holds a session's records from the first up
		// to the last it holds, each batch a transaction: that last is
		// where it stands.
		indexed: q(`SELECT coalesce((SELECT seq FROM $S.message_search WHERE session = $1 ORDER BY seq DESC LIMIT 1), 0),
			coalesce((SELECT last_seq FROM $S.sessions WHERE id = $1), 0)`),
		unindexed: q(`SELECT seq, body FROM $S.messages WHERE session = $1 AND seq > $2 ORDER BY seq LIMIT $3`),
		index: q(`INSERT INTO $S.message_search (session, seq, part, search)
			SELECT $1, t.seq, t.part, t.search FROM unnest($2::bigint[], $3::integer[], $4::text[]) AS t (seq, part, search)
			ON CONFLICT DO NOTHING`),
		// VACUUM, not ANALYZE alone: it also moves the trigram index's
		// pending entries into the index proper and updates the figures
		// the planner prices the index by, which inserts leave stale.
		analyze: q(`VACUUM (ANALYZE) $S.message_search`),
		// The trigram index's pending entries, in each partition when the
		// table is partitioned, moved into the index proper.
		flush: q(`SELECT gin_clean_pending_list(relid)
			FROM pg_partition_tree(to_regclass('$S.` + trigramIndexName + `')) WHERE isleaf`),
		alive: q(`SELECT coalesce((SELECT deleted FROM $S.sessions WHERE id = $1), false)`),
		// Everything of session $1 but its row, which becomes the
		// tombstone; one statement, so one round trip.
		deleteSession: q(`WITH s AS (DELETE FROM $S.message_search WHERE session = $1),
				m AS (DELETE FROM $S.messages WHERE session = $1),
				c AS (DELETE FROM $S.compactions WHERE session = $1)
			UPDATE $S.sessions SET deleted = true, last_seq = 0, compactions = 0, live_through = 0,
				lease_id = NULL, lease_expires = 'epoch'
			WHERE id = $1`),
		// The records of session $1 appended before $2 that one of its
		// compactions folded, with their rows in the search table.
		expireFolded: q(`WITH gone AS (
				DELETE FROM $S.messages m WHERE m.session = $1 AND m.at < $2 AND EXISTS (
					SELECT 1 FROM $S.compactions c WHERE c.session = m.session
					AND c.folded_from > 0 AND m.seq BETWEEN c.folded_from AND c.folded_through)
				RETURNING m.seq
			), s AS (
				DELETE FROM $S.message_search s USING gone WHERE s.session = $1 AND s.seq = gone.seq
			)
			SELECT count(*) FROM gone`),
		liveSessions: q(`SELECT id FROM $S.sessions WHERE NOT deleted AND starts_with(id, $1) ORDER BY id`),
		// The first of the seqs $2 that no compaction of session $1 folded.
		unfolded: q(`SELECT min(t.seq) FROM unnest($2::bigint[]) AS t (seq)
			WHERE NOT EXISTS (SELECT 1 FROM $S.compactions c WHERE c.session = $1
				AND c.folded_from > 0 AND t.seq BETWEEN c.folded_from AND c.folded_through)`),
		// New bodies $3 for the records $2 of session $1, and for those of
		// them in the search table, their pieces: $5 of the records $4,
		// numbered $6 (see catchUp).
		rewrite: q(`WITH t AS (SELECT * FROM unnest($2::bigint[], $3::text[]) AS t (seq, body)),
				m AS (UPDATE $S.messages m SET body = t.body FROM t WHERE m.session = $1 AND m.seq = t.seq),
				had AS (DELETE FROM $S.message_search s USING t WHERE s.session = $1 AND s.seq = t.seq RETURNING s.seq)
			INSERT INTO $S.message_search (session, seq, part, search)
			SELECT $1, p.seq, p.part, p.search FROM unnest($4::bigint[], $6::integer[], $5::text[]) AS p (seq, part, search)
			WHERE p.seq IN (SELECT seq FROM had)`),
		// When session $1 last logged a record or a compaction.
		activity: q(`SELECT greatest(
				(SELECT at FROM $S.messages WHERE session = $1 ORDER BY seq DESC LIMIT 1),
				(SELECT max(at) FROM $S.compactions WHERE session = $1),
				'epoch'::timestamptz)`),
	}
}
