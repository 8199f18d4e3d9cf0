package openaigo

import (
	"testing"

	goopenai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/contextkit/compact"
)

// Each test here plays an engine by hand: it takes the converted messages,
// changes them the way a compaction does, and checks what Restore makes of
// the result. Message indexes are those TestConvertItemsShowsTheEngineOneMessagePerTurn
// lists for everyItemJSON.

// restoreChanged converts items, lets change edit a clone of the messages,
// and restores the result.
func restoreChanged(t *testing.T, items []Item, change func(ms []compact.Message) []compact.Message) ([]Item, *ItemConversion) {
	t.Helper()
	conv, err := ConvertItems(items)
	require.NoError(t, err)
	out, err := conv.Restore(change(compact.Clone(conv.Messages)))
	require.NoError(t, err)
	return out, conv
}

// requireUnchangedBut checks that every item of got is want's, but those
// of the messages listed.
func requireUnchangedBut(t *testing.T, conv *ItemConversion, want, got []Item, changed ...int) {
	t.Helper()
	skip := map[int]bool{}
	for _, j := range changed {
		from, to := conv.Items(j)
		for i := from; i < to; i++ {
			skip[i] = true
		}
	}
	require.Len(t, got, len(want))
	for i := range want {
		if !skip[i] {
			assert.Equal(t, want[i], got[i], "item %d comes back as the same value", i)
		}
	}
}

