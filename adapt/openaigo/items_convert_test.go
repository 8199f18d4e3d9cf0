package openaigo

import (
	"encoding/json"
	"testing"

	"github.com/openai/openai-go/v3/packages/param"
	goopenai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/contextkit/compact"
)

func TestTheFixturesHoldEveryItemType(t *testing.T) {
	items := append(typedItems(t, everyItemJSON), sdkBuiltItems()...)
	assert.Empty(t, missingVariants(items), "every variant of the SDK's input item union is in a fixture")
}

func TestConvertItemsThenRestoreGivesBackTheSameItems(t *testing.T) {
	extra := responsesUserMessage("hi")
	extra.OfMessage.SetExtraFields(map[string]any{"x-trace": "abc"})
	tests := []struct {
		name  string
		items []Item
	}{
		{"every item type, typed", typedItems(t, everyItemJSON)},
		{"every item type, decoded faithfully", decodeItemsT(t, everyItemJSON)},
		{"as a host builds them with the SDK", sdkBuiltItems()},
		{"nothing", nil},
		{"empty but not nil", []Item{}},
		{"glue alone", []Item{param.Override[Item](json.RawMessage(`{"type":"item_reference","id":"msg_1"}`))}},
		{"fields the SDK keeps beside the known ones", []Item{extra}},
		{"an item type this SDK does not know", []Item{param.Override[Item](json.RawMessage(`{"type":"hologram_call","id":"h1","beam":true}`))}},
		{"an output with no call", []Item{param.Override[Item](json.RawMessage(`{"type":"function_call_output","call_id":"x","output":"?"}`))}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := encodeItems(t, tt.items)
			requireSameItems(t, tt.items, roundTripItems(t, tt.items))
			require.Equal(t, before, encodeItems(t, tt.items), "the input is not modified")
		})
	}
}

// responsesUserMessage is a user message item with a string content.
func responsesUserMessage(text string) Item {
	return easyMessage(compact.RoleUser, text)
}

func TestConvertItemsShowsTheEngineOneMessagePerTurn(t *testing.T) {
	v := itemViews(t, typedItems(t, everyItemJSON))
	roles := make([]string, len(v))
	for i, m := range v {
		roles[i] = m.Role
	}
	assert.Equal(t, []string{
		"developer", "developer", "developer", "user",
		"assistant", "tool", "tool", "tool", "tool", "tool", "tool",
		"assistant", "tool", "tool", "tool",
		"assistant", "user", "user"}, roles)
	require.NoError(t, compact.Validate(v))

	assert.Equal(t, "Follow the repository's style.", compact.Text(v[0]))
	assert.Contains(t, v[1].Content, `"name":"deploy"`, "additional tools read as their definitions")
	assert.Equal(t, []string{"Check the notes against the screenshot.", "[image: image/png, 34 bytes inline]",
		"[image: file:file-img]", "[file: notes.pdf]", "[file: spec.pdf, 12 bytes inline]"}, partTexts2(v[3]))

	turn := v[4]
	assert.Equal(t, "I will read them.", turn.Content)
	assert.Equal(t, "Read the notes first.\ngAAAAABencryptedreasoningblob", turn.ReasoningContent,
		"reasoning, its encrypted content too, is counted with its turn")
	var calls []string
	for _, c := range turn.ToolCalls {
		calls = append(calls, c.ID+" "+string(c.Type)+" "+c.Function.Name+" "+c.Function.Arguments)
	}
	assert.Equal(t, []string{
		`call_1 function read_file {"path":"NOTES.md"}`,
		"call_2 custom grep legacy flags/",
		`call_3 computer_call computer {"type":"screenshot"}`,
		`call_4 local_shell_call local_shell {"command":["ls"],"env":{},"type":"exec"}`,
		`call_5 shell_call shell {"commands":["go test ./..."]}`,
		`call_6 apply_patch_call apply_patch {"diff":"@@ -1 +1 @@\n-a\n+b","path":"a.go","type":"update_file"}`,
	}, calls)
	assert.Equal(t, "flags/legacy.go:3\nflags/legacy_test.go:9", compact.Text(v[6]))
	assert.Equal(t, "[image: image/png, 26 bytes inline]", compact.Text(v[7]), "a screenshot is an image")
	assert.Equal(t, "ok\n[stderr] warn", v[9].Content)

	hosted := v[11]
	require.Len(t, hosted.ToolCalls, 3, "the approval request, the client tool search and the program are answered")
	assert.Equal(t, "ma_1", hosted.ToolCalls[0].ID)
	assert.Contains(t, compact.Text(hosted), "[web_search_call]")
	assert.Contains(t, compact.Text(hosted), "[image_generation_call: 12 bytes]")
	assert.Equal(t, "[approved]", v[12].Content)
	assert.Equal(t, "ma_1", v[12].ToolCallID)

	assert.True(t, compact.IsSummary(v[16]), "a compaction item is a summary")
	assert.Contains(t, compact.Text(v[16]), "opaque item of 26 bytes")
	assert.Equal(t, "Thanks.", v[17].Content)
}

func partTexts2(m compact.Message) []string {
	var out []string
	for _, p := range m.MultiContent {
		out = append(out, compact.Text(compact.Message{MultiContent: []goopenai.ChatMessagePart{p}}))
	}
	return out
}
