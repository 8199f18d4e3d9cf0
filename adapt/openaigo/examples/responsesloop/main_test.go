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
}
