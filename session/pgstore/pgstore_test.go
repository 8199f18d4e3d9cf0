package pgstore_test

import (
	"context"
	"os"
	"testing"

	"github.com/contextkit/compact/internal/sharedtest"
	"github.com/contextkit/compact/session"
	"github.com/contextkit/compact/session/pgstore"
	"github.com/contextkit/compact/session/storetest"
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
	t.Cleanup(st.Close)
	return st
}

func TestConformance(t *testing.T) {
	st := open(t)
	storetest.Run(t, func(*testing.T) session.Store { return st })
}
