package main

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/session/pgstore"
	"github.com/contextkit/compact/session/sqlitestore"
	"github.com/contextkit/compact/session/store"
)

// archiveIn gives session id of st ten records, the first eight folded by
// one compaction, the fifth holding a token.
func archiveIn(t *testing.T, st store.Store, id string) {
	t.Helper()
	ctx := context.Background()
	msgs := make([]compact.Message, 10)
	for i := range msgs {
		msgs[i] = compact.Message{Role: compact.RoleUser, Content: fmt.Sprintf("message %d", i+1)}
	}
	msgs[4].Content = "export GITHUB_TOKEN=ghp_" + fmt.Sprintf("%036d", 5)
	_, _, err := st.Append(ctx, id, msgs...)
	require.NoError(t, err)
	_, err = st.Commit(ctx, id, store.Compaction{N: 1, Through: 9, FoldedFrom: 1, FoldedThrough: 8,
		Live: append([]compact.Message{{Role: compact.RoleUser, Content: "summary"}}, msgs[8])}, store.Lease{})
	require.NoError(t, err)
}

// Issue 33.2: retention, deletion and redaction run from the command line
// against a store's file.
func TestStoreLifecycleOnASQLiteFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sessions.db")
	st, err := sqlitestore.Open(context.Background(), path)
	require.NoError(t, err)
	defer st.Close()
	storeLifecycle(t, st, path, nil, "vacuumed "+path+"\n")
}

// The same against a Postgres DSN, in a schema of the test's own.
func TestStoreLifecycleOnPostgres(t *testing.T) {
	dsn := os.Getenv("COMPACT_PG_DSN")
	if dsn == "" || !isPostgres(dsn) {
		t.Skip("needs COMPACT_PG_DSN as a postgres:// URL")
	}
	ctx := context.Background()
	schema := fmt.Sprintf("cli_lifecycle_%d", time.Now().UnixNano())
	st, err := pgstore.Open(ctx, dsn, pgstore.WithSchema(schema))
	require.NoError(t, err)
	t.Cleanup(func() {
		if conn, err := pgx.Connect(ctx, dsn); err == nil {
			_, _ = conn.Exec(ctx, "DROP SCHEMA "+pgx.Identifier{schema}.Sanitize()+" CASCADE")
			_ = conn.Close(ctx)
		}
	})
	defer func() { _ = st.Close() }()
	storeLifecycle(t, st, dsn, []string{"-schema", schema}, "")
}

// storeLifecycle archives three sessions in st and runs redact, delete and
// expire against target (the file or DSN of st, with flags), checking what
// st reads afterwards. vacuumed is what -vacuum prints ("" where the
// store's kind refuses it).
func storeLifecycle(t *testing.T, st store.Store, target string, flags []string, vacuumed string) {
	t.Helper()
	ctx := context.Background()
	for _, id := range []string{"old", "gone", "secret"} {
		archiveIn(t, st, id)
	}
	time.Sleep(20 * time.Millisecond)
	cli := func(op string, args ...string) result {
		all := append([]string{"store", op}, flags...)
		return runCLI(t, "", append(all, args...)...)
	}

	r := cli("redact", target, "secret")
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.Equal(t, "redacted 1 folded records of session \"secret\"\n", r.stdout)
	recs, err := st.Read(ctx, "secret", 5, 5)
	require.NoError(t, err)
	assert.Equal(t, "export GITHUB_TOKEN=ghp_[REDACTED]", recs[0].Message.Content)

	r = cli("delete", target, "gone")
	require.Equal(t, exitOK, r.code, r.stderr)
	_, _, _, err = st.Live(ctx, "gone")
	assert.ErrorIs(t, err, store.ErrDeleted)

	expire := []string{"-folded", "10ms", "-prefix", "old"}
	if vacuumed != "" {
		expire = append(expire, "-vacuum")
	}
	r = cli("expire", append(expire, target)...)
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.Equal(t, "expired 8 folded records and 0 idle sessions\n"+vacuumed, r.stdout)
	recs, err = st.Read(ctx, "old", 1, 0)
	require.NoError(t, err)
	assert.Len(t, recs, 2, "records 9 and 10 are live")
	recs, err = st.Read(ctx, "secret", 1, 0)
	require.NoError(t, err)
	assert.Len(t, recs, 10, "another session's records stay")

	r = cli("expire", "-idle", "1d", target)
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.Equal(t, "expired 0 folded records and 0 idle sessions\n", r.stdout)
}

