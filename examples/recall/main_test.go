package main

import (
	"bytes"
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRecallGetsBackWhatTheSummaryDropped(t *testing.T) {
	var out bytes.Buffer
	require.NoError(t, run(context.Background(), &out))
	got := out.String()
	assert.Contains(t, got, "compacted", "the history outgrew the window")
	assert.Contains(t, got, "the summary's recall line: [Recall: messages ")
	assert.NotContains(t, got, "the summary quotes the panic: true", "the summary dropped the failure")
	assert.Contains(t, got, `the model called context_search({"query":"panic:","role":"tool"})`)
	assert.Contains(t, got, "the model called context_expand(")
	// The answer quotes the original output, verbatim.
	assert.Contains(t, got, "panic: assignment to entry in nil map [recovered]\n\t/src/store/cache.go:88 +0x1c4")
}
