package openaigo

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/contextkit/compact"
)

// reusedIDJSON is a Chat Completions history whose agent numbers its calls
// afresh each turn: call_1 twice. The first call's turn has audio, and its
// result is held as parts.
const reusedIDJSON = `[
 {"role":"user","content":"Find where the flags are parsed."},
 {"role":"assistant","content":"Searching.","audio":{"id":"audio_1"},"tool_calls":[{"id":"call_1","type":"function","function":{"name":"search","arguments":"{\"q\":\"flags\"}"}}]},
 {"role":"tool","tool_call_id":"call_1","content":[{"type":"text","text":"grep: a long listing"}]},
 {"role":"user","content":"And the defaults?"},
 {"role":"assistant","tool_calls":[{"id":"call_1","type":"function","function":{"name":"search","arguments":"{\"q\":\"defaults\"}"}}]},
 {"role":"tool","tool_call_id":"call_1","content":"defaults.go:3"}
]`

func TestAChangedTurnAndResultWhoseCallIDRepeatsKeepTheirFields(t *testing.T) {
	msgs := decode(t, reusedIDJSON)
	conv, err := Convert(msgs)
	require.NoError(t, err)
	out := compact.Clone(conv.Messages)
	out[2].MultiContent[0].Text = "[pruned]"
	out[1].ToolCalls[0].Function.Arguments = "{}"

	got, err := conv.Restore(out)
	require.NoError(t, err)
	assert.JSONEq(t, `{"role":"assistant","content":"Searching.","audio":{"id":"audio_1"},
		"tool_calls":[{"id":"call_1","type":"function","function":{"name":"search","arguments":"{}"}}]}`, jsonOf(t, got[1]),
		"the turn with shortened arguments keeps its audio though call_1 is used twice")
	assert.JSONEq(t, `{"role":"tool","tool_call_id":"call_1","content":[{"type":"text","text":"[pruned]"}]}`, jsonOf(t, got[2]),
		"the pruned result stays parts though call_1 is used twice")
	assert.Equal(t, encode(t, msgs[3:]), encode(t, got[3:]))
}

// reusedIDItems is the same history as Responses items, each call and
// output with the item id the API gave it.
const reusedIDItems = `[
 {"type":"message","role":"user","content":"Find where the flags are parsed."},
 {"type":"function_call","id":"fc_a","call_id":"call_1","name":"search","arguments":"{\"q\":\"flags\"}","status":"completed"},
 {"type":"function_call_output","id":"fco_a","call_id":"call_1","output":"grep: a long listing","status":"completed"},
 {"type":"message","role":"user","content":"And the defaults?"},
 {"type":"function_call","id":"fc_b","call_id":"call_1","name":"search","arguments":"{\"q\":\"defaults\"}","status":"completed"},
 {"type":"function_call_output","id":"fco_b","call_id":"call_1","output":"defaults.go:3","status":"completed"}
]`

func TestAPrunedOutputItemWhoseCallIDRepeatsKeepsItsFields(t *testing.T) {
	items := decodeItemsT(t, reusedIDItems)
	conv, err := ConvertItems(items)
	require.NoError(t, err)
	out := compact.Clone(conv.Messages)
	require.Equal(t, compact.RoleTool, out[2].Role)
	out[2].Content = "[pruned]"
	out[1].ToolCalls[0].Function.Arguments = "{}"

	got, err := conv.Restore(out)
	require.NoError(t, err)
	require.Len(t, got, len(items))
	assert.JSONEq(t, `{"type":"function_call","id":"fc_a","call_id":"call_1","name":"search","arguments":"{}","status":"completed"}`,
		jsonOf(t, got[1]), "the changed call keeps its item id though call_1 is used twice")
	assert.JSONEq(t, `{"type":"function_call_output","id":"fco_a","call_id":"call_1","output":"[pruned]","status":"completed"}`,
		jsonOf(t, got[2]), "and so does the pruned output")
	assert.Equal(t, encodeItems(t, items[3:]), encodeItems(t, got[3:]))
}
