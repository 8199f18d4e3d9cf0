package main

import (
	"bytes"
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestResponsesLoopCompactsNativelyFallsBackAndFinishes(t *testing.T) {
	var out bytes.Buffer
	require.NoError(t, run(context.Background(), &out), "every request the loop sent was accepted:\n%s", out.String())
	log := out.String()
	assert.Contains(t, log, "with openai:/responses/compact", "the provider compacted at least once:\n%s", log)
	assert.Contains(t, log, "fallback: native compaction failed", "the failed compaction fell back:\n%s", log)
	assert.Contains(t, log, "DefaultBudget = 3 attempts")
	assert.Contains(t, log, "with openai:/responses/compact; the session recorded it", "the session took the provider's compaction")
	assert.Contains(t, log, "the system prompt ends: [Recall: messages 2 to ", "the recall line is outside the provider's item")
	assert.Contains(t, log, "context_search finds part1.go, compacted away, at seqs [3 4]")
}
