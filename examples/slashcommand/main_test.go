package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/compacttest"
)

func TestCompressHereKeepsTheLastExchanges(t *testing.T) {
	history := compacttest.Histories()[0].Messages
	c := &chat{engine: compact.New(), msgs: history}
	_, err := c.handle(context.Background(), "/compress here 1")
	require.NoError(t, err)
	last := 0
	for i, m := range history {
		if compact.IsRealUser(m) {
			last = i
		}
	}
	tail, kept := history[last:], c.msgs[len(c.msgs)-len(history[last:]):]
	assert.Equal(t, tail[1:], kept[1:], "the last exchange is kept verbatim")
	// Its request opens the history: the summary is merged in front of it.
	assert.True(t, compact.IsSummary(kept[0]) && strings.HasSuffix(kept[0].Content, "\n\n"+tail[0].Content))
	require.NoError(t, compact.Validate(c.msgs))
}

func TestOtherLinesGoToTheModel(t *testing.T) {
	c := &chat{engine: compact.New()}
	reply, err := c.handle(context.Background(), "/compressed air is cold")
	require.NoError(t, err)
	assert.Equal(t, "(sent to the model)", reply)
	assert.Len(t, c.msgs, 1)
}

func TestRun(t *testing.T) {
	var out bytes.Buffer
	require.NoError(t, run(context.Background(), &out))
	assert.Equal(t, 3, strings.Count(out.String(), "compacted"), "each command compacts:\n%s", out.String())
}
