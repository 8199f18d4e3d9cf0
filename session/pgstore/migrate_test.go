package pgstore_test

import (
	"context"
	"testing"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/models"
	"github.com/contextkit/compact/session/internal/legacy"
	"github.com/contextkit/compact/session/pgstore"
	"github.com/contextkit/compact/session/store"
	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Migrations 2 and 3 add the range each compaction's summary stands for,
// and what the session had been billed, to a schema written at version 1,
// keep what it held (a compaction from before reads back with no range and
// no spend), and run again harmlessly on a schema that has the columns
// already.
func TestMigrationsAddTheFoldedRangeAndTheSpend(t *testing.T) {
	ctx := context.Background()
	name := schema(t)
	S := pgx.Identifier{name}.Sanitize()
	st := open(t, pgstore.WithSchema(name))
	_, _, err := st.Append(ctx, "agent-7", compact.Message{Role: compact.RoleUser, Content: "a"},
		compact.Message{Role: compact.RoleAssistant, Content: "b"}, compact.Message{Role: compact.RoleUser, Content: "c"})
	require.NoError(t, err)
	_, err = st.Commit(ctx, "agent-7", store.Compaction{N: 1, Through: 2, FoldedFrom: 1, FoldedThrough: 2}, store.Lease{})
	require.NoError(t, err)
	require.NoError(t, st.Close())

	// The schema as version 1 wrote it: no range or spend columns.
	exec(t, `ALTER TABLE `+S+`.compactions DROP COLUMN folded_from, DROP COLUMN folded_through, DROP COLUMN spend`)
	exec(t, `UPDATE `+S+`.schema_version SET version = 1`)

	spent := models.Spend{Requests: 2, Billed: models.Tokens{CacheRead: 10, CacheWrite: 5}}
	for _, step := range []string{"migrating version 1", "running steps 2 and 3 again"} {
		st := open(t, pgstore.WithSchema(name))
		comps, err := st.Compactions(ctx, "agent-7")
		require.NoError(t, err, step)
		require.NotEmpty(t, comps, step)
		assert.Zero(t, comps[0].FoldedFrom, "%s: a compaction from before records no range", step)
		assert.Zero(t, comps[0].Spend, "%s: nor a spend", step)
		if len(comps) == 1 {
			_, err = st.Commit(ctx, "agent-7", store.Compaction{N: 2, Through: 3, FoldedFrom: 1, FoldedThrough: 3, Spend: spent}, store.Lease{})
			require.NoError(t, err)
		}
		comps, err = st.Compactions(ctx, "agent-7")
		require.NoError(t, err)
		assert.Equal(t, [2]int64{1, 3}, [2]int64{comps[1].FoldedFrom, comps[1].FoldedThrough}, step)
		assert.Equal(t, spent, comps[1].Spend, step)
		require.NoError(t, st.Close())
		exec(t, `UPDATE `+S+`.schema_version SET version = 1`) // the columns stay
	}
}

// A schema written before stores kept every byte holds go-openai's JSON for
// each message, with U+FFFD where a byte was not UTF-8: it reads as it
// always did, beside what is appended now.
func TestMessagesWrittenBeforeBytesWereKeptStillRead(t *testing.T) {
	ctx := context.Background()
	name := schema(t)
	S := pgx.Identifier{name}.Sanitize()
	old := legacy.Messages()
	st := open(t, pgstore.WithSchema(name))
	_, _, err := st.Append(ctx, "agent-7", old...)
	require.NoError(t, err)
	_, err = st.Commit(ctx, "agent-7", store.Compaction{N: 1, Through: 1, Live: old[:1]}, store.Lease{})
	require.NoError(t, err)
	require.NoError(t, st.Close())

	// The rows as the earlier version wrote them.
	for i, m := range old {
		exec(t, `UPDATE `+S+`.messages SET body = $1 WHERE session = 'agent-7' AND seq = $2`, legacy.JSON(t, m), i+1)
	}
	exec(t, `UPDATE `+S+`.compactions SET live = $1 WHERE session = 'agent-7' AND n = 1`, legacy.JSON(t, old[:1]))

	legacy.Check(t, open(t, pgstore.WithSchema(name)), "agent-7")
}
