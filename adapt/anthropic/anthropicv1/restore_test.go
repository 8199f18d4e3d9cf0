package anthropicv1

import (
	"encoding/json"
	"testing"

	sdk "github.com/anthropics/anthropic-sdk-go"
	openai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/contextkit/compact"
)

// Each test here plays an engine by hand: it takes the converted messages,
// changes them the way a compaction does, and checks what Restore makes of
// the result.

func TestRestoreGivesBackKeptMessagesAsTheirBlocksAndWritesTheRest(t *testing.T) {
	h := decode(t, everyBlockJSON)
	conv, err := Convert(h)
	require.NoError(t, err)
	v := conv.Messages
	sys := v[0]
	sys.MultiContent = append(sys.MultiContent, textPart(compact.CompactionNote))
	summary := compact.Message{Role: compact.RoleUser, Content: "Summary: the notes were checked."}
	out := append([]compact.Message{sys, summary}, v[5:]...)

	got, err := conv.Restore(out)
	require.NoError(t, err)
	require.NoError(t, Validate(got))
	require.Len(t, got.System, 3, "the system prompt keeps its blocks and gains the note as one more")
	assert.Equal(t, jsonOf(t, h.System), jsonOf(t, got.System[:2]))
	assert.Equal(t, compact.CompactionNote, got.System[2].Text)

	require.Len(t, got.Messages, 4)
	assert.Equal(t, jsonOf(t, []any{sdk.NewTextBlock(summary.Content), h.Messages[2].Content[2]}), jsonOf(t, got.Messages[0].Content),
		"the summary and the user text after the summarised results share one user turn")
	for k := 1; k < 4; k++ {
		assert.Equal(t, h.Messages[k+2], got.Messages[k], "turn %d comes back as the same value", k+2)
	}
}

func TestAChangedToolResultKeepsItsBlocksOtherFields(t *testing.T) {
	h := decode(t, everyBlockJSON)
	conv, err := Convert(h)
	require.NoError(t, err)
	out := compact.Clone(conv.Messages)
	out[4] = compact.Message{Role: compact.RoleTool, ToolCallID: "toolu_02", Content: "[pruned: 1 image, 27 bytes]"}

	got, err := conv.Restore(out)
	require.NoError(t, err)
	turn := got.Messages[2]
	require.Len(t, turn.Content, 3, "the turn keeps its three blocks")
	assert.Equal(t, h.Messages[2].Content[0], turn.Content[0])
	assert.Equal(t, h.Messages[2].Content[2], turn.Content[2])
	r := turn.Content[1].OfToolResult
	assert.JSONEq(t, `{"type":"tool_result","tool_use_id":"toolu_02","is_error":true,"cache_control":{"type":"ephemeral"},
		"content":[{"type":"text","text":"[pruned: 1 image, 27 bytes]"}]}`, jsonOf(t, r))
	assert.Len(t, h.Messages[2].Content[1].OfToolResult.Content, 2, "the input's block is not modified")
	for k, m := range h.Messages {
		if k != 2 {
			assert.Equal(t, m, got.Messages[k])
		}
	}
}

func TestShortenedArgumentsKeepTheRestOfTheTurn(t *testing.T) {
	h := decode(t, everyBlockJSON)
	conv, err := Convert(h)
	require.NoError(t, err)
	out := compact.Clone(conv.Messages)
	out[2].ToolCalls[1].Function.Arguments = `{"lines":[1,40],"path":"fl…go"}`

	got, err := conv.Restore(out)
	require.NoError(t, err)
	blocks := got.Messages[1].Content
	orig := h.Messages[1].Content
	require.Len(t, blocks, len(orig))
	for i := 0; i < 4; i++ {
		assert.Equal(t, orig[i], blocks[i], "block %d (thinking, redacted thinking, text, the other call) is kept", i)
	}
	assert.JSONEq(t, `{"type":"tool_use","id":"toolu_02","name":"read_file","input":{"lines":[1,40],"path":"fl…go"},
		"cache_control":{"type":"ephemeral","ttl":"5m"}}`, jsonOf(t, blocks[4]))
}

func TestAChangedAssistantTextKeepsItsThinkingAndCallFields(t *testing.T) {
	h := decode(t, everyBlockJSON)
	conv, err := Convert(h)
	require.NoError(t, err)
	out := compact.Clone(conv.Messages)
	out[2].Content = "Reading."

	got, err := conv.Restore(out)
	require.NoError(t, err)
	blocks := got.Messages[1].Content
	orig := h.Messages[1].Content
	require.Len(t, blocks, 5)
	assert.Equal(t, orig[0], blocks[0], "the thinking block and its signature are kept")
	assert.Equal(t, orig[1], blocks[1], "so is the redacted thinking")
	assert.Equal(t, "Reading.", blocks[2].OfText.Text)
	assert.Equal(t, orig[3], blocks[3])
	assert.Equal(t, orig[4], blocks[4], "an unchanged call keeps its input value and cache_control")
}

