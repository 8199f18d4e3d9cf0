package sqlitestore_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/contextkit/compact/session/sqlitestore"
	"github.com/contextkit/compact/session/store"
	"github.com/contextkit/compact/session/storetest"
	"github.com/stretchr/testify/require"
)

// openTemp opens a store in a file of t's temporary directory, closed when
// t ends.
func openTemp(t testing.TB, opts ...sqlitestore.Option) *sqlitestore.Store {
	t.Helper()
	st, err := sqlitestore.Open(context.Background(), filepath.Join(t.TempDir(), "sessions.db"), opts...)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, st.Close()) })
	return st
}

func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) store.Store { return openTemp(t) })
}