func TestAPrunedOutputKeepsItsFormAndFields(t *testing.T) {
	items := typedItems(t, everyItemJSON)
	tests := []struct {
		name    string
		message int
		want    string
	}{
		{"a string output", 5, `{"call_id":"call_1","output":"[pruned]","type":"function_call_output"}`},
		{"an output as parts", 6, `{"call_id":"call_2","output":[{"type":"input_text","text":"[pruned]"}],"type":"custom_tool_call_output"}`},
		{"a screenshot cannot be text", 7, jsonOf(t, items[14])},
		{"a local shell output", 8, `{"id":"call_4","output":"[pruned]","type":"local_shell_call_output"}`},
		{"a shell output keeps its outcome", 9,
			`{"call_id":"call_5","output":[{"stdout":"[pruned]","stderr":"","outcome":{"type":"exit","exit_code":0}}],"type":"shell_call_output"}`},
		{"a patch output", 10, `{"call_id":"call_6","status":"completed","output":"[pruned]","type":"apply_patch_call_output"}`},
		{"a program output", 14, `{"id":"po_1","call_id":"pc_1","result":"[pruned]","status":"completed","type":"program_output"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, conv := restoreChanged(t, items, func(ms []compact.Message) []compact.Message {
				ms[tt.message] = compact.Message{Role: compact.RoleTool, ToolCallID: ms[tt.message].ToolCallID, Content: "[pruned]"}
				return ms
			})
			from, _ := conv.Items(tt.message)
			assert.JSONEq(t, tt.want, jsonOf(t, out[from]))
			requireUnchangedBut(t, conv, items, out, tt.message)
			require.NoError(t, ValidateItems(out))
		})
	}
}

func TestShortenedCallsKeepTheRestOfTheirTurn(t *testing.T) {
	items := typedItems(t, everyItemJSON)
	out, conv := restoreChanged(t, items, func(ms []compact.Message) []compact.Message {
		calls := ms[4].ToolCalls
		calls[0].Function.Arguments = `{"path":"NO…"}`
		calls[1].Function.Arguments = "legacy …"
		calls[2].Function.Arguments = `{"type":"…"}` // a computer action is not text
		return ms
	})
	requireUnchangedBut(t, conv, items, out, 4)
	from, to := conv.Items(4)
	require.Equal(t, 12-4, to-from)
	turn := out[from:to]
	assert.Equal(t, items[4], turn[0], "the reasoning item stays, first")
	assert.Equal(t, items[5], turn[1], "the text stays")
	assert.JSONEq(t, `{"arguments":"{\"path\":\"NO…\"}","call_id":"call_1","name":"read_file","id":"fc_1","status":"completed","type":"function_call"}`,
		jsonOf(t, turn[2]), "the function call keeps its id and status")
	assert.NotNil(t, turn[2].OfFunctionCall, "a patched item the SDK holds exactly is typed")
	assert.JSONEq(t, `{"call_id":"call_2","input":"legacy …","name":"grep","type":"custom_tool_call"}`, jsonOf(t, turn[3]))
	for i := 4; i < len(turn); i++ {
		assert.Equal(t, items[from+i], turn[i], "call %d is the same value", i)
	}
	require.NoError(t, ValidateItems(out))
}

func TestAChangedTurnWithoutItsTextOrACallKeepsItsReasoning(t *testing.T) {
	items := typedItems(t, everyItemJSON)
	out, conv := restoreChanged(t, items, func(ms []compact.Message) []compact.Message {
		ms[4].Content = "Reading."
		ms[4].ToolCalls = ms[4].ToolCalls[:5] // the engine drops the patch call
		ms = append(ms[:10], ms[11:]...)      // and its output
		return ms
	})
	from, _ := conv.Items(4)
	assert.Equal(t, items[4], out[from], "the reasoning item stays")
	assert.JSONEq(t, `{"content":"Reading.","role":"assistant","type":"message"}`, jsonOf(t, out[from+1]), "the text is new, where the old was")
	assert.Equal(t, items[from+2], out[from+2], "the calls follow")
	for _, u := range out {
		assert.Nil(t, u.OfApplyPatchCall, "the dropped call is gone")
		assert.Nil(t, u.OfApplyPatchCallOutput)
	}
	require.NoError(t, ValidateItems(out))

	// A turn of text alone keeps its reasoning when the engine rewrites the
	// text and nothing else.
	items = decodeItemsT(t, `[{"type":"message","role":"user","content":"hi"},
		{"type":"reasoning","id":"rs_1","summary":[],"encrypted_content":"blob"},
		{"type":"message","role":"assistant","content":"A long answer."}]`)
	out, _ = restoreChanged(t, items, func(ms []compact.Message) []compact.Message {
		ms[1].Content = "A lo… answer."
		return ms
	})
	require.Len(t, out, 3)
	assert.Equal(t, items[1], out[1])
	assert.JSONEq(t, `{"content":"A lo… answer.","role":"assistant","type":"message"}`, jsonOf(t, out[2]))
}

func TestAChangedUserMessageKeepsThePartsItKept(t *testing.T) {
	items := typedItems(t, everyItemJSON)
	out, conv := restoreChanged(t, items, func(ms []compact.Message) []compact.Message {
		parts := ms[3].MultiContent
		// The Compressor's way: images become notes, the parts one string.
		ms[3] = compact.Message{Role: compact.RoleUser, Content: parts[0].Text + "\n[pruned] [image]\n[pruned] [image]\n" +
			parts[3].Text + "\n" + parts[4].Text}
		return ms
	})
	requireUnchangedBut(t, conv, items, out, 3)
	got := out[3]
	require.NotNil(t, got.OfMessage)
	orig := items[3].OfMessage.Content.OfInputItemContentList
	list := got.OfMessage.Content.OfInputItemContentList
	require.Len(t, list, len(orig))
	assert.Equal(t, orig[0], list[0])
	assert.Equal(t, "[pruned] [image]", list[1].OfInputText.Text)
	assert.Equal(t, "[pruned] [image]", list[2].OfInputText.Text)
	assert.Equal(t, orig[3:], list[3:], "the files are kept")

	// A summary in a user message's place keeps nothing of it.
	out, _ = restoreChanged(t, items, func(ms []compact.Message) []compact.Message {
		ms[3] = compact.Message{Role: compact.RoleUser, Content: compact.PrefixSummary("The notes were checked.")}
		return ms
	})
	assert.JSONEq(t, `{"content":`+jsonOf(t, compact.PrefixSummary("The notes were checked."))+`,"role":"user","type":"message"}`, jsonOf(t, out[3]))
}

func TestTheCompactionNoteExtendsTheFirstInstruction(t *testing.T) {
	note := func(ms []compact.Message) []compact.Message {
		m := ms[0]
		if len(m.MultiContent) > 0 {
			m.MultiContent = append(m.MultiContent, textPart(compact.CompactionNote))
		} else {
			m.Content += "\n\n" + compact.CompactionNote
		}
		ms[0] = m
		return ms
	}
	items := typedItems(t, everyItemJSON)
	out, conv := restoreChanged(t, items, note)
	requireUnchangedBut(t, conv, items, out, 0)
	parts := out[0].OfMessage.Content.OfInputItemContentList
	require.Len(t, parts, 2)
	assert.Equal(t, items[0].OfMessage.Content.OfInputItemContentList[0], parts[0], "the part keeps its prompt cache breakpoint")
	assert.Equal(t, compact.CompactionNote, parts[1].OfInputText.Text)

	str := decodeItemsT(t, `[{"role":"system","content":"Be brief.","x-trace":"abc"},{"role":"user","content":"hi"}]`)
	out, _ = restoreChanged(t, str, note)
	assert.JSONEq(t, `{"role":"system","x-trace":"abc","content":"Be brief.\n\n`+compact.CompactionNote+`"}`, jsonOf(t, out[0]))

	tools := decodeItemsT(t, `[{"type":"additional_tools","role":"developer","tools":[]},{"role":"user","content":"hi"}]`)
	out, _ = restoreChanged(t, tools, note)
	require.Len(t, out, 3)
	assert.Equal(t, tools[0], out[0], "additional tools stay as they were")
	assert.JSONEq(t, `{"role":"developer","type":"message","content":`+jsonOf(t, compact.CompactionNote)+`}`, jsonOf(t, out[1]))
}

func TestItemsFromMessagesConvertsEveryRole(t *testing.T) {
	msgs := []compact.Message{
		{Role: compact.RoleSystem, Content: "sys"},
		{Role: roleDeveloper, MultiContent: []goopenai.ChatMessagePart{textPart("a"), textPart("b")}},
		{Role: compact.RoleUser, MultiContent: []goopenai.ChatMessagePart{textPart("look"),
			{Type: goopenai.ChatMessagePartTypeImageURL, ImageURL: &goopenai.ChatMessageImageURL{URL: "https://x.test/a.png", Detail: "high"}}}},
		{Role: compact.RoleAssistant, Content: "Reading.", ReasoningContent: "hidden", ToolCalls: []goopenai.ToolCall{
			{ID: "c1", Type: "function", Function: goopenai.FunctionCall{Name: "f", Arguments: "{}"}},
			{ID: "c2", Type: "custom", Function: goopenai.FunctionCall{Name: "g", Arguments: "raw"}}}},
		{Role: compact.RoleTool, ToolCallID: "c1", Content: "one"},
		{Role: compact.RoleTool, ToolCallID: "c2", Content: "two"},
		{Role: compact.RoleAssistant, Content: "done", Refusal: "not that"},
	}
	got, err := ItemsFromMessages(msgs)
	require.NoError(t, err)
	assert.JSONEq(t, `[
	 {"role":"system","type":"message","content":"sys"},
	 {"role":"developer","type":"message","content":[{"type":"input_text","text":"a"},{"type":"input_text","text":"b"}]},
	 {"role":"user","type":"message","content":[{"type":"input_text","text":"look"},{"type":"input_image","image_url":"https://x.test/a.png","detail":"high"}]},
	 {"role":"assistant","type":"message","content":"Reading."},
	 {"type":"function_call","call_id":"c1","name":"f","arguments":"{}"},
	 {"type":"custom_tool_call","call_id":"c2","name":"g","input":"raw"},
	 {"type":"function_call_output","call_id":"c1","output":"one"},
	 {"type":"custom_tool_call_output","call_id":"c2","output":"two"},
	 {"role":"assistant","type":"message","content":"done\nnot that"}]`, jsonOf(t, got))
	require.NoError(t, ValidateItems(got))

	for _, m := range []compact.Message{
		{Role: "function", Name: "h", Content: "42"},
		{Role: compact.RoleAssistant, FunctionCall: &goopenai.FunctionCall{Name: "h"}},
	} {
		_, err = ItemsFromMessages([]compact.Message{m})
		require.ErrorIs(t, err, compact.ErrInvalidHistory)
	}
}

func TestItemsFromMessagesMakesARunOfAssistantMessagesOneTurn(t *testing.T) {
	call := func(id string) goopenai.ToolCall {
		return goopenai.ToolCall{ID: id, Type: "function", Function: goopenai.FunctionCall{Name: "f", Arguments: "{}"}}
	}
	tests := []struct {
		name string
		msgs []compact.Message
		want string
	}{
		{"two empty", []compact.Message{{Role: compact.RoleAssistant}, {Role: compact.RoleAssistant}},
			`[{"role":"assistant","type":"message","content":""}]`},
		{"two texts", []compact.Message{{Role: compact.RoleAssistant, Content: "a"}, {Role: compact.RoleAssistant, Content: "b", Refusal: "no"}},
			`[{"role":"assistant","type":"message","content":"a\nb\nno"}]`},
		{"an empty one and a text", []compact.Message{{Role: compact.RoleAssistant}, {Role: compact.RoleAssistant, Content: "b"}},
			`[{"role":"assistant","type":"message","content":"b"}]`},
		{"calls, then text", []compact.Message{
			{Role: compact.RoleAssistant, Content: "a", ToolCalls: []goopenai.ToolCall{call("c1")}},
			{Role: compact.RoleAssistant, Content: "b", ToolCalls: []goopenai.ToolCall{call("c2")}},
			{Role: compact.RoleTool, ToolCallID: "c1", Content: "one"},
			{Role: compact.RoleTool, ToolCallID: "c2", Content: "two"},
			{Role: compact.RoleAssistant, Content: "done"}},
			`[{"role":"assistant","type":"message","content":"a\nb"},
			 {"type":"function_call","call_id":"c1","name":"f","arguments":"{}"},
			 {"type":"function_call","call_id":"c2","name":"f","arguments":"{}"},
			 {"type":"function_call_output","call_id":"c1","output":"one"},
			 {"type":"function_call_output","call_id":"c2","output":"two"},
			 {"role":"assistant","type":"message","content":"done"}]`},
		{"a summary stays a turn of its own", []compact.Message{
			{Role: compact.RoleAssistant, Content: "[Context handoff] earlier"}, {Role: compact.RoleAssistant, Content: "b"}},
			`[{"role":"assistant","type":"message","content":"[Context handoff] earlier"},{"role":"assistant","type":"message","content":"b"}]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := compact.Clone(tt.msgs)
			got, err := ItemsFromMessages(tt.msgs)
			require.NoError(t, err)
			require.Equal(t, before, tt.msgs, "the input is not modified")
			assert.JSONEq(t, tt.want, jsonOf(t, got))
			conv, err := ConvertItems(got)
			require.NoError(t, err)
			again, err := ItemsFromMessages(conv.Messages)
			require.NoError(t, err)
			assert.JSONEq(t, jsonOf(t, got), jsonOf(t, again), "converting the items and back changes nothing")
		})
	}

	_, err := ItemsFromMessages([]compact.Message{{Role: compact.RoleAssistant, Content: "a"},
		{Role: compact.RoleAssistant, FunctionCall: &goopenai.FunctionCall{Name: "h"}}})
	require.ErrorIs(t, err, compact.ErrInvalidHistory)
	assert.Contains(t, err.Error(), "openaigo: message 1: ", "the error names the message of the run")
}
