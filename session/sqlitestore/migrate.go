package sqlitestore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
)

// ErrSchemaVersion reports a file whose schema is newer than this package
// knows: written by a later version, it must not be written by this one.
var ErrSchemaVersion = errors.New("sqlitestore: unknown schema version")

// migration is one numbered schema step, run inside the transaction that
// migrates the file.
type migration func(ctx context.Context, tx *sql.Tx) error

// statements is a step made of SQL statements alone.
func statements(query string) migration {
	return func(ctx context.Context, tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, query)
		return err
	}
}

// migrations are the numbered schema steps: migrations[i] takes a file from
// version i to i+1. A step is never edited once released; a change is a new
// step. Each is idempotent, so a step half-applied by hand can be re-run.
var migrations = []migration{
	// 1: the log, the compactions, and a row per session holding its
	// counters and its lease.
	statements(`CREATE TABLE IF NOT EXISTS sessions (
		id            TEXT PRIMARY KEY,
		last_seq      INTEGER NOT NULL DEFAULT 0,  -- the log's last record
		compactions   INTEGER NOT NULL DEFAULT 0,  -- the latest compaction's N
		live_through  INTEGER NOT NULL DEFAULT 0,  -- and its Through
		lease_id      TEXT,                        -- the current grant; NULL once released
		lease_fence   INTEGER NOT NULL DEFAULT 0,  -- the latest fence granted
		lease_expires INTEGER NOT NULL DEFAULT 0   -- unix nanoseconds
	) STRICT;
	CREATE TABLE IF NOT EXISTS messages (
		rowid   INTEGER PRIMARY KEY,
		session TEXT NOT NULL REFERENCES sessions (id),
		seq     INTEGER NOT NULL,
		at      INTEGER NOT NULL,                  -- unix nanoseconds
		body    TEXT NOT NULL,                     -- the message's JSON
		UNIQUE (session, seq)
	) STRICT;
	CREATE TABLE IF NOT EXISTS compactions (
		session       TEXT NOT NULL REFERENCES sessions (id),
		n             INTEGER NOT NULL,
		from_seq      INTEGER NOT NULL,
		through_seq   INTEGER NOT NULL,
		live          TEXT NOT NULL,               -- JSON array of messages
		at            INTEGER NOT NULL,
		tokens_before INTEGER NOT NULL,
		tokens_after  INTEGER NOT NULL,
		summarizer    TEXT NOT NULL,
		fence         INTEGER NOT NULL,
		PRIMARY KEY (session, n)
	) STRICT, WITHOUT ROWID;
	-- The search index: each message's SearchText under the message's
	-- rowid, brought up to date by searches (see Search), not by appends,
	-- so that a turn does not pay for it. indexed is the last rowid in it.
	CREATE VIRTUAL TABLE IF NOT EXISTS message_text USING fts5 (
		text, content = '', tokenize = 'trigram'
	);
	CREATE TABLE IF NOT EXISTS search_index (indexed INTEGER NOT NULL) STRICT;
	INSERT INTO search_index (indexed) SELECT 0 WHERE NOT EXISTS (SELECT 1 FROM search_index);`),
	// 2: the range of records each compaction's summary stands for
	// (store.Compaction's FoldedFrom and FoldedThrough); 0 in compactions
	// committed before, which did not record it.
	addColumns("compactions", "folded_from INTEGER NOT NULL DEFAULT 0", "folded_through INTEGER NOT NULL DEFAULT 0"),
	// 3: what the session had been billed at each compaction
	// (store.Compaction's Spend) as JSON; '' in compactions committed
	// before, which did not record it.
	addColumns("compactions", "spend TEXT NOT NULL DEFAULT ''"),
	// 4: the search index kept session by session (see Search): each
	// message's text under the message's rowid, prefixed with its session's
	// tag, with only the rowids each trigram is found in (detail none: a
	// quarter of the size of the positions the first index kept, whose
	// exactness the search's own check makes up for), and rows that can be
	// deleted (contentless_delete). sessions.indexed is the last record of
	// the session in it. The first index is dropped; searches build the new
	// one, each for its own session.
	steps(statements(`DROP TABLE IF EXISTS message_text;
		DROP TABLE IF EXISTS search_index;
		CREATE VIRTUAL TABLE IF NOT EXISTS message_search USING fts5 (
			text, content = '', contentless_delete = 1, tokenize = 'trigram', detail = 'none'
		);`),
		addColumns("sessions", "indexed INTEGER NOT NULL DEFAULT 0")),
	// 5: the tombstone a deleted session leaves (see Delete): its row,
	// marked, with nothing else left of it.
	addColumns("sessions", "deleted INTEGER NOT NULL DEFAULT 0"),
	// 6: the search index keeps a long text as overlapping pieces (see
	// searchpart), each under its record's rowid shifted left by partBits
	// plus its number, so that a lookup's candidate is a piece, not a whole
	// long text. The rows of migration 4, under the records' own rowids,
	// mean nothing under the new numbering: the index is emptied and every
	// session's indexed reset, and searches build it again, each for its
	// own session.
	statements(`INSERT INTO message_search (message_search) VALUES ('delete-all');
		UPDATE sessions SET indexed = 0;`),
}

// steps is a migration made of several.
func steps(ms ...migration) migration {
	return func(ctx context.Context, tx *sql.Tx) error {
		for _, m := range ms {
			if err := m(ctx, tx); err != nil {
				return err
			}
		}
		return nil
	}
}

// addColumns is a step that adds columns to table, each given as its
// definition, skipping those it already has: SQLite's ADD COLUMN has no
// IF NOT EXISTS.
func addColumns(table string, defs ...string) migration {
	return func(ctx context.Context, tx *sql.Tx) error {
		for _, def := range defs {
			name, _, _ := strings.Cut(def, " ")
			var n int
			if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM pragma_table_info(?) WHERE name = ?`, table, name).Scan(&n); err != nil {
				return err
			}
			if n > 0 {
				continue
			}
			if _, err := tx.ExecContext(ctx, `ALTER TABLE `+table+` ADD COLUMN `+def); err != nil {
				return err
			}
		}
		return nil
	}
}

// migrate brings the file's schema to len(migrations) in one transaction,
// or reports a version it does not know.
func (s *Store) migrate(ctx context.Context) error {
	return s.write(ctx, func(ctx context.Context, tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL) STRICT`); err != nil {
			return fmt.Errorf("schema_version: %w", err)
		}
		var version int
		err := tx.QueryRowContext(ctx, `SELECT version FROM schema_version`).Scan(&version)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			if _, err := tx.ExecContext(ctx, `INSERT INTO schema_version (version) VALUES (0)`); err != nil {
				return fmt.Errorf("schema_version: %w", err)
			}
		case err != nil:
			return fmt.Errorf("schema_version: %w", err)
		}
		if version < 0 || version > len(migrations) {
			return fmt.Errorf("%w: the file is at version %d; this program knows versions up to %d",
				ErrSchemaVersion, version, len(migrations))
		}
		for v := version; v < len(migrations); v++ {
			if err := migrations[v](ctx, tx); err != nil {
				return fmt.Errorf("migration %d: %w", v+1, err)
			}
		}
		if version < len(migrations) {
			if _, err := tx.ExecContext(ctx, `UPDATE schema_version SET version = ?`, len(migrations)); err != nil {
				return fmt.Errorf("schema_version: %w", err)
			}
		}
		return nil
	})
}
