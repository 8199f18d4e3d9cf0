package pgstore_test

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"testing"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/session"
	"github.com/contextkit/compact/session/pgstore"
	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// hasTrigramIndex reports whether schema holds migration 4's index.
func hasTrigramIndex(t *testing.T, schema string) bool {
	t.Helper()
	conn, err := pgx.Connect(context.Background(), dsn(t))
	require.NoError(t, err)
	defer conn.Close(context.Background())
	var n int
	require.NoError(t, conn.QueryRow(context.Background(),
		`SELECT count(*) FROM pg_indexes WHERE schemaname = $1 AND indexname = 'messages_search_trgm'`, schema).Scan(&n))
	return n == 1
}

// Issue 33.7: Open builds a trigram index over the search text, and Search
// answers exactly what it answered by reading the session's records: with
// the index, without it (a server with no pg_trgm, which Open logs), and as
// MemoryStore does, LIKE's wildcards and escape in the text included.
func TestSearchAnswersTheSameWithTheTrigramIndexOrWithout(t *testing.T) {
	ctx := context.Background()
	var logged bytes.Buffer
	indexed, plain := schema(t), schema(t)
	stores := map[string]session.Store{
		"memory":  session.NewMemoryStore(),
		"indexed": open(t, pgstore.WithSchema(indexed)),
		"plain": open(t, pgstore.WithSchema(plain), pgstore.WithTrigramExtension("pg_trgm_absent"),
			pgstore.WithLogger(slog.New(slog.NewTextHandler(&logged, nil)))),
	}
	require.True(t, hasTrigramIndex(t, indexed), "Open builds the trigram index")
	require.False(t, hasTrigramIndex(t, plain), "without the extension, no index")
	assert.Contains(t, logged.String(), "no trigram index", "and Open says so")

	texts := []string{
		"The deploy is 100% done.", "a_b is not axb", `copied to C:\temp\out`, "100 percent", "ÜNÏCODE text",
		"Error: disk full", "errors were found", "tool output\x00with a NUL", "do it", "%_\\",
	}
	for _, id := range []string{"agent-7", "agent-8"} {
		for st := range stores {
			msgs := make([]compact.Message, 0, 3*len(texts))
			for round := 0; round < 3; round++ {
				for _, text := range texts {
					msgs = append(msgs, compact.Message{Role: compact.RoleTool, ToolCallID: "c1", Content: fmt.Sprintf("%s (%s, round %d)", text, id, round)})
				}
			}
			_, _, err := stores[st].Append(ctx, id, msgs...)
			require.NoError(t, err)
		}
	}
	queries := []string{"100%", "a_b", `C:\TEMP`, "%", "_", `\`, "%_\\", "do", "DONE", "ünï", "error", "disk full", "agent-8", "with a nul", "round 2", "zzz"}
	for _, q := range queries {
		for _, c := range []struct {
			after int64
			limit int
		}{{0, 0}, {0, 2}, {12, 0}, {12, 1}} {
			want, err := stores["memory"].(session.Searcher).Search(ctx, "agent-7", q, c.after, c.limit)
			require.NoError(t, err)
			for _, name := range []string{"indexed", "plain"} {
				got, err := stores[name].(session.Searcher).Search(ctx, "agent-7", q, c.after, c.limit)
				require.NoError(t, err)
				assert.Equal(t, seqsOf(want), seqsOf(got), "%s: Search(%q, after %d, limit %d)", name, q, c.after, c.limit)
			}
		}
	}
}

func seqsOf(recs []session.Record) []int64 {
	out := []int64{}
	for _, r := range recs {
		out = append(out, r.Seq)
	}
	return out
}

// Migration 4 finds an index built beforehand (CREATE INDEX CONCURRENTLY
// under its name, as the package doc advises for a large database) and
// runs again harmlessly.
func TestTrigramMigrationRunsAgain(t *testing.T) {
	name := schema(t)
	st := open(t, pgstore.WithSchema(name))
	st.Close()
	exec(t, `UPDATE `+pgx.Identifier{name}.Sanitize()+`.schema_version SET version = 3`)
	st2 := open(t, pgstore.WithSchema(name))
	_, _, err := st2.Append(context.Background(), "agent-7", compact.Message{Role: compact.RoleUser, Content: "hello there"})
	require.NoError(t, err)
	found, err := st2.Search(context.Background(), "agent-7", "HELLO", 0, 0)
	require.NoError(t, err)
	assert.Len(t, found, 1)
	assert.True(t, hasTrigramIndex(t, name))
}
