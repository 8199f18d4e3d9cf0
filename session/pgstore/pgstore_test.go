package pgstore_test

import (
	"context"
	"github.com/contextkit/compact"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/contextkit/compact/internal/sharedtest"
	"github.com/contextkit/compact/session/pgstore"
	"github.com/contextkit/compact/session/store"
	"github.com/contextkit/compact/session/storetest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// dsn returns the DSN of the Postgres the tests may use, from
// COMPACT_PG_DSN, skipping the test when there is none unless
// COMPACT_REQUIRE_PG=1 makes it required.
func dsn(t testing.TB) string {
	t.Helper()
	d := os.Getenv("COMPACT_PG_DSN")
	if d == "" {
		if os.Getenv("COMPACT_REQUIRE_PG") == "1" {
			t.Fatal("COMPACT_REQUIRE_PG=1 but COMPACT_PG_DSN is not set (start one with .ci/postgres.sh start)")
		}
		sharedtest.Skip(t, sharedtest.NoPostgres)
	}
	return d
}

// open opens a store on the test database, closed when t ends.
func open(t testing.TB, opts ...pgstore.Option) *pgstore.Store {
	t.Helper()
	st, err := pgstore.Open(context.Background(), dsn(t), opts...)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, st.Close()) })
	return st
}

func TestConformance(t *testing.T) {
	st := open(t)
	storetest.Run(t, func(*testing.T) store.Store { return st })
}

// Issue 33.6: the pool opens up to 8 connections unless told (pgxpool's 4
// doubled a fleet's Append p99), and what the host says wins: the DSN's
// pool_max_conns (issue 32.6: the only way to say it).
func TestPoolSize(t *testing.T) {
	d := dsn(t)
	assert.GreaterOrEqual(t, pgstore.MaxConns(open(t)), int32(8))
	sep := "?"
	if strings.Contains(d, "?") {
		sep = "&"
	}
	st, err := pgstore.Open(context.Background(), d+sep+"pool_max_conns=5")
	require.NoError(t, err)
	defer st.Close()
	assert.Equal(t, int32(5), pgstore.MaxConns(st))
}

// Issue 32.6: a Store is an io.Closer, as sqlitestore's is; closing it
// twice does nothing, and a closed Store refuses work.
func TestCloseIsAnIOCloser(t *testing.T) {
	st, err := pgstore.Open(context.Background(), dsn(t))
	require.NoError(t, err)
	var c io.Closer = st
	require.NoError(t, c.Close())
	require.NoError(t, c.Close(), "a second Close does nothing")
	_, _, err = st.Append(context.Background(), "closed", compact.Message{Role: compact.RoleUser, Content: "hi"})
	require.Error(t, err, "a closed Store refuses work")
}
