package main

import (
	"bytes"
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/compacttest"
)

func TestMeteredCounts(t *testing.T) {
	e := newMetered(compact.New(compact.WithContextWindow(4000)))
	h := compacttest.Histories()[0].Messages
	_, err := e.Compress(context.Background(), h, compact.Force())
	require.NoError(t, err)
	_, err = e.Compress(context.Background(), []compact.Message{{Role: compact.RoleTool, ToolCallID: "x"}})
	require.Error(t, err)
	n, failed, saved := e.snapshot()
	assert.Equal(t, 1, n)
	assert.Equal(t, 1, failed)
	assert.Positive(t, saved)
}

// TestRun runs the example, which checks the engine with
// compacttest.CheckEngine: in a project's own tests, compacttest.Run(t,
// newEngine) reports each broken contract as a subtest.
func TestRun(t *testing.T) {
	var out bytes.Buffer
	require.NoError(t, run(context.Background(), &out))
	assert.Contains(t, out.String(), "keeps every ContextEngine contract")
	assert.Contains(t, out.String(), "metered(compressor): 6 compactions, 0 failed")
	assert.Regexp(t, `tool compaction_metrics -> \{"compactions":6,"failures":0,"tokens_saved":\d+\}`, out.String())
}
