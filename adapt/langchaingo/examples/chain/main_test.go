package main

import (
	"bytes"
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestTheChainCompactsSurvivesARestartAndRecalls(t *testing.T) {
	var out bytes.Buffer
	require.NoError(t, run(context.Background(), &out, filepath.Join(t.TempDir(), "chat.db")),
		"every request the chain sent was accepted:\n%s", out.String())
	assert.Regexp(t, `first process: 8 turns asked, [1-9]\d* compactions`, out.String(), "the history outgrew the window")
	assert.Regexp(t, `after a restart: 1 turns asked, \d+ compactions, ([3-9]|\d\d+) messages live`, out.String(),
		"the chain carried on with the history in the file")
	assert.Contains(t, out.String(), "secret/deploy-7731", "the recall tool reads back what the summaries folded")
}
