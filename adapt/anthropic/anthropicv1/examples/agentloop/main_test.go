package main

import (
	"bytes"
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestAgentLoopCompactsAndFinishes(t *testing.T) {
	var out bytes.Buffer
	require.NoError(t, run(context.Background(), &out), "every request the loop sent was accepted:\n%s", out.String())
	assert.Contains(t, out.String(), "compacted", "the history outgrew the window at least once")
	assert.Contains(t, out.String(), "DefaultBudget = 3 attempts")
}
