package openaigo

import (
	"context"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/contextkit/compact"
)

func TestCompressUnderTheThresholdReturnsTheHistoryItself(t *testing.T) {
	msgs := longHistory(t, 2)
	out, res, err := Compress(context.Background(), compact.New(compact.WithContextWindow(200_000)), msgs)
	require.NoError(t, err)
	assert.NotEmpty(t, res.Skipped)
	assert.Same(t, &msgs[0], &out[0], "no copy, no conversion back")
}

func TestCompressReportsTheMessageCompactRefuses(t *testing.T) {
	msgs := []openai.ChatCompletionMessageParamUnion{openai.UserMessage("q"), openai.ToolMessage("orphan", "call_x")}
	_, _, err := Compress(context.Background(), compact.New(), msgs, compact.Force())
	var ve *compact.ValidationError
	require.ErrorAs(t, err, &ve)
	assert.Equal(t, 1, ve.Index, "the index is the message's own")
}