// The command never creates or changes what is not a session store, and
// names what is wrong with the command line.
func TestStoreRefusesBadInput(t *testing.T) {
	dir := t.TempDir()
	text := writeFile(t, dir, "notes.txt", "my notes\n")
	empty := writeFile(t, dir, "empty.db", "")
	missing := filepath.Join(dir, "missing.db")
	tests := []struct {
		args []string
		want string
	}{
		{nil, "name an operation"},
		{[]string{"compress", text}, "unknown operation"},
		{[]string{"expire", missing}, "give -folded, -idle or both"},
		{[]string{"expire", "-folded", "3x", missing}, `"3x" is neither a duration`},
		{[]string{"expire", "-folded", "-2d", missing}, `not a number of days`},
		{[]string{"expire", "-idle", "0s", missing}, `not a positive age`},
		{[]string{"expire", "-idle", "1h"}, "name the STORE"},
		{[]string{"expire", "-idle", "1h", missing, "s1"}, "no session"},
		{[]string{"delete", missing}, "name at least one SESSION"},
		{[]string{"delete", missing, "a\nb"}, `session "a\nb"`},
		{[]string{"redact", "-folded", "1h", missing, "s"}, "expire's"},
		{[]string{"expire", "-vacuum", "-idle", "1h", "postgres://u@h/db"}, "-vacuum is for a SQLite file"},
		{[]string{"expire", "-idle", "1h", missing}, "missing.db: stat"},
		{[]string{"expire", "-idle", "1h", dir}, "is not a regular file"},
		{[]string{"expire", "-idle", "1h", text}, "is not a SQLite database"},
		{[]string{"delete", empty, "s"}, "is not a SQLite database"},
	}
	for _, tt := range tests {
		r := runCLI(t, "", append([]string{"store"}, tt.args...)...)
		assert.Equal(t, exitUsage, r.code, "%q: %s", tt.args, r.stderr)
		assert.Contains(t, r.stderr, tt.want, "%q", tt.args)
		assert.Empty(t, r.stdout, "%q", tt.args)
	}
	assert.NoFileExists(t, missing)
	assert.Equal(t, "my notes\n", readFile(t, text))
	assert.Empty(t, readFile(t, empty))
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Len(t, entries, 2, "nothing was created beside the files")

	r := runCLI(t, "", "store", "-h")
	assert.Equal(t, exitOK, r.code)
	assert.Contains(t, r.stderr, "usage: compact store expire")
}

// A SQLite database that is not a session store is refused unchanged.
func TestStoreRefusesAnotherSQLiteDatabase(t *testing.T) {
	path := filepath.Join(t.TempDir(), "other.db")
	st, err := sqlitestore.Open(context.Background(), path)
	require.NoError(t, err)
	require.NoError(t, st.Close())
	other := filepath.Join(t.TempDir(), "app.db")
	db, err := sqlOpen(other)
	require.NoError(t, err)
	_, err = db.Exec(`CREATE TABLE users (name TEXT)`)
	require.NoError(t, err)
	require.NoError(t, db.Close())
	before := readFile(t, other)

	r := runCLI(t, "", "store", "expire", "-idle", "1h", other)
	assert.Equal(t, exitUsage, r.code, r.stderr)
	assert.Contains(t, r.stderr, "without a session store's tables")
	assert.Equal(t, before, readFile(t, other))
}

// On Postgres, a schema that holds no store is refused, not created.
func TestStoreRefusesAnEmptyPostgresSchema(t *testing.T) {
	dsn := os.Getenv("COMPACT_PG_DSN")
	if dsn == "" || !isPostgres(dsn) {
		t.Skip("needs COMPACT_PG_DSN as a postgres:// URL")
	}
	schema := fmt.Sprintf("cli_none_%d", time.Now().UnixNano())
	r := runCLI(t, "", "store", "expire", "-idle", "1h", "-schema", schema, dsn)
	assert.Equal(t, exitUsage, r.code, r.stderr)
	assert.Contains(t, r.stderr, "holds no session store")
	conn, err := pgx.Connect(context.Background(), dsn)
	require.NoError(t, err)
	defer conn.Close(context.Background())
	var exists bool
	require.NoError(t, conn.QueryRow(context.Background(), `SELECT EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = $1)`, schema).Scan(&exists))
	assert.False(t, exists, "the schema was not created")
}

// sqlOpen opens a SQLite file with the driver sqlitestore registers.
func sqlOpen(path string) (*sql.DB, error) { return sql.Open("sqlite", path) }
