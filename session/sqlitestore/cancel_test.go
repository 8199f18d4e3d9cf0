package sqlitestore_test

import (
	"context"
	"fmt"
	"math/rand"
	"path/filepath"
	"testing"
	"time"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/session/sqlitestore"
	"github.com/stretchr/testify/require"
)

// A read whose ctx ends while it runs (a compaction's deadline passing,
// say) must leave nothing behind: a connection kept in a read transaction
// by a statement the driver never closed would go on answering every later
// read from that old snapshot, never seeing what other processes appended.
// (modernc.org/sqlite before v1.40.1 leaked such statements.)
func TestCancelledReadsLeaveNoStaleSnapshot(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "sessions.db")
	st, err := sqlitestore.Open(ctx, path)
	require.NoError(t, err)
	defer st.Close()
	other, err := sqlitestore.Open(ctx, path) // another process
	require.NoError(t, err)
	defer other.Close()

	rng := rand.New(rand.NewSource(1))
	for i := 0; i < 200; i++ {
		last, _, err := other.Append(ctx, "agent-7", compact.Message{Role: compact.RoleUser, Content: fmt.Sprintf("message %d", i)})
		require.NoError(t, err)
		// A few reads cut short at any point, on every pooled connection.
		for k := 0; k < 4; k++ {
			cctx, cancel := context.WithTimeout(ctx, time.Duration(rng.Intn(300))*time.Microsecond)
			_, _ = st.Read(cctx, "agent-7", 1, 0)
			_, _, _, _ = st.Live(cctx, "agent-7")
			cancel()
		}
		for k := 0; k < 4; k++ {
			recs, err := st.Read(ctx, "agent-7", 1, 0)
			require.NoError(t, err)
			require.EqualValues(t, last, len(recs), "iteration %d: a read sees %d of the %d records another process committed", i, len(recs), last)
		}
	}
}
