package pgstore_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/contextkit/compact/session/internal/storebench"
	"github.com/contextkit/compact/session/pgstore"
	"github.com/jackc/pgx/v5"
)

// COMPACT_PG_DSN=... go test -run '^$' -bench . -benchmem ./session/pgstore
func BenchmarkTurn(b *testing.B) {
	st := open(b)
	for _, n := range []int{1_000, 10_000} {
		b.Run(fmt.Sprintf("messages=%d", n), func(b *testing.B) { storebench.Turn(b, st, n) })
	}
}

func BenchmarkCompaction(b *testing.B) {
	st := open(b)
	b.Run("tokens=200k", func(b *testing.B) { storebench.Compaction(b, st, 200_000) })
}

func BenchmarkSearch(b *testing.B) {
	st := open(b)
	b.Run("tokens=1M", func(b *testing.B) { storebench.Search(b, st, 1_000_000) })
}

// BenchmarkRecall measures context_search on long archives (issue 33.7):
// one session of 1M and of 10M tokens, and 1,000 sessions of 100k tokens,
// each in a schema of its own.
//
//	COMPACT_PG_DSN=... go test -run '^$' -bench Recall -benchtime 100x -timeout 2h ./session/pgstore
func BenchmarkRecall(b *testing.B) {
	for _, c := range storebench.RecallSizes {
		b.Run(c.Name, func(b *testing.B) { storebench.Recall(b, open(b, pgstore.WithSchema(schema(b))), c.Sessions, c.Tokens) })
	}
}

// BenchmarkDisk measures the bytes on disk per 1M archived tokens (issue
// 33.8): pg_total_relation_size of the schema's tables (their TOAST and
// indexes included); the search table and its trigram index are the
// search index, filled once every session has been searched. Then each
// session is compacted, its folded records redacted at rest, and those
// records expired, the tables rebuilt by VACUUM FULL.
//
//	COMPACT_PG_DSN=... go test -run '^$' -bench Disk -benchtime 1x -timeout 1h ./session/pgstore
func BenchmarkDisk(b *testing.B) {
	for _, c := range storebench.DiskSizes {
		b.Run(c.Name, func(b *testing.B) {
			name := schema(b)
			st := open(b, pgstore.WithSchema(name))
			storebench.Disk(b, st, schemaSizes(b, name), c.Sessions, c.Tokens, storebench.Searched,
				storebench.Compacted, storebench.Redacted, storebench.Expired(vacuumFull(b, name)))
		})
	}
}

// schemaSizes measures the tables of schema, their TOAST and indexes; Index
// is what the search table takes, its trigram index included.
func schemaSizes(tb testing.TB, schema string) func(context.Context) (storebench.Sizes, error) {
	conn, err := pgx.Connect(context.Background(), dsn(tb))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { conn.Close(context.Background()) })
	return func(ctx context.Context) (storebench.Sizes, error) {
		var s storebench.Sizes
		err := conn.QueryRow(ctx, `SELECT
				coalesce(sum(pg_total_relation_size(c.oid)) FILTER (WHERE c.relkind = 'r'), 0),
				coalesce(sum(pg_total_relation_size(c.oid)) FILTER (WHERE c.relname = 'message_search'), 0)
			FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
			WHERE n.nspname = $1`, schema).Scan(&s.Total, &s.Index)
		return s, err
	}
}

// vacuumFull rebuilds the tables of schema (VACUUM FULL), giving what
// deletes freed back to the file system.
func vacuumFull(tb testing.TB, schema string) func(context.Context) error {
	return func(ctx context.Context) error {
		conn, err := pgx.Connect(ctx, dsn(tb))
		if err != nil {
			return err
		}
		defer conn.Close(ctx)
		for _, table := range []string{"sessions", "messages", "compactions", "message_search"} {
			if _, err := conn.Exec(ctx, `VACUUM FULL `+pgx.Identifier{schema, table}.Sanitize()); err != nil {
				return err
			}
		}
		return nil
	}
}
