package anthropicv1

import (
	"context"
	"testing"

	sdk "github.com/anthropics/anthropic-sdk-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/contextkit/compact"
)

// A block union with no variant is the SDK's nil block: it encodes as
// null, which the API refuses. Issue 35 found nil parts passing the other
// adapters' Validate; these are the Messages API's.
func TestABlockWithNoVariantIsAnErrorNamingItsTurnAndBlock(t *testing.T) {
	hi := sdk.NewTextBlock("Read a.go.")
	use := sdk.NewToolUseBlock("toolu_1", map[string]any{"path": "a.go"}, "read_file")
	result := func(content ...sdk.ToolResultBlockParamContentUnion) sdk.ContentBlockParamUnion {
		return sdk.ContentBlockParamUnion{OfToolResult: &sdk.ToolResultBlockParam{ToolUseID: "toolu_1", Content: content}}
	}
	text := sdk.ToolResultBlockParamContentUnion{OfText: &sdk.TextBlockParam{Text: "package a"}}
	tests := []struct {
		name        string
		turns       []sdk.MessageParam
		turn, block int
		says        string
	}{
		{"in a user turn", []sdk.MessageParam{sdk.NewUserMessage(hi, sdk.ContentBlockParamUnion{})}, 0, 1,
			"the block has no variant (it encodes as null)"},
		{"in an assistant turn", []sdk.MessageParam{sdk.NewUserMessage(hi), sdk.NewAssistantMessage(sdk.ContentBlockParamUnion{}, use)}, 1, 0,
			"the block has no variant (it encodes as null)"},
		{"in a tool result's content", []sdk.MessageParam{sdk.NewUserMessage(hi), sdk.NewAssistantMessage(use),
			sdk.NewUserMessage(result(text, sdk.ToolResultBlockParamContentUnion{}))}, 2, 0,
			"tool_result content block 1 has no variant (it encodes as null)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := History{Messages: tt.turns}
			_, err := Convert(h)
			require.ErrorIs(t, err, compact.ErrInvalidHistory)
			assert.Contains(t, err.Error(), "block", "names the block")
			assert.Contains(t, err.Error(), tt.says)

			var se *ShapeError
			require.ErrorAs(t, Validate(h), &se, "Validate passes a block that encodes as null")
			assert.Equal(t, RuleNullBlock, se.Rule)
			assert.Equal(t, [2]int{tt.turn, tt.block}, [2]int{se.Index, se.Block})

			_, _, err = Compress(context.Background(), compact.New(compact.WithContextWindow(4000)), h, compact.Force())
			require.ErrorIs(t, err, compact.ErrInvalidHistory)
		})
	}
}