func TestRestoreMergesOnlyTheSeamsCompactionMade(t *testing.T) {
	user := func(s string) sdk.MessageParam { return sdk.NewUserMessage(sdk.NewTextBlock(s)) }
	asst := func(s string) sdk.MessageParam { return sdk.NewAssistantMessage(sdk.NewTextBlock(s)) }
	h := History{Messages: []sdk.MessageParam{user("a"), user("b"), asst("c"), user("d"), asst("e"), user("f")}}
	conv, err := Convert(h)
	require.NoError(t, err)
	v := conv.Messages

	got, err := conv.Restore([]compact.Message{v[0], v[1], v[2], v[5]})
	require.NoError(t, err)
	assert.Equal(t, []sdk.MessageParam{h.Messages[0], h.Messages[1], h.Messages[2], h.Messages[5]}, got.Messages,
		"a and b were apart in the input and stay apart")

	got, err = conv.Restore([]compact.Message{v[0], v[1], v[3], v[5]})
	require.NoError(t, err)
	require.Len(t, got.Messages, 2, "b, d and f met only because c and e went: one turn")
	assert.Equal(t, h.Messages[0], got.Messages[0])
	assert.Equal(t, jsonOf(t, []any{h.Messages[1].Content[0], h.Messages[3].Content[0], h.Messages[5].Content[0]}),
		jsonOf(t, got.Messages[1].Content))
}

func TestARestoredHistoryOpensOnAUserTurn(t *testing.T) {
	h := History{
		System: []sdk.TextBlockParam{{Text: "sys"}},
		Messages: []sdk.MessageParam{
			sdk.NewUserMessage(sdk.NewTextBlock("old")), sdk.NewAssistantMessage(sdk.NewTextBlock("old reply")),
			sdk.NewUserMessage(sdk.NewTextBlock("new"))},
	}
	conv, err := Convert(h)
	require.NoError(t, err)
	summary := compact.Message{Role: compact.RoleAssistant, Content: "Summary of old."}
	got, err := conv.Restore([]compact.Message{conv.Messages[0], summary, conv.Messages[3]})
	require.NoError(t, err)
	require.NoError(t, Validate(got))
	require.Len(t, got.Messages, 3)
	assert.Equal(t, continuationText, got.Messages[0].Content[0].OfText.Text)
	assert.Equal(t, summary.Content, got.Messages[1].Content[0].OfText.Text, "the summary stays the assistant's")
	assert.Equal(t, h.Messages[2], got.Messages[2], "the latest user turn is untouched")
}

func TestFromMessagesBuildsAHistoryWithTheAPIsShape(t *testing.T) {
	msgs := []compact.Message{
		{Role: compact.RoleSystem, Content: "sys"},
		{Role: roleDeveloper, Content: "dev"},
		{Role: compact.RoleAssistant, Content: "hello", ReasoningContent: "unsigned thoughts"},
		{Role: compact.RoleUser, MultiContent: []openai.ChatMessagePart{
			textPart("look"), imageURLPart("data:image/png;base64,AAAA"), imageURLPart("https://x.test/a.png"),
			imageURLPart("ftp://x.test/a.png"), textPart("  ")}},
		{Role: compact.RoleUser, Content: "again"},
		{Role: compact.RoleAssistant, ToolCalls: []openai.ToolCall{
			{ID: "c1", Function: openai.FunctionCall{Name: "f", Arguments: `{"a":1}`}},
			{ID: "c1", Function: openai.FunctionCall{Name: "g", Arguments: `not json`}}}},
		{Role: compact.RoleTool, ToolCallID: "c1", Content: "first"},
		{Role: compact.RoleTool, ToolCallID: "c1", Content: "second"},
		{Role: compact.RoleAssistant, ToolCalls: []openai.ToolCall{{ID: "c1", Function: openai.FunctionCall{Name: "f"}}}},
		{Role: compact.RoleTool, ToolCallID: "c1", Content: "third"},
		{Role: compact.RoleAssistant, Content: "done", Refusal: "but not that"},
	}
	before := compact.Clone(msgs)
	h, err := FromMessages(msgs)
	require.NoError(t, err)
	require.Equal(t, before, msgs, "the input is not modified")
	require.NoError(t, Validate(h))
	want := `{"system":[{"text":"sys","type":"text"},{"text":"dev","type":"text"}],"messages":[
	 {"role":"user","content":[{"text":"` + continuationText + `","type":"text"}]},
	 {"role":"assistant","content":[{"text":"hello","type":"text"}]},
	 {"role":"user","content":[{"text":"look","type":"text"},
	   {"source":{"data":"AAAA","media_type":"image/png","type":"base64"},"type":"image"},
	   {"source":{"url":"https://x.test/a.png","type":"url"},"type":"image"},
	   {"text":"[image: ftp://x.test/a.png]","type":"text"},
	   {"text":"again","type":"text"}]},
	 {"role":"assistant","content":[
	   {"id":"c1","input":{"a":1},"name":"f","type":"tool_use"},
	   {"id":"c1_2","input":{"arguments":"not json"},"name":"g","type":"tool_use"}]},
	 {"role":"user","content":[
	   {"tool_use_id":"c1","content":[{"text":"first","type":"text"}],"type":"tool_result"},
	   {"tool_use_id":"c1_2","content":[{"text":"second","type":"text"}],"type":"tool_result"}]},
	 {"role":"assistant","content":[{"id":"c1_3","input":{},"name":"f","type":"tool_use"}]},
	 {"role":"user","content":[{"tool_use_id":"c1_3","content":[{"text":"third","type":"text"}],"type":"tool_result"}]},
	 {"role":"assistant","content":[{"text":"done","type":"text"},{"text":"but not that","type":"text"}]}]}`
	assert.JSONEq(t, want, string(encode(t, h)))
}

