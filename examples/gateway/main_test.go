package main

import (
	"bytes"
	"context"
	"fmt"
	"regexp"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

// Every agent's session compacts, keeps its id and its latest ask, holds
// only its own messages, and logs as many compactions done as started.
func TestRun(t *testing.T) {
	defer goleak.VerifyNone(t)
	var out bytes.Buffer
	require.NoError(t, run(context.Background(), &out, 4, 40))
	t.Log(out.String())

	line := regexp.MustCompile(`(?m)^(agent-\d): (\d+) messages, (\d+) compactions, (\d+) snapshots, latest ask kept: (\w+)$`)
	rows := line.FindAllStringSubmatch(out.String(), -1)
	require.Len(t, rows, 4)
	for i, r := range rows {
		assert.Equal(t, fmt.Sprintf("agent-%d", i), r[1])
		compactions, _ := strconv.Atoi(r[3])
		snapshots, _ := strconv.Atoi(r[4])
		assert.Positive(t, compactions, "%s compacts", r[1])
		assert.Equal(t, compactions, snapshots, "%s keeps a snapshot per compaction", r[1])
		assert.Equal(t, "true", r[5], "%s keeps its latest ask and only its own messages", r[1])
	}
	started := regexp.MustCompile(`(\d+) compactions started, (\d+) done`).FindStringSubmatch(out.String())
	require.NotNil(t, started)
	assert.Equal(t, started[1], started[2])
}
