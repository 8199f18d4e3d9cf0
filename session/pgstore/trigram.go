package pgstore

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// trigramIndexName is the name of the index migration 4 builds, in the
// Store's schema.
const trigramIndexName = "message_search_trgm"

// searchIndex is migration 4: the search table, which holds each record's
// search text (its SearchText, lower-cased), filled by searches session by
// session (see Search) instead of by appends, so that no append pays for
// the text or its index; the messages' own search column, which appends
// filled, goes (it is read no more: the table is filled from the bodies).
// Then a GIN index of pg_trgm over the search text, so that Search finds
// the records holding a text of three characters or more without reading
// the whole session (LIKE '%text%' is what the index serves). The step
// creates the extension when the database does not have it yet: pg_trgm
// ships with Postgres and is trusted since Postgres 13, so a role that may
// create the schema may create it. When the server has no pg_trgm or the
// role may not create it, the step logs why and leaves the table without
// the index: Search then reads the session's texts, with the same answers.
func searchIndex(ctx context.Context, s *Store, cfg config, tx pgx.Tx, S string) error {
	_, err := tx.Exec(ctx, strings.ReplaceAll(`
		CREATE TABLE IF NOT EXISTS $S.message_search (
			session text NOT NULL,
			seq     bigint NOT NULL,
			search  text NOT NULL,                   -- the record's SearchText, lower-cased
			PRIMARY KEY (session, seq),
			FOREIGN KEY (session, seq) REFERENCES $S.messages (session, seq) ON DELETE CASCADE
		);
		ALTER TABLE $S.messages DROP COLUMN IF EXISTS search;`, "$S", S))
	if err != nil {
		return err
	}
	opclass, err := trigramOpclass(ctx, tx, cfg.trigrams)
	if err != nil {
		return err
	}
	if opclass == "" {
		// A savepoint, so that a refusal leaves the migration's
		// transaction usable.
		if _, err := tx.Exec(ctx, `SAVEPOINT pg_trgm`); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `CREATE EXTENSION IF NOT EXISTS `+pgx.Identifier{cfg.trigrams}.Sanitize())
		var pgErr *pgconn.PgError
		if errors.As(err, &pgErr) && ctx.Err() == nil {
			if _, rerr := tx.Exec(ctx, `ROLLBACK TO SAVEPOINT pg_trgm`); rerr != nil {
				return rerr
			}
			s.log.Warn("pgstore: no trigram index: searches read each session's texts instead",
				"schema", S, "reason", pgErr.Message)
			return nil
		}
		if err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `RELEASE SAVEPOINT pg_trgm`); err != nil {
			return err
		}
		if opclass, err = trigramOpclass(ctx, tx, cfg.trigrams); err != nil {
			return err
		}
	}
	_, err = tx.Exec(ctx, fmt.Sprintf(`CREATE INDEX IF NOT EXISTS %s ON %s.message_search USING gin (search %s)`,
		trigramIndexName, S, opclass))
	return err
}

// trigramOpclass returns pg_trgm's GIN operator class, qualified with the
// schema the extension (named ext) lives in, or "" when the database does
// not have it.
func trigramOpclass(ctx context.Context, tx pgx.Tx, ext string) (string, error) {
	var schema string
	err := tx.QueryRow(ctx, `SELECT n.nspname FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
		WHERE e.extname = $1`, ext).Scan(&schema)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	return pgx.Identifier{schema, "gin_trgm_ops"}.Sanitize(), nil
}

// searchParts is migration 6: the search table keeps each record's text as
// the pieces searchpart.Split cuts (one row for a text of up to a piece),
// numbered by a new column part, so that the trigram index's candidates
// are pieces, not whole long texts. The rows of migration 4 are whole
// texts: the table is emptied, and searches fill it again, each for its own
// session. The table is changed in place (a column, and part in the
// primary key), so a table a host created partitioned stays so.
func searchParts(ctx context.Context, _ *Store, _ config, tx pgx.Tx, S string) error {
	table := S + ".message_search"
	var pkey string
	var hasPart bool
	err := tx.QueryRow(ctx, `SELECT c.conname, EXISTS (SELECT 1 FROM pg_attribute a
			WHERE a.attrelid = c.conrelid AND a.attname = 'part' AND a.attnum = ANY (c.conkey))
		FROM pg_constraint c WHERE c.conrelid = $1::regclass AND c.contype = 'p'`, table).Scan(&pkey, &hasPart)
	if err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return err
	}
	if _, err := tx.Exec(ctx, `TRUNCATE `+table); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, `ALTER TABLE `+table+` ADD COLUMN IF NOT EXISTS part integer NOT NULL DEFAULT 0`); err != nil {
		return err
	}
	if hasPart {
		return nil
	}
	if pkey != "" {
		if _, err := tx.Exec(ctx, `ALTER TABLE `+table+` DROP CONSTRAINT `+pgx.Identifier{pkey}.Sanitize()); err != nil {
			return err
		}
	}
	_, err = tx.Exec(ctx, `ALTER TABLE `+table+` ADD PRIMARY KEY (session, seq, part)`)
	return err
}
