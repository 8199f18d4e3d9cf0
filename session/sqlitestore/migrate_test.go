package sqlitestore_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/models"
	"github.com/contextkit/compact/session/internal/legacy"
	"github.com/contextkit/compact/session/sqlitestore"
	"github.com/contextkit/compact/session/store"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Migrations 2 and 3 add the range each compaction's summary stands for,
// and what the session had been billed, to a file written at version 1,
// keep what it held (a compaction from before reads back with no range
// and no spend), and run again harmlessly on a file that has the columns
// already (a step applied by hand, or half applied).
func TestMigrationsAddTheFoldedRangeAndTheSpend(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "sessions.db")
	st, err := sqlitestore.Open(ctx, path)
	require.NoError(t, err)
	_, _, err = st.Append(ctx, "agent-7", compact.Message{Role: compact.RoleUser, Content: "a"},
		compact.Message{Role: compact.RoleAssistant, Content: "b"}, compact.Message{Role: compact.RoleUser, Content: "c"})
	require.NoError(t, err)
	_, err = st.Commit(ctx, "agent-7", store.Compaction{N: 1, Through: 2, FoldedFrom: 1, FoldedThrough: 2}, store.Lease{})
	require.NoError(t, err)
	require.NoError(t, st.Close())

	// The file as version 1 wrote it: no range or spend columns.
	db := rawDB(t, path)
	for _, q := range []string{
		`ALTER TABLE compactions DROP COLUMN folded_from`,
		`ALTER TABLE compactions DROP COLUMN folded_through`,
		`ALTER TABLE compactions DROP COLUMN spend`,
		`UPDATE schema_version SET version = 1`,
	} {
		_, err := db.Exec(q)
		require.NoError(t, err, q)
	}

	spent := models.Spend{Requests: 2, Billed: models.Tokens{CacheRead: 10, CacheWrite: 5}}
	for _, step := range []string{"migrating version 1", "running steps 2 and 3 again"} {
		st, err = sqlitestore.Open(ctx, path)
		require.NoError(t, err, step)
		comps, err := st.Compactions(ctx, "agent-7")
		require.NoError(t, err, step)
		require.NotEmpty(t, comps, step)
		assert.Zero(t, comps[0].FoldedFrom, "%s: a compaction from before records no range", step)
		assert.Zero(t, comps[0].Spend, "%s: nor a spend", step)
		var version int
		require.NoError(t, db.QueryRow(`SELECT version FROM schema_version`).Scan(&version))
		assert.Equal(t, 6, version, step)
		if len(comps) == 1 {
			_, err = st.Commit(ctx, "agent-7", store.Compaction{N: 2, Through: 3, FoldedFrom: 1, FoldedThrough: 3, Spend: spent}, store.Lease{})
			require.NoError(t, err)
		}
		comps, err = st.Compactions(ctx, "agent-7")
		require.NoError(t, err)
		assert.Equal(t, [2]int64{1, 3}, [2]int64{comps[1].FoldedFrom, comps[1].FoldedThrough}, step)
		assert.Equal(t, spent, comps[1].Spend, step)
		require.NoError(t, st.Close())
		_, err = db.Exec(`UPDATE schema_version SET version = 1`) // the columns stay
		require.NoError(t, err)
	}
}

// A file written before stores kept every byte holds go-openai's JSON for
// each message, with U+FFFD where a byte was not UTF-8: it reads as it
// always did, beside what is appended now.
func TestMessagesWrittenBeforeBytesWereKeptStillRead(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "sessions.db")
	old := legacy.Messages()
	st, err := sqlitestore.Open(ctx, path)
	require.NoError(t, err)
	_, _, err = st.Append(ctx, "agent-7", old...)
	require.NoError(t, err)
	_, err = st.Commit(ctx, "agent-7", store.Compaction{N: 1, Through: 1, Live: old[:1]}, store.Lease{})
	require.NoError(t, err)
	require.NoError(t, st.Close())

	// The rows as the earlier version wrote them.
	db := rawDB(t, path)
	for i, m := range old {
		_, err = db.Exec(`UPDATE messages SET body = ? WHERE session = 'agent-7' AND seq = ?`, legacy.JSON(t, m), i+1)
		require.NoError(t, err)
	}
	_, err = db.Exec(`UPDATE compactions SET live = ? WHERE session = 'agent-7' AND n = 1`, legacy.JSON(t, old[:1]))
	require.NoError(t, err)

	st, err = sqlitestore.Open(ctx, path)
	require.NoError(t, err)
	defer st.Close()
	legacy.Check(t, st, "agent-7")
}

