package openaigo

import (
	"testing"

	"github.com/openai/openai-go/v3"
	goopenai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/contextkit/compact"
)

// Each test here plays an engine by hand: it takes the converted messages,
// changes them the way a compaction does, and checks what Restore makes of
// the result.

func TestRestoreGivesBackKeptMessagesAndWritesTheRest(t *testing.T) {
	msgs := decode(t, everyPartJSON)
	conv, err := Convert(msgs)
	require.NoError(t, err)
	v := conv.Messages
	dev := v[0]
	dev.MultiContent = append(dev.MultiContent, textPart(compact.CompactionNote))
	summary := compact.Message{Role: compact.RoleUser, Content: "Summary: the notes were checked."}
	out := append([]compact.Message{dev, v[1], summary}, v[6:]...)

	got, err := conv.Restore(out)
	require.NoError(t, err)
	require.Len(t, got, 6)
	d := got[0].OfDeveloper
	require.NotNil(t, d)
	assert.Equal(t, "ops", d.Name.Value)
	require.Len(t, d.Content.OfArrayOfContentParts, 3, "the developer prompt keeps its parts and gains the note")
	assert.Equal(t, msgs[0].OfDeveloper.Content.OfArrayOfContentParts, d.Content.OfArrayOfContentParts[:2],
		"the parts keep their prompt cache breakpoint")
	assert.Equal(t, compact.CompactionNote, d.Content.OfArrayOfContentParts[2].Text)
	assert.Equal(t, msgs[1], got[1])
	assert.JSONEq(t, `{"role":"user","content":"Summary: the notes were checked."}`, jsonOf(t, got[2]))
	for k := 3; k < 6; k++ {
		assert.Equal(t, msgs[k+3], got[k], "message %d comes back as the same value", k+3)
	}
}

func TestAStringSystemPromptWithANoteKeepsItsFields(t *testing.T) {
	sys := openai.SystemMessage("Be brief.")
	sys.OfSystem.SetExtraFields(map[string]any{"x-trace": "abc"})
	msgs := []openai.ChatCompletionMessageParamUnion{sys, openai.UserMessage("a"), openai.AssistantMessage("b")}
	conv, err := Convert(msgs)
	require.NoError(t, err)
	out := compact.Clone(conv.Messages)
	out[0].Content += "\n\n" + compact.CompactionNote
	got, err := conv.Restore(out)
	require.NoError(t, err)
	assert.JSONEq(t, `{"role":"system","x-trace":"abc","content":"Be brief.\n\n`+compact.CompactionNote+`"}`, jsonOf(t, got[0]))
}

func TestAChangedToolResultKeepsItsForm(t *testing.T) {
	msgs := decode(t, everyPartJSON)
	conv, err := Convert(msgs)
	require.NoError(t, err)
	out := compact.Clone(conv.Messages)
	out[5] = compact.Message{Role: compact.RoleTool, ToolCallID: "call_2", Content: "[pruned: 2 lines]"}
	got, err := conv.Restore(out)
	require.NoError(t, err)
	assert.JSONEq(t, `{"role":"tool","tool_call_id":"call_2","content":[{"type":"text","text":"[pruned: 2 lines]"}]}`, jsonOf(t, got[5]),
		"a result written as parts stays parts")
	for i := range msgs {
		if i != 5 {
			assert.Equal(t, msgs[i], got[i])
		}
	}
}

func TestShortenedArgumentsKeepTheRestOfTheTurn(t *testing.T) {
	msgs := decode(t, everyPartJSON)
	conv, err := Convert(msgs)
	require.NoError(t, err)
	out := compact.Clone(conv.Messages)
	out[3].ToolCalls[0].Function.Arguments = `{"path": "NO…MD"}`
	out[3].ToolCalls[1].Function.Arguments = "legacy …"
	got, err := conv.Restore(out)
	require.NoError(t, err)
	assert.JSONEq(t, `{"role":"assistant","name":"agent","audio":{"id":"audio_abc"},"tool_calls":[
		{"id":"call_1","type":"function","function":{"name":"read_file","arguments":"{\"path\": \"NO…MD\"}"}},
		{"id":"call_2","type":"custom","custom":{"name":"grep","input":"legacy …"}}]}`, jsonOf(t, got[3]))
}

