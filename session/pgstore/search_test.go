package pgstore_test

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/session/pgstore"
	"github.com/contextkit/compact/session/store"
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
		`SELECT count(*) FROM pg_indexes WHERE schemaname = $1 AND indexname = 'message_search_trgm'`, schema).Scan(&n))
	return n == 1
}

// Issue 33.7: Open builds a trigram index over the search text, and Search
// answers exactly what it answered by reading the session's records: with
// the index, without it (a server with no pg_trgm, which Open logs), and as
// store.Memory does, LIKE's wildcards and escape in the text included.
func TestSearchAnswersTheSameWithTheTrigramIndexOrWithout(t *testing.T) {
	ctx := context.Background()
	var logged bytes.Buffer
	indexed, plain := schema(t), schema(t)
	stores := map[string]store.Store{
		"memory":  store.NewMemory(),
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
	// appendRounds appends rounds of texts to each session of each store.
	appendRounds := func(from, to int) {
		for _, id := range []string{"agent-7", "agent-8"} {
			for st := range stores {
				var msgs []compact.Message
				for round := from; round < to; round++ {
					for _, text := range texts {
						msgs = append(msgs, compact.Message{Role: compact.RoleTool, ToolCallID: "c1", Content: fmt.Sprintf("%s (%s, round %d)", text, id, round)})
					}
				}
				_, _, err := stores[st].Append(ctx, id, msgs...)
				require.NoError(t, err)
			}
		}
	}
	// Past the records a search leaves out of the table; then some that
	// follow the table.
	appendRounds(0, 30)
	_, err := stores["indexed"].(store.Searcher).Search(ctx, "agent-7", "warm up", 0, 1)
	require.NoError(t, err)
	appendRounds(30, 33)
	queries := []string{"100%", "a_b", `C:\TEMP`, "%", "_", `\`, "%_\\", "do", "DONE", "ünï", "error", "disk full", "agent-8", "with a nul", "round 2", "round 31", "zzz"}
	for _, q := range queries {
		for _, c := range []struct {
			after int64
			limit int
		}{{0, 0}, {0, 2}, {12, 0}, {12, 1}, {295, 3}, {305, 0}} {
			want, err := stores["memory"].(store.Searcher).Search(ctx, "agent-7", q, c.after, c.limit)
			require.NoError(t, err)
			for _, name := range []string{"indexed", "plain"} {
				got, err := stores[name].(store.Searcher).Search(ctx, "agent-7", q, c.after, c.limit)
				require.NoError(t, err)
				assert.Equal(t, seqsOf(want), seqsOf(got), "%s: Search(%q, after %d, limit %d)", name, q, c.after, c.limit)
			}
		}
	}
}

func seqsOf(recs []store.Record) []int64 {
	out := []int64{}
	for _, r := range recs {
		out = append(out, r.Seq)
	}
	return out
}

// Migration 4 takes a schema version 3 wrote (a search column filled by
// appends) to the search table and its index, and runs again harmlessly
// (finding an index built beforehand under its name, as the package doc
// advises for a large database).
func TestSearchMigrationFromVersion3(t *testing.T) {
	ctx := context.Background()
	name := schema(t)
	S := pgx.Identifier{name}.Sanitize()
	st := open(t, pgstore.WithSchema(name))
	_, _, err := st.Append(ctx, "agent-7", compact.Message{Role: compact.RoleUser, Content: "hello there"})
	require.NoError(t, err)
	require.NoError(t, st.Close())
	exec(t, `DROP TABLE `+S+`.message_search`)
	exec(t, `ALTER TABLE `+S+`.messages ADD COLUMN search text NOT NULL DEFAULT 'hello there'`)
	exec(t, `UPDATE `+S+`.schema_version SET version = 3`)
	for _, step := range []string{"migrating version 3", "running step 4 again"} {
		st := open(t, pgstore.WithSchema(name))
		_, _, err := st.Append(ctx, "agent-7", compact.Message{Role: compact.RoleUser, Content: "hello again"})
		require.NoError(t, err, step)
		found, err := st.Search(ctx, "agent-7", "HELLO", 0, 0)
		require.NoError(t, err, step)
		assert.NotEmpty(t, found, step)
		assert.True(t, hasTrigramIndex(t, name), step)
		require.NoError(t, st.Close())
		exec(t, `UPDATE `+S+`.schema_version SET version = 3`)
	}
}

// The search table holds a session's records once a search has put them in
// (a session never searched takes no room in it), and migration 4 drops
// the search column appends used to fill.
func TestSearchFillsTheTableSessionBySession(t *testing.T) {
	ctx := context.Background()
	name := schema(t)
	st := open(t, pgstore.WithSchema(name))
	msgs := make([]compact.Message, 300)
	for i := range msgs {
		msgs[i] = compact.Message{Role: compact.RoleUser, Content: fmt.Sprintf("step %d", i)}
	}
	for _, id := range []string{"agent-7", "agent-8"} {
		_, _, err := st.Append(ctx, id, msgs...)
		require.NoError(t, err)
	}
	found, err := st.Search(ctx, "agent-7", "STEP 29", 0, 0)
	require.NoError(t, err)
	assert.Len(t, found, 11, "step 29, 290..299")

	conn, err := pgx.Connect(ctx, dsn(t))
	require.NoError(t, err)
	defer conn.Close(ctx)
	count := func(id string) (n int) {
		require.NoError(t, conn.QueryRow(ctx, `SELECT count(*) FROM `+pgx.Identifier{name}.Sanitize()+`.message_search WHERE session = $1`, id).Scan(&n))
		return n
	}
	assert.Equal(t, 300, count("agent-7"), "the searched session's records are in the table")
	assert.Zero(t, count("agent-8"), "a session never searched takes no room")
	var columns int
	require.NoError(t, conn.QueryRow(ctx, `SELECT count(*) FROM information_schema.columns
		WHERE table_schema = $1 AND table_name = 'messages' AND column_name = 'search'`, name).Scan(&columns))
	assert.Zero(t, columns, "the messages keep no search text")
}

// A search that fills the search table leaves the trigram index with no
// pending entries (which would make the planner shun it), and keeps a long
// text in pieces, found across their boundaries; the same on a partitioned
// table, whose index is one per partition.
func TestSearchLeavesTheTrigramIndexFlushed(t *testing.T) {
	ctx := context.Background()
	for _, partitioned := range []bool{false, true} {
		name := schema(t)
		if partitioned {
			S := pgx.Identifier{name}.Sanitize()
			ddl := strings.ReplaceAll(partitionedDDL, "$S", S)
			for _, table := range []string{"sessions", "messages", "compactions", "message_search"} {
				for r := 0; r < 2; r++ {
					ddl += fmt.Sprintf("CREATE TABLE %s.%s_p%d PARTITION OF %s.%s FOR VALUES WITH (MODULUS 2, REMAINDER %d);\n",
						S, table, r, S, table, r)
				}
			}
			exec(t, ddl)
		}
		st := open(t, pgstore.WithSchema(name))
		msgs := make([]compact.Message, 300)
		for i := range msgs {
			msgs[i] = compact.Message{Role: compact.RoleTool, ToolCallID: "c", Content: fmt.Sprintf("step %d: %s", i, strings.Repeat("ok ", 3000))}
		}
		msgs[7].Content = strings.Repeat("ok ", 1365) + "KeyError: 'x'" + strings.Repeat(" ok", 3000)
		_, _, err := st.Append(ctx, "agent-7", msgs...)
		require.NoError(t, err)
		found, err := st.Search(ctx, "agent-7", "keyerror: 'X'", 0, 0)
		require.NoError(t, err)
		require.Len(t, found, 1, "partitioned %v", partitioned)
		assert.EqualValues(t, 8, found[0].Seq)

		conn, err := pgx.Connect(ctx, dsn(t))
		require.NoError(t, err)
		var pending, pieces int
		require.NoError(t, conn.QueryRow(ctx, `SELECT coalesce(sum(gin_clean_pending_list(relid)), 0)
			FROM pg_partition_tree(to_regclass($1)) WHERE isleaf`,
			pgx.Identifier{name, "message_search_trgm"}.Sanitize()).Scan(&pending))
		require.NoError(t, conn.QueryRow(ctx, `SELECT count(*) FROM `+pgx.Identifier{name}.Sanitize()+`.message_search`).Scan(&pieces))
		conn.Close(ctx)
		assert.Zero(t, pending, "partitioned %v: pages pending in the trigram index", partitioned)
		assert.Greater(t, pieces, 300, "partitioned %v: long texts in pieces", partitioned)
	}
}