// Migration 4 replaces the first search index (one for the whole file,
// with positions) by the one kept session by session: the old tables go,
// searches find what they found, and the step runs again harmlessly.
func TestMigrationReplacesTheSearchIndex(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "sessions.db")
	st, err := sqlitestore.Open(ctx, path)
	require.NoError(t, err)
	msgs := make([]compact.Message, 400)
	for i := range msgs {
		msgs[i] = compact.Message{Role: compact.RoleTool, Content: fmt.Sprintf("step %d: ok", i)}
	}
	msgs[7].Content = "step 7: ERROR disk full"
	_, _, err = st.Append(ctx, "agent-7", msgs...)
	require.NoError(t, err)
	require.NoError(t, st.Close())

	// The file as version 3 left it.
	db := rawDB(t, path)
	for _, q := range []string{
		`DROP TABLE message_search`,
		`ALTER TABLE sessions DROP COLUMN indexed`,
		`CREATE VIRTUAL TABLE message_text USING fts5 (text, content = '', tokenize = 'trigram')`,
		`CREATE TABLE search_index (indexed INTEGER NOT NULL) STRICT`,
		`INSERT INTO search_index (indexed) VALUES (0)`,
		`UPDATE schema_version SET version = 3`,
	} {
		_, err := db.Exec(q)
		require.NoError(t, err, q)
	}
	for _, step := range []string{"migrating version 3", "running step 4 again"} {
		st, err := sqlitestore.Open(ctx, path)
		require.NoError(t, err, step)
		found, err := st.Search(ctx, "agent-7", "error disk", 0, 0)
		require.NoError(t, err, step)
		require.Len(t, found, 1, step)
		assert.EqualValues(t, 8, found[0].Seq, step)
		var old int
		require.NoError(t, db.QueryRow(`SELECT count(*) FROM sqlite_schema WHERE name IN ('message_text', 'search_index')`).Scan(&old))
		assert.Zero(t, old, "%s: the first index is gone", step)
		require.NoError(t, st.Close())
		_, err = db.Exec(`UPDATE schema_version SET version = 3`) // the new index stays
		require.NoError(t, err)
	}
}

// Migration 6 numbers the index's rows by record and piece: the rows
// migration 4's index kept under the records' own rowids are dropped and
// the index rebuilt by the next search, which finds what it found.
func TestMigrationRenumbersTheSearchIndex(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "sessions.db")
	st, err := sqlitestore.Open(ctx, path)
	require.NoError(t, err)
	msgs := make([]compact.Message, 400)
	for i := range msgs {
		msgs[i] = compact.Message{Role: compact.RoleTool, Content: fmt.Sprintf("step %d: ok", i)}
	}
	msgs[7].Content = "step 7: ERROR disk full"
	_, _, err = st.Append(ctx, "agent-7", msgs...)
	require.NoError(t, err)
	require.NoError(t, st.Close())

	// The index as version 5 left it: each record whole, under its rowid.
	db := rawDB(t, path)
	for _, q := range []string{
		`INSERT INTO message_search (message_search) VALUES ('delete-all')`,
		`INSERT INTO message_search (rowid, text) SELECT rowid, '` + sqlitestore.Tag("agent-7") + "\n" + `' || json_extract(body, '$.content') FROM messages`,
		`UPDATE sessions SET indexed = last_seq`,
		`UPDATE schema_version SET version = 5`,
	} {
		_, err := db.Exec(q)
		require.NoError(t, err, q)
	}
	st, err = sqlitestore.Open(ctx, path)
	require.NoError(t, err)
	defer st.Close()
	found, err := st.Search(ctx, "agent-7", "error disk", 0, 0)
	require.NoError(t, err)
	require.Len(t, found, 1)
	assert.EqualValues(t, 8, found[0].Seq)
	var n, old int
	require.NoError(t, db.QueryRow(`SELECT count(*), count(*) FILTER (WHERE rowid % 64 != 0) FROM message_search`).Scan(&n, &old))
	assert.Equal(t, 400, n, "a row a record")
	assert.Zero(t, old, "none under the old numbering (short texts are piece 0)")
}
