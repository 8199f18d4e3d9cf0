package openaigo

import (
	"encoding/json"
	"testing"

	"github.com/openai/openai-go/v3/packages/param"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/contextkit/compact"
)

func TestValidateItemsNamesTheItemThatBreaksARule(t *testing.T) {
	tests := []struct {
		name, items, want string
	}{
		{"an output with no call", `[{"role":"user","content":"q"},{"type":"function_call_output","call_id":"c1","output":"?"}]`,
			`item 1 (function_call_output): tool result "c1" answers no earlier unanswered call`},
		{"a call never answered", `[{"role":"user","content":"q"},{"type":"function_call","call_id":"c1","name":"f","arguments":"{}"},
			{"type":"function_call","call_id":"c2","name":"g","arguments":"{}"},{"type":"function_call_output","call_id":"c1","output":"ok"},
			{"role":"user","content":"next"}]`,
			`item 2 (function_call): tool call "c2" (g) is never answered`},
		{"an output after another turn", `[{"type":"custom_tool_call","call_id":"c1","name":"g","input":"x"},{"role":"user","content":"q"},
			{"type":"custom_tool_call_output","call_id":"c1","output":"late"}]`,
			`item 0 (custom_tool_call): tool call "c1" (g) is never answered`},
		{"reasoning last", `[{"role":"user","content":"q"},{"type":"reasoning","id":"rs_1","summary":[]}]`,
			`item 1 (reasoning): reasoning item "rs_1" is followed by no message or call of its turn`},
		{"reasoning before a user message", `[{"role":"user","content":"q"},{"type":"reasoning","id":"rs_1","summary":[]},{"role":"user","content":"q2"}]`,
			`item 1 (reasoning): reasoning item "rs_1" is followed by no message or call of its turn`},
		{"a role the API does not know", `[{"type":"message","role":"critic","content":"no"}]`,
			`item 0 (message): unknown role "critic"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := ValidateItems(decodeItemsT(t, tt.items))
			var ie *ItemError
			require.ErrorAs(t, err, &ie)
			require.ErrorIs(t, err, compact.ErrInvalidHistory)
			assert.Equal(t, tt.want, err.Error())
		})
	}
	require.NoError(t, ValidateItems(typedItems(t, everyItemJSON)))
	require.NoError(t, ValidateItems(sdkBuiltItems()))
}

func TestConvertItemsFailsOnlyOnAnItemWithNoTypeAndNoRole(t *testing.T) {
	raw := param.Override[Item](json.RawMessage(`{"content":"who?"}`))
	_, err := ConvertItems([]Item{responsesUserMessage("hi"), raw})
	require.ErrorIs(t, err, compact.ErrInvalidHistory)
	assert.Equal(t, "openaigo: item 1: compact: invalid history: an item with no type and no role", err.Error())
	_, err = ConvertItems([]Item{{}})
	require.ErrorIs(t, err, compact.ErrInvalidHistory, "an empty item too")
}

func TestDecodeItemsIsTypedExactlyWhereTheSDKIsExact(t *testing.T) {
	items := decodeItemsT(t, `[{"type":"function_call","call_id":"c1","name":"f","arguments":"{}"},
		{"role":"user","content":"no type"},
		{"type":"message","role":"assistant","id":"msg_1","status":"completed","content":"text"}]`)
	require.NotNil(t, items[0].OfFunctionCall, "the SDK holds a function call exactly")
	_, raw := items[1].Overrides()
	assert.True(t, raw, "a message without a type is kept as JSON")
	_, raw = items[2].Overrides()
	assert.True(t, raw, "a message whose id the SDK would drop is kept as JSON")
	_, err := DecodeItems([]byte(`{"not":"a list"}`))
	require.Error(t, err)
}
