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
}
