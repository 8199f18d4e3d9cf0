package main

import (
	"bytes"
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestNativeLoopCompactsOnBothSidesAndFinishes(t *testing.T) {
	var out bytes.Buffer
	require.NoError(t, run(context.Background(), &out), "every request the loop sent was accepted:\n%s", out.String())
	got := out.String()
	assert.Contains(t, got, "the provider compacted", "the history reached the provider's trigger")
	assert.Contains(t, got, "native compaction failed (compaction_unavailable); compact's engine takes over")
	assert.Contains(t, got, "fallback: true", "compact's engine compacted after the failure")
	assert.Contains(t, got, "compactions: 1 by the provider, 1 by compact's engine")
	assert.Contains(t, got, "DefaultBudget = 3 attempts")
	assert.Contains(t, got, "the session recorded it", "the session took the provider's compaction")
	assert.Contains(t, got, "the system prompt ends: [Recall: messages 2 to 29 ", "the recall line names what the provider folded, outside its block")
	assert.Contains(t, got, "context_search finds part1.go, folded by the provider, at seqs [3 4]")
}
