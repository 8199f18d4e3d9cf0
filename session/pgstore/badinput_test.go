package pgstore_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/session/pgstore"
	"github.com/contextkit/compact/session/store"
	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The password in these DSNs must never appear in an error.
const secret = "s3cr3t-PassW0rd"

func TestOpenErrorsNeverPrintThePassword(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for _, tt := range []struct {
		name, dsn string
		is        error
	}{
		{"bad port", "postgres://agent:" + secret + "@127.0.0.1:notaport/db", pgstore.ErrDSN},
		{"bad escape", "postgres://agent:" + secret + "%zz@127.0.0.1/db", pgstore.ErrDSN},
		{"bad key-value", "host=127.0.0.1 password=" + secret + " port=x", pgstore.ErrDSN},
		{"quoted key-value", "host=127.0.0.1 password='" + secret + " x' sslmode=bogus", pgstore.ErrDSN},
		{"nothing listens", "postgres://agent:" + secret + "@127.0.0.1:1/db?connect_timeout=2", pgstore.ErrConnect},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := pgstore.Open(ctx, tt.dsn)
			require.Error(t, err)
			assert.ErrorIs(t, err, tt.is)
			assert.NotContains(t, err.Error(), secret)
			assert.NotContains(t, fmt.Sprintf("%+v", err), secret)
			for e := err; e != nil; e = errors.Unwrap(e) {
				assert.NotContains(t, e.Error(), secret, "a wrapped error holds the password")
			}
		})
	}
}

func TestWrongPasswordIsNotPrinted(t *testing.T) {
	cfg, err := pgx.ParseConfig(dsn(t))
	require.NoError(t, err)
	wrong := fmt.Sprintf("postgres://%s:%s@%s:%d/%s?sslmode=disable", cfg.User, secret, cfg.Host, cfg.Port, cfg.Database)
	_, err = pgstore.Open(context.Background(), wrong)
	require.ErrorIs(t, err, pgstore.ErrConnect)
	assert.NotContains(t, err.Error(), secret)
	if cfg.Password != "" {
		_, err = pgstore.Open(context.Background(), dsn(t)+"&dbname=no_such_database_here")
		require.Error(t, err)
		assert.NotContains(t, err.Error(), cfg.Password)
	}
}

// schema makes a schema name of its own for tb, dropped when tb ends.
func schema(tb testing.TB) string {
	name := fmt.Sprintf("compact_test_%d", time.Now().UnixNano())
	tb.Cleanup(func() {
		conn, err := pgx.Connect(context.Background(), dsn(tb))
		if err == nil {
			_, _ = conn.Exec(context.Background(), `DROP SCHEMA `+pgx.Identifier{name}.Sanitize()+` CASCADE`)
			conn.Close(context.Background())
		}
	})
	return name
}

func exec(t *testing.T, sql string, args ...any) {
	t.Helper()
	conn, err := pgx.Connect(context.Background(), dsn(t))
	require.NoError(t, err)
	defer conn.Close(context.Background())
	_, err = conn.Exec(context.Background(), sql, args...)
	require.NoError(t, err)
}

func TestCorruptRowIsNamed(t *testing.T) {
	ctx := context.Background()
	name := schema(t)
	st := open(t, pgstore.WithSchema(name))
	for i := 0; i < 3; i++ {
		_, _, err := st.Append(ctx, "agent-7", compact.Message{Role: compact.RoleUser, Content: "hello"})
		require.NoError(t, err)
	}
	_, err := st.Commit(ctx, "agent-7", store.Compaction{N: 1, Through: 1}, store.Lease{})
	require.NoError(t, err)
	exec(t, `UPDATE `+name+`.messages SET body = '{"role": ' WHERE session = 'agent-7' AND seq = 2`)

	_, err = st.Read(ctx, "agent-7", 1, 0)
	require.ErrorIs(t, err, store.ErrCorrupt)
	assert.Contains(t, err.Error(), `session "agent-7" record 2`)
	_, _, _, err = st.Live(ctx, "agent-7")
	require.ErrorIs(t, err, store.ErrCorrupt)
	assert.Contains(t, err.Error(), `session "agent-7" record 2`)
	recs, err := st.Read(ctx, "agent-7", 3, 3)
	require.NoError(t, err, "the rest of the log stays readable")
	assert.Len(t, recs, 1)

	exec(t, `UPDATE `+name+`.compactions SET live = 'not json' WHERE session = 'agent-7' AND n = 1`)
	_, err = st.Compactions(ctx, "agent-7")
	require.ErrorIs(t, err, store.ErrCorrupt)
	assert.Contains(t, err.Error(), `session "agent-7" compaction 1`)
}

func TestUnknownSchemaVersionIsRefused(t *testing.T) {
	name := schema(t)
	st := open(t, pgstore.WithSchema(name))
	require.NoError(t, st.Close())
	again := open(t, pgstore.WithSchema(name)) // migrates nothing
	again.Close()
	exec(t, `UPDATE `+name+`.schema_version SET version = 99`)
	_, err := pgstore.Open(context.Background(), dsn(t), pgstore.WithSchema(name))
	require.ErrorIs(t, err, pgstore.ErrSchemaVersion)
	assert.Contains(t, err.Error(), "version 99")
	assert.False(t, strings.Contains(err.Error(), "password="))
}