func TestRestoreRefusesARoleWithNoPlace(t *testing.T) {
	_, err := FromMessages([]compact.Message{{Role: "critic", Content: "no"}})
	require.ErrorIs(t, err, compact.ErrInvalidHistory)
	assert.Equal(t, `anthropic: message 0: compact: invalid history: role "critic" has no place in a Messages API history`, err.Error())
}

func TestToolInputIsAlwaysAnObject(t *testing.T) {
	for args, want := range map[string]string{
		`{"a":1}`:   `{"a":1}`,
		` {"a":1} `: `{"a":1}`,
		``:          `{}`,
		`[1,2]`:     `{"arguments":"[1,2]"}`,
		`{"a":`:     `{"arguments":"{\"a\":"}`,
	} {
		data, err := json.Marshal(toolInput(args))
		require.NoError(t, err)
		assert.JSONEq(t, want, string(data), "arguments %q", args)
	}
}

func TestAChangedUserTurnKeepsTheBlocksWhosePartsItKept(t *testing.T) {
	h := decode(t, everyBlockJSON)
	conv, err := Convert(h)
	require.NoError(t, err)
	orig := h.Messages[0].Content

	// An engine that keeps the parts and rewrites one.
	out := compact.Clone(conv.Messages)
	out[1].MultiContent[6] = textPart("[image dropped]")
	got, err := conv.Restore(out)
	require.NoError(t, err)
	blocks := got.Messages[0].Content
	require.Len(t, blocks, len(orig))
	for i := range orig {
		if i == 6 {
			assert.Equal(t, "[image dropped]", blocks[i].OfText.Text)
			continue
		}
		assert.Equal(t, orig[i], blocks[i])
	}

	// A summary in the same place keeps nothing of the turn it replaces.
	out = compact.Clone(conv.Messages)
	out[1] = compact.Message{Role: compact.RoleUser, Content: out[1].MultiContent[0].Text}
	got, err = conv.Restore(out)
	require.NoError(t, err)
	assert.Equal(t, []sdk.ContentBlockParamUnion{sdk.NewTextBlock(out[1].Content)}, got.Messages[0].Content,
		"a message that does not read part for part as the turn is new")
}

func TestFromMessagesPutsAMergedAssistantTurnsCallsLast(t *testing.T) {
	call := func(id string) []openai.ToolCall {
		return []openai.ToolCall{{ID: id, Function: openai.FunctionCall{Name: "f", Arguments: `{}`}}}
	}
	tests := []struct {
		name string
		msgs []compact.Message
		want string // the assistant turn's blocks
	}{
		{"a call, then text", []compact.Message{
			{Role: compact.RoleUser, Content: "q"},
			{Role: compact.RoleAssistant, ToolCalls: call("c1")},
			{Role: compact.RoleAssistant, Content: "a"}},
			`[{"text":"a","type":"text"},{"id":"c1","input":{},"name":"f","type":"tool_use"}]`},
		{"text and a call, twice", []compact.Message{
			{Role: compact.RoleUser, Content: "q"},
			{Role: compact.RoleAssistant, Content: "a", ToolCalls: call("c1")},
			{Role: compact.RoleAssistant, Content: "b", ToolCalls: call("c2")}},
			`[{"text":"a","type":"text"},{"text":"b","type":"text"},
			  {"id":"c1","input":{},"name":"f","type":"tool_use"},{"id":"c2","input":{},"name":"f","type":"tool_use"}]`},
		{"one message keeps its order", []compact.Message{
			{Role: compact.RoleUser, Content: "q"},
			{Role: compact.RoleAssistant, Content: "a", ToolCalls: call("c1")}},
			`[{"text":"a","type":"text"},{"id":"c1","input":{},"name":"f","type":"tool_use"}]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, err := FromMessages(tt.msgs)
			require.NoError(t, err)
			require.Len(t, h.Messages, 2)
			assert.JSONEq(t, tt.want, jsonOf(t, h.Messages[1].Content))
			conv, err := Convert(h)
			require.NoError(t, err)
			again, err := FromMessages(conv.Messages)
			require.NoError(t, err)
			assert.JSONEq(t, string(encode(t, h)), string(encode(t, again)), "converting the history and back changes nothing")
		})
	}
}
