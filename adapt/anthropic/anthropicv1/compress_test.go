package anthropicv1

import (
	"context"
	"testing"

	sdk "github.com/anthropics/anthropic-sdk-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/contextkit/compact"
)

func TestCompressUnderTheThresholdReturnsTheHistoryItself(t *testing.T) {
	h := longHistory(t, 2)
	out, res, err := Compress(context.Background(), compact.New(compact.WithContextWindow(200_000)), h)
	require.NoError(t, err)
	assert.NotEmpty(t, res.Skipped)
	assert.Same(t, &h.Messages[0], &out.Messages[0], "no copy, no conversion back")
}

func TestCompressNamesTheTurnBehindAnEngineError(t *testing.T) {
	h := History{Messages: []sdk.MessageParam{
		sdk.NewUserMessage(sdk.NewTextBlock("q")),
		sdk.NewAssistantMessage(sdk.NewTextBlock("a")),
		sdk.NewUserMessage(sdk.NewToolResultBlock("toolu_x", "orphan", false)),
	}}
	_, _, err := Compress(context.Background(), compact.New(), h, compact.Force())
	require.ErrorIs(t, err, compact.ErrInvalidHistory)
	assert.Contains(t, err.Error(), "anthropic: History.Messages[2]: ")
}

// brokenEngine is a Compressor whose Compress answers with a history that
// breaks the API's shape.
type brokenEngine struct{ *compact.Compressor }

func (brokenEngine) Compress(context.Context, []compact.Message, ...compact.CompressOption) (*compact.Result, error) {
	return &compact.Result{Messages: []compact.Message{
		{Role: compact.RoleUser, Content: "q"},
		{Role: compact.RoleTool, ToolCallID: "nobody", Content: "orphan"},
	}}, nil
}

func TestCompressRefusesToHandBackABrokenShape(t *testing.T) {
	h := History{Messages: []sdk.MessageParam{sdk.NewUserMessage(sdk.NewTextBlock("q"))}}
	_, _, err := Compress(context.Background(), brokenEngine{compact.New()}, h)
	require.ErrorIs(t, err, ErrShape, "a valid history never comes back invalid, whatever the engine does")
}