func TestAChangedUserTurnKeepsThePartsItKept(t *testing.T) {
	msgs := decode(t, everyPartJSON)
	conv, err := Convert(msgs)
	require.NoError(t, err)
	orig := msgs[2].OfUser.Content.OfArrayOfContentParts

	// The Compressor's way: images become notes, the parts one string.
	out := compact.Clone(conv.Messages)
	parts := out[2].MultiContent
	out[2] = compact.Message{Role: compact.RoleUser, Name: "dana", Content: parts[0].Text + "\n[pruned] [image]\n[pruned] [image]\n" +
		parts[3].Text + "\n" + parts[4].Text + "\n" + parts[5].Text}
	got, err := conv.Restore(out)
	require.NoError(t, err)
	u := got[2].OfUser
	require.NotNil(t, u)
	assert.Equal(t, "dana", u.Name.Value)
	require.Len(t, u.Content.OfArrayOfContentParts, len(orig))
	for i, p := range u.Content.OfArrayOfContentParts {
		if i == 1 || i == 2 {
			assert.Equal(t, "[pruned] [image]", p.OfText.Text)
			continue
		}
		assert.Equal(t, orig[i], p, "part %d (text, audio, files) is kept", i)
	}

	// A summary in its place keeps nothing of it.
	out[2] = compact.Message{Role: compact.RoleUser, Content: parts[0].Text}
	got, err = conv.Restore(out)
	require.NoError(t, err)
	assert.JSONEq(t, `{"role":"user","content":"`+parts[0].Text+`"}`, jsonOf(t, got[2]))
}

func TestFromMessagesConvertsEveryRole(t *testing.T) {
	msgs := []compact.Message{
		{Role: compact.RoleSystem, Content: "sys", Name: "root"},
		{Role: roleDeveloper, MultiContent: []goopenai.ChatMessagePart{textPart("a"), textPart("b")}},
		{Role: compact.RoleUser, MultiContent: []goopenai.ChatMessagePart{textPart("look"),
			{Type: goopenai.ChatMessagePartTypeImageURL, ImageURL: &goopenai.ChatMessageImageURL{URL: "https://x.test/a.png", Detail: "high"}}}},
		{Role: compact.RoleAssistant, ReasoningContent: "hidden", ToolCalls: []goopenai.ToolCall{
			{ID: "c1", Type: "function", Function: goopenai.FunctionCall{Name: "f", Arguments: "{}"}},
			{ID: "c2", Type: "custom", Function: goopenai.FunctionCall{Name: "g", Arguments: "raw"}}}},
		{Role: compact.RoleTool, ToolCallID: "c1", Content: "one"},
		{Role: compact.RoleTool, ToolCallID: "c2", MultiContent: []goopenai.ChatMessagePart{textPart("two"),
			{Type: goopenai.ChatMessagePartTypeImageURL, ImageURL: &goopenai.ChatMessageImageURL{URL: "https://x.test/b.png"}}}},
		{Role: compact.RoleAssistant, Content: "done", Refusal: "not that", FunctionCall: &goopenai.FunctionCall{Name: "h", Arguments: "{}"}},
		{Role: "function", Name: "h", Content: "42"},
	}
	got, err := FromMessages(msgs)
	require.NoError(t, err)
	assert.JSONEq(t, `[
	 {"role":"system","name":"root","content":"sys"},
	 {"role":"developer","content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]},
	 {"role":"user","content":[{"type":"text","text":"look"},{"type":"image_url","image_url":{"url":"https://x.test/a.png","detail":"high"}}]},
	 {"role":"assistant","tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}},
	   {"id":"c2","type":"custom","custom":{"name":"g","input":"raw"}}]},
	 {"role":"tool","tool_call_id":"c1","content":"one"},
	 {"role":"tool","tool_call_id":"c2","content":[{"type":"text","text":"two"},{"type":"text","text":"[image: https://x.test/b.png]"}]},
	 {"role":"assistant","content":"done","refusal":"not that","function_call":{"name":"h","arguments":"{}"}},
	 {"role":"function","name":"h","content":"42"}]`, jsonOf(t, got))

	_, err = FromMessages([]compact.Message{{Role: "critic"}})
	require.ErrorIs(t, err, compact.ErrInvalidHistory)
}
