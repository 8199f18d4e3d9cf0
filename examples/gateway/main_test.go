package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

var row = regexp.MustCompile(`(?m)^(\S+-\d+): (\d+) messages live, (\d+) in the log, (\d+) compactions, only its own: (\w+)$`)

// checkRows checks every agent's row of out: each agent compacted, keeps
// only its own messages, and logged every message the gateways sent.
func checkRows(t *testing.T, out, prefix string, agents, logged int) {
	t.Helper()
	rows := row.FindAllStringSubmatch(out, -1)
	require.Len(t, rows, agents, out)
	for i, r := range rows {
		assert.Equal(t, fmt.Sprintf("%s-%d", prefix, i), r[1])
		live, _ := strconv.Atoi(r[2])
		inLog, _ := strconv.Atoi(r[3])
		compactions, _ := strconv.Atoi(r[4])
		assert.Positive(t, compactions, "%s compacts", r[1])
		assert.Less(t, live, inLog, "%s: compaction shortened the live history, the log keeps everything", r[1])
		assert.Equal(t, logged, inLog, "%s: every message is in the log", r[1])
		assert.Equal(t, "true", r[5], "%s holds only its own messages", r[1])
	}
	started := regexp.MustCompile(`(\d+) compactions started, (\d+) done`).FindStringSubmatch(out)
	require.NotNil(t, started)
	assert.Equal(t, started[1], started[2])
}

func TestRunOnSQLiteByDefault(t *testing.T) {
	defer goleak.VerifyNone(t)
	var out bytes.Buffer
	require.NoError(t, run(context.Background(), &out, config{name: "gw", prefix: "agent", agents: 4, turns: 40}))
	t.Log(out.String())
	assert.Contains(t, out.String(), "store: sqlite (temp file)")
	checkRows(t, out.String(), "agent", 4, 80)
}

func TestRunOnPostgres(t *testing.T) {
	dsn := pgDSN(t)
	var out bytes.Buffer
	prefix := uniquePrefix()
	require.NoError(t, run(context.Background(), &out, config{store: dsn, name: "gw", prefix: prefix, agents: 2, turns: 40}))
	assert.Contains(t, out.String(), "store: postgres")
	assert.NotContains(t, out.String(), dsn)
	checkRows(t, out.String(), prefix, 2, 80)
}

// Two gateways (two stores, as two processes would have) serve the same
// agents on one SQLite file, and on one Postgres when there is one.
func TestTwoGatewaysShareOneStore(t *testing.T) {
	stores := map[string]string{"sqlite": filepath.Join(t.TempDir(), "shared.db")}
	if dsn := os.Getenv("COMPACT_PG_DSN"); dsn != "" {
		stores["postgres"] = dsn
	}
	for kind, where := range stores {
		where := where
		t.Run(kind, func(t *testing.T) {
			prefix := uniquePrefix()
			const agents, turns = 3, 30
			outs := make([]bytes.Buffer, 2)
			var wg sync.WaitGroup
			for i, name := range []string{"a", "b"} {
				wg.Add(1)
				go func(i int, name string) {
					defer wg.Done()
					assert.NoError(t, run(context.Background(), &outs[i],
						config{store: where, name: name, prefix: prefix, agents: agents, turns: turns}))
				}(i, name)
			}
			wg.Wait()
			t.Log(outs[0].String(), outs[1].String())
			// A third gateway that sends nothing shows what the store holds.
			var after bytes.Buffer
			require.NoError(t, run(context.Background(), &after, config{store: where, name: "c", prefix: prefix, agents: agents}))
			t.Log(after.String())
			checkRows(t, after.String(), prefix, agents, 4*turns)
		})
	}
}
