package pgstore

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
)

// ErrSchemaVersion reports a database whose schema is newer than this
// package knows: written by a later version, it must not be written by this
// one.
var ErrSchemaVersion = errors.New("pgstore: unknown schema version")

// migrationLock is the key of the advisory lock Open holds while it
// migrates, so that replicas starting together migrate one after another.
// Any fixed number works; this one spells "compact" in ASCII.
const migrationLock int64 = 0x636f6d70616374

// migration is one numbered schema step, run inside the transaction that
// migrates the schema S (quoted).
type migration func(ctx context.Context, s *Store, cfg config, tx pgx.Tx, S string) error

// statements is a step made of SQL statements alone, with $S standing for
// the schema.
func statements(sql string) migration {
	return func(ctx context.Context, _ *Store, _ config, tx pgx.Tx, S string) error {
		_, err := tx.Exec(ctx, strings.ReplaceAll(sql, "$S", S))
		return err
	}
}

// migrations are the numbered schema steps: migrations[i] takes a database
// from version i to i+1. A step is never edited once released; each is
// idempotent.
var migrations = []migration{
	// 1: the log, the compactions, and a row per session holding its
	// counters and its lease.
	statements(`CREATE TABLE IF NOT EXISTS $S.sessions (
		id            text PRIMARY KEY,
		last_seq      bigint NOT NULL DEFAULT 0,         -- the log's last record
		compactions   integer NOT NULL DEFAULT 0,        -- the latest compaction's N
		live_through  bigint NOT NULL DEFAULT 0,         -- and its Through
		lease_id      text,                              -- the current grant; NULL once released
		lease_fence   bigint NOT NULL DEFAULT 0,         -- the latest fence granted
		lease_expires timestamptz NOT NULL DEFAULT 'epoch'
	);
	CREATE TABLE IF NOT EXISTS $S.messages (
		session text NOT NULL REFERENCES $S.sessions (id),
		seq     bigint NOT NULL,
		at      timestamptz NOT NULL,
		body    text NOT NULL,                           -- the message's JSON
		search  text NOT NULL,                           -- its SearchText, lower-cased
		PRIMARY KEY (session, seq)
	);
	CREATE TABLE IF NOT EXISTS $S.compactions (
		session       text NOT NULL REFERENCES $S.sessions (id),
		n             integer NOT NULL,
		from_seq      bigint NOT NULL,
		through_seq   bigint NOT NULL,
		live          text NOT NULL,                     -- JSON array of messages
		at            timestamptz NOT NULL,
		tokens_before integer NOT NULL,
		tokens_after  integer NOT NULL,
		summarizer    text NOT NULL,
		fence         bigint NOT NULL,
		PRIMARY KEY (session, n)
	);`),
	// 2: the range of records each compaction's summary stands for
	// (store.Compaction's FoldedFrom and FoldedThrough); 0 in compactions
	// committed before, which did not record it.
	statements(`ALTER TABLE $S.compactions
		ADD COLUMN IF NOT EXISTS folded_from bigint NOT NULL DEFAULT 0,
		ADD COLUMN IF NOT EXISTS folded_through bigint NOT NULL DEFAULT 0;`),
	// 3: what the session had been billed at each compaction
	// (store.Compaction's Spend) as JSON; '' in compactions committed
	// before, which did not record it.
	statements(`ALTER TABLE $S.compactions ADD COLUMN IF NOT EXISTS spend text NOT NULL DEFAULT '';`),
	// 4: the search table, filled by searches, and its trigram index when
	// the server has pg_trgm (see searchIndex).
	searchIndex,
	// 5: the tombstone a deleted session leaves (see Delete): its row,
	// marked, with nothing else left of it.
	statements(`ALTER TABLE $S.sessions ADD COLUMN IF NOT EXISTS deleted boolean NOT NULL DEFAULT false;`),
	// 6: the search table keeps a long text in overlapping pieces (see
	// searchParts).
	searchParts,
}

// migrate brings the schema to len(migrations) in one transaction, or
// reports a version it does not know.
func (s *Store) migrate(ctx context.Context, cfg config) error {
	S := pgx.Identifier{cfg.schema}.Sanitize()
	return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, migrationLock); err != nil {
			return fmt.Errorf("migration lock: %w", err)
		}
		if _, err := tx.Exec(ctx, `CREATE SCHEMA IF NOT EXISTS `+S); err != nil {
			return fmt.Errorf("schema %s: %w", S, err)
		}
		if _, err := tx.Exec(ctx, `CREATE TABLE IF NOT EXISTS `+S+`.schema_version (version integer NOT NULL)`); err != nil {
			return fmt.Errorf("schema_version: %w", err)
		}
		var version int
		err := tx.QueryRow(ctx, `SELECT version FROM `+S+`.schema_version`).Scan(&version)
		switch {
		case errors.Is(err, pgx.ErrNoRows):
			if _, err := tx.Exec(ctx, `INSERT INTO `+S+`.schema_version (version) VALUES (0)`); err != nil {
				return fmt.Errorf("schema_version: %w", err)
			}
		case err != nil:
			return fmt.Errorf("schema_version: %w", err)
		}
		if version < 0 || version > len(migrations) {
			return fmt.Errorf("%w: schema %s is at version %d; this program knows versions up to %d",
				ErrSchemaVersion, S, version, len(migrations))
		}
		for v := version; v < len(migrations); v++ {
			if err := migrations[v](ctx, s, cfg, tx, S); err != nil {
				return fmt.Errorf("migration %d: %w", v+1, err)
			}
		}
		if version < len(migrations) {
			if _, err := tx.Exec(ctx, `UPDATE `+S+`.schema_version SET version = $1`, len(migrations)); err != nil {
				return fmt.Errorf("schema_version: %w", err)
			}
		}
		return nil
	})
}
