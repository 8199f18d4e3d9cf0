package sqlitestore_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/session/sqlitestore"
	"github.com/contextkit/compact/session/store"
	openai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// rawDB opens the file behind a store directly, to break it on purpose.
func rawDB(t testing.TB, path string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	require.NoError(t, err)
	t.Cleanup(func() { db.Close() })
	return db
}

func TestCorruptRowIsNamed(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "sessions.db")
	st, err := sqlitestore.Open(ctx, path)
	require.NoError(t, err)
	defer st.Close()
	for i := 0; i < 3; i++ {
		_, _, err := st.Append(ctx, "agent-7", compact.Message{Role: compact.RoleUser, Content: "hello"})
		require.NoError(t, err)
	}
	_, err = st.Commit(ctx, "agent-7", store.Compaction{N: 1, Through: 1}, store.Lease{})
	require.NoError(t, err)
	db := rawDB(t, path)
	_, err = db.Exec(`UPDATE messages SET body = '{"role": ' WHERE session = 'agent-7' AND seq = 2`)
	require.NoError(t, err)

	_, err = st.Read(ctx, "agent-7", 1, 0)
	require.ErrorIs(t, err, store.ErrCorrupt)
	assert.Contains(t, err.Error(), `session "agent-7" record 2`)
	_, _, _, err = st.Live(ctx, "agent-7")
	require.ErrorIs(t, err, store.ErrCorrupt)
	assert.Contains(t, err.Error(), `session "agent-7" record 2`)
	recs, err := st.Read(ctx, "agent-7", 3, 3)
	require.NoError(t, err, "the rest of the log stays readable")
	assert.Len(t, recs, 1)

	_, err = db.Exec(`UPDATE compactions SET live = 'not json' WHERE session = 'agent-7' AND n = 1`)
	require.NoError(t, err)
	_, err = st.Compactions(ctx, "agent-7")
	require.ErrorIs(t, err, store.ErrCorrupt)
	assert.Contains(t, err.Error(), `session "agent-7" compaction 1`)
}

func TestUnknownSchemaVersionIsRefused(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "sessions.db")
	st, err := sqlitestore.Open(ctx, path)
	require.NoError(t, err)
	require.NoError(t, st.Close())
	st, err = sqlitestore.Open(ctx, path)
	require.NoError(t, err, "opening an up-to-date file again migrates nothing")
	require.NoError(t, st.Close())

	_, err = rawDB(t, path).Exec(`UPDATE schema_version SET version = 99`)
	require.NoError(t, err)
	_, err = sqlitestore.Open(ctx, path)
	require.ErrorIs(t, err, sqlitestore.ErrSchemaVersion)
	assert.Contains(t, err.Error(), "version 99")
	assert.Contains(t, err.Error(), path)
}

func TestOpenErrorNamesThePath(t *testing.T) {
	path := filepath.Join(t.TempDir(), "no such dir", "sessions.db")
	_, err := sqlitestore.Open(context.Background(), path)
	require.Error(t, err)
	assert.Contains(t, err.Error(), path)
}

func TestMessageBothContentsIsRefused(t *testing.T) {
	st := openTemp(t)
	bad := compact.Message{Role: compact.RoleUser, Content: "a", MultiContent: []openai.ChatMessagePart{{Type: openai.ChatMessagePartTypeText, Text: "b"}}}
	_, _, err := st.Append(context.Background(), "agent-7", compact.Message{Role: compact.RoleUser, Content: "ok"}, bad)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "message 1")
	recs, err := st.Read(context.Background(), "agent-7", 1, 0)
	require.NoError(t, err)
	assert.Empty(t, recs, "all or nothing")
}
