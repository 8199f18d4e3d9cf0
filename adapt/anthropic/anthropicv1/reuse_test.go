package anthropicv1

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/contextkit/compact"
)

// reusedIDJSON is a history whose agent used the tool_use id toolu_1 twice
// (the Messages API refuses that, but a history converted from an OpenAI
// one may hold it, and Convert takes it). The first result is an error
// with a cache breakpoint, followed by the user's next question.
const reusedIDJSON = `{"messages": [
 {"role": "user", "content": "Find where the flags are parsed."},
 {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1", "name": "search", "input": {"q": "flags"}}]},
 {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "is_error": true,
   "cache_control": {"type": "ephemeral"}, "content": "grep: flags: a long listing"}, {"type": "text", "text": "And the defaults?"}]},
 {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1", "name": "search", "input": {"q": "defaults"}}]},
 {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "defaults.go:3"}]}
]}`

func TestAPrunedResultWhoseIDRepeatsKeepsItsBlocksFields(t *testing.T) {
	h := decode(t, reusedIDJSON)
	conv, err := Convert(h)
	require.NoError(t, err)
	out := compact.Clone(conv.Messages)
	require.Equal(t, compact.RoleTool, out[2].Role)
	out[2].Content = "[pruned]"

	got, err := conv.Restore(out)
	require.NoError(t, err)
	require.Len(t, got.Messages, len(h.Messages))
	r := got.Messages[2].Content[0].OfToolResult
	require.NotNil(t, r)
	assert.JSONEq(t, `{"type":"tool_result","tool_use_id":"toolu_1","is_error":true,"cache_control":{"type":"ephemeral"},
		"content":[{"type":"text","text":"[pruned]"}]}`, jsonOf(t, r), "the pruned result keeps is_error and cache_control though toolu_1 is used twice")
	assert.True(t, strings.Contains(jsonOf(t, h.Messages[2]), "a long listing"), "the input is not modified")
}
