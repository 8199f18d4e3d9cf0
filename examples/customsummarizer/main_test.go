package main

import (
	"bytes"
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/contextkit/compact/compacttest"
)

func TestLedgerKeepsTheContract(t *testing.T) {
	compacttest.RunSummarizer(t, ledger{})
}

func TestRun(t *testing.T) {
	var out bytes.Buffer
	require.NoError(t, run(context.Background(), &out))
	assert.Contains(t, out.String(), "summary by ledger")
	assert.Contains(t, out.String(), "The user asked:")
}
