package pgstore

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// trigramIndexName is the name of the index migration 4 builds, in the
// Store's schema.
const trigramIndexName = "messages_search_trgm"

// trigramIndex is migration 4: a GIN index of pg_trgm over the search
// column, so that Search finds the records holding a text of three
// characters or more without reading the whole session (LIKE '%text%' is
// what the index serves). It creates the extension when the database does
// not have it yet: pg_trgm ships with Postgres and is trusted since
// Postgres 13, so a database's owner may create it. When the server has no
// pg_trgm or the role may not create it, the step logs why and leaves the
// schema without the index: Search then reads the session's records, as it
// did before the index, with the same answers. The index is built in the
// migration's transaction, which on a large database takes minutes and
// holds off appends; build it beforehand with CREATE INDEX CONCURRENTLY
// under the same name and the step finds it.
func trigramIndex(ctx context.Context, s *Store, cfg config, tx pgx.Tx, S string) error {
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
			s.log.Warn("pgstore: no trigram index: searches read each session's records instead",
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
	_, err = tx.Exec(ctx, fmt.Sprintf(`CREATE INDEX IF NOT EXISTS %s ON %s.messages USING gin (search %s)`,
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
