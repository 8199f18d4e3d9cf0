package session_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/internal/sharedtest"
	"github.com/contextkit/compact/session"
	"github.com/contextkit/compact/session/pgstore"
	"github.com/contextkit/compact/session/sqlitestore"
	"github.com/contextkit/compact/session/store"
)

// recallStores names the stores the recall tests run on: in memory, a
// SQLite file, and Postgres when COMPACT_PG_DSN names one.
var recallStores = []string{"memory", "sqlite", "postgres"}

// openStore opens the store named name for tb, closed when tb ends; it
// skips tb for Postgres when COMPACT_PG_DSN is not set.
func openStore(tb testing.TB, name string) store.Store {
	tb.Helper()
	ctx := context.Background()
	switch name {
	case "sqlite":
		st, err := sqlitestore.Open(ctx, filepath.Join(tb.TempDir(), "recall.db"))
		require.NoError(tb, err)
		tb.Cleanup(func() { _ = st.Close() })
		return st
	case "postgres":
		dsn := os.Getenv("COMPACT_PG_DSN")
		if dsn == "" {
			require.NotEqual(tb, "1", os.Getenv("COMPACT_REQUIRE_PG"), "COMPACT_REQUIRE_PG=1 but COMPACT_PG_DSN is not set")
			sharedtest.Skip(tb, sharedtest.NoPostgres)
		}
		// A schema of the run's own, dropped after: ids repeat across runs.
		schema := fmt.Sprintf("recall_%d_%d", os.Getpid(), time.Now().UnixNano())
		st, err := pgstore.Open(ctx, dsn, pgstore.WithSchema(schema))
		require.NoError(tb, err)
		tb.Cleanup(func() {
			dropSchema(tb, dsn, schema)
			st.Close()
		})
		return st
	}
	return store.NewMemory()
}

// dropSchema removes a test's schema from the database.
func dropSchema(tb testing.TB, dsn, schema string) {
	conn, err := pgx.Connect(context.Background(), dsn)
	if err != nil {
		tb.Logf("dropping schema %s: %v", schema, err)
		return
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(context.Background(), "DROP SCHEMA "+pgx.Identifier{schema}.Sanitize()+" CASCADE"); err != nil {
		tb.Logf("dropping schema %s: %v", schema, err)
	}
}

// sharedEngine is an engine a Manager cannot tell is shared: a value
// holding the same Compressor for every session, the mistake a factory
// that "reuses engines" makes.
type sharedEngine struct{ *compact.Compressor }

// isolationIDs are session ids that a careless store would mix up: one a
// prefix of another, and SQL LIKE wildcards.
var isolationIDs = []string{"agent", "agent-1", "agent-10", "agent_1", "agent%", "AGENT"}

// marker is a token only session k's messages hold.
func marker(k int) string { return fmt.Sprintf("zq%02dmark", k) }

func isolationHistory(k int) []compact.Message {
	msgs := []compact.Message{
		{Role: compact.RoleSystem, Content: "You are agent " + marker(k) + "."},
	}
	for i := 1; i <= 30; i++ {
		msgs = append(msgs,
			compact.Message{Role: compact.RoleUser, Content: fmt.Sprintf("%s step %d: %s", marker(k), i, strings.Repeat("context ", 30))},
			compact.Message{Role: compact.RoleAssistant, Content: fmt.Sprintf("%s done %d: error E-%s-%d", marker(k), i, marker(k), i)})
	}
	return msgs
}

// TestRecallReadsOnlyItsOwnSession: sessions sharing a store, and an engine,
// through a Manager: each session's tools find, expand and describe its own
// log and nothing of the others', whatever their ids have in common.
func TestRecallReadsOnlyItsOwnSession(t *testing.T) {
	for _, name := range recallStores {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			st := openStore(t, name)
			shared := sharedEngine{compact.New(compact.WithContextWindow(4000), compact.WithThresholdBounds(0, 0))}
			m := session.NewManager(func(string) compact.ContextEngine { return shared },
				session.WithStore(st), session.WithRecall(true))
			t.Cleanup(func() { _ = m.Close(ctx) })

			var wg sync.WaitGroup
			for k, id := range isolationIDs {
				s, err := m.Get(context.Background(), id)
				require.NoError(t, err)
				wg.Add(1)
				go func(k int, s *session.Session) {
					defer wg.Done()
					assert.NoError(t, s.Append(ctx, isolationHistory(k)...))
					_, err := s.Compress(ctx, compact.Force())
					assert.NoError(t, err)
				}(k, s)
			}
			wg.Wait()

			for k, id := range isolationIDs {
				s, _ := m.Lookup(id)
				own := marker(k)
				for j := range isolationIDs {
					ans := callTool(t, s, session.ToolSearch, fmt.Sprintf(`{"query":"E-%s-7"}`, marker(j)))
					if j == k {
						assert.Len(t, ans["matches"], 1, "%s finds its own", id)
					} else {
						assert.Empty(t, ans["matches"], "%s must not find %s's messages", id, isolationIDs[j])
					}
				}
				ans := callTool(t, s, session.ToolSearch, `{"query":"zq","limit":100}`)
				for _, m := range ans["matches"].([]any) {
					for _, h := range m.(map[string]any)["hits"].([]any) {
						assert.Contains(t, h.(map[string]any)["snippet"], own, "%s: a hit from another session", id)
					}
				}
				ans = callTool(t, s, session.ToolSearch, `{"query":"zq\\d\\dmark","regex":true,"limit":100}`)
				assert.NotEmpty(t, ans["matches"])

				texts := expandAll(t, s)
				assert.Len(t, texts, len(isolationHistory(k)), "%s: its whole log and no more", id)
				for _, text := range texts {
					assert.Contains(t, text, own, "%s: expand returned another session's message", id)
				}
				desc := callTool(t, s, session.ToolDescribe, `{}`)
				assert.Len(t, desc["compactions"], 1, "%s: its own compaction only", id)
			}
		})
	}
}

// expandAll reads a session's whole log through context_expand, following
// the cursors.
func expandAll(t *testing.T, s *session.Session) map[int]string {
	texts := map[int]string{}
	args := `{"from":1,"to":1000000}`
	for n := 0; args != ""; n++ {
		require.Less(t, n, 200)
		ans := callTool(t, s, session.ToolExpand, args)
		for _, m := range ans["messages"].([]any) {
			mm := m.(map[string]any)
			texts[int(mm["seq"].(float64))] += mm["text"].(string)
		}
		args = ""
		if next, ok := ans["next"]; ok {
			b, _ := json.Marshal(next)
			args = string(b)
		}
	}
	return texts
}

func callTool(t testing.TB, s *session.Session, name, args string) map[string]any {
	t.Helper()
	for _, tool := range s.Tools() {
		if tool.Definition.Function.Name == name {
			out, err := tool.Handle(context.Background(), args)
			require.NoError(t, err)
			var v map[string]any
			require.NoError(t, json.Unmarshal(out, &v), "%s", out)
			require.NotContains(t, v, "error")
			return v
		}
	}
	require.Failf(t, "no such tool", "%s", name)
	return nil
}
