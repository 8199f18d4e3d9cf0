package pgstore_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/session/pgstore"
	"github.com/contextkit/compact/session/store"
	"github.com/contextkit/compact/session/storetest"
	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// partitioned is the schema docs/sizing.md shows for a database that
// outgrows plain tables: the tables of migrations 1 to 3, each hash-
// partitioned on the session id, created before the Store's first Open.
const partitionedDDL = `
CREATE SCHEMA $S;
CREATE TABLE $S.sessions (
	id text PRIMARY KEY, last_seq bigint NOT NULL DEFAULT 0, compactions integer NOT NULL DEFAULT 0,
	live_through bigint NOT NULL DEFAULT 0, lease_id text, lease_fence bigint NOT NULL DEFAULT 0,
	lease_expires timestamptz NOT NULL DEFAULT 'epoch'
) PARTITION BY HASH (id);
CREATE TABLE $S.messages (
	session text NOT NULL, seq bigint NOT NULL, at timestamptz NOT NULL, body text NOT NULL,
	PRIMARY KEY (session, seq)
) PARTITION BY HASH (session);
CREATE TABLE $S.compactions (
	session text NOT NULL, n integer NOT NULL, from_seq bigint NOT NULL, through_seq bigint NOT NULL,
	live text NOT NULL, at timestamptz NOT NULL, tokens_before integer NOT NULL, tokens_after integer NOT NULL,
	summarizer text NOT NULL, fence bigint NOT NULL, folded_from bigint NOT NULL DEFAULT 0,
	folded_through bigint NOT NULL DEFAULT 0, spend text NOT NULL DEFAULT '',
	PRIMARY KEY (session, n)
) PARTITION BY HASH (session);
CREATE TABLE $S.message_search (
	session text NOT NULL, seq bigint NOT NULL, search text NOT NULL,
	PRIMARY KEY (session, seq),
	FOREIGN KEY (session, seq) REFERENCES $S.messages (session, seq) ON DELETE CASCADE
) PARTITION BY HASH (session);
`

// The Store runs, its rules kept, on tables hash-partitioned by session id
// that a host created before the first Open (docs/sizing.md): the
// migrations find them.
func TestConformancePartitioned(t *testing.T) {
	name := schema(t)
	S := pgx.Identifier{name}.Sanitize()
	ddl := strings.ReplaceAll(partitionedDDL, "$S", S)
	for _, table := range []string{"sessions", "messages", "compactions", "message_search"} {
		for r := 0; r < 4; r++ {
			ddl += fmt.Sprintf("CREATE TABLE %s.%s_p%d PARTITION OF %s.%s FOR VALUES WITH (MODULUS 4, REMAINDER %d);\n",
				S, table, r, S, table, r)
		}
	}
	exec(t, ddl)
	st := open(t, pgstore.WithSchema(name))
	storetest.Run(t, func(*testing.T) store.Store { return st })

	// And a search long enough to fill the search table.
	ctx := context.Background()
	msgs := make([]compact.Message, 300)
	for i := range msgs {
		msgs[i] = compact.Message{Role: compact.RoleUser, Content: fmt.Sprintf("step %d", i)}
	}
	_, _, err := st.Append(ctx, "agent-7", msgs...)
	require.NoError(t, err)
	found, err := st.Search(ctx, "agent-7", "STEP 29", 0, 0)
	require.NoError(t, err)
	assert.Len(t, found, 11, "step 29, 290..299")
	assert.True(t, hasTrigramIndex(t, name), "the index, on the partitioned table")
}
