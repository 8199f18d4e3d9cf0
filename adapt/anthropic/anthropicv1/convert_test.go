package anthropicv1

import (
	"encoding/json"
	"errors"
	"testing"

	sdk "github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/packages/param"
	openai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/contextkit/compact"
)

func TestConvertThenRestoreGivesBackTheSameHistory(t *testing.T) {
	unknown := param.Override[sdk.ContentBlockParamUnion](json.RawMessage(`{"type":"hologram","frames":3}`))
	tests := []struct {
		name string
		h    History
	}{
		{"every block type, decoded from a request body", decode(t, everyBlockJSON)},
		{"every block type, built with the SDK", everyBlock()},
		{"nothing", History{}},
		{"empty but not nil", History{System: []sdk.TextBlockParam{}, Messages: []sdk.MessageParam{}}},
		{"a system prompt and no turns", History{System: []sdk.TextBlockParam{{Text: "Be brief."}}}},
		{"a one-block system prompt, as a string prompt is", History{
			System:   []sdk.TextBlockParam{{Text: "Be brief."}},
			Messages: []sdk.MessageParam{sdk.NewUserMessage(sdk.NewTextBlock("hi"))}}},
		{"two user turns in a row stay two", History{Messages: []sdk.MessageParam{
			sdk.NewUserMessage(sdk.NewTextBlock("one")), sdk.NewUserMessage(sdk.NewTextBlock("two"))}}},
		{"two assistant turns in a row stay two", History{Messages: []sdk.MessageParam{
			sdk.NewUserMessage(sdk.NewTextBlock("go")),
			sdk.NewAssistantMessage(sdk.NewTextBlock("one")), sdk.NewAssistantMessage(sdk.NewTextBlock("two"))}}},
		{"an assistant turn first (a prefill) stays first", History{Messages: []sdk.MessageParam{
			sdk.NewAssistantMessage(sdk.NewTextBlock("{"))}}},
		{"a user turn with no blocks", History{Messages: []sdk.MessageParam{{Role: sdk.MessageParamRoleUser}}}},
		{"a user turn with an empty block list", History{Messages: []sdk.MessageParam{
			{Role: sdk.MessageParamRoleUser, Content: []sdk.ContentBlockParamUnion{}}}}},
		{"a thinking-only assistant turn", History{Messages: []sdk.MessageParam{
			sdk.NewUserMessage(sdk.NewTextBlock("think")),
			sdk.NewAssistantMessage(sdk.NewThinkingBlock("s", "hmm"))}}},
		{"an assistant turn with no blocks", History{Messages: []sdk.MessageParam{
			sdk.NewUserMessage(sdk.NewTextBlock("hi")), {Role: sdk.MessageParamRoleAssistant}}}},
		{"a block type the SDK does not know", History{Messages: []sdk.MessageParam{
			sdk.NewUserMessage(unknown, sdk.NewTextBlock("see above")),
			sdk.NewAssistantMessage(unknown, sdk.NewTextBlock("seen"))}}},
		{"blocks where the API refuses them", History{Messages: []sdk.MessageParam{
			sdk.NewUserMessage(sdk.NewTextBlock("x"), sdk.NewToolResultBlock("t1", "late", false),
				sdk.NewToolUseBlock("t2", map[string]any{}, "f"), sdk.NewThinkingBlock("s", "user thought")),
			sdk.NewAssistantMessage(sdk.NewToolResultBlock("t3", "misplaced", false))}}},
		{"a system-role turn", History{Messages: []sdk.MessageParam{
			{Role: sdk.MessageParamRoleSystem, Content: []sdk.ContentBlockParamUnion{sdk.NewTextBlock("rules")}},
			sdk.NewUserMessage(sdk.NewTextBlock("hi"))}}},
		{"a pending call group at the end", History{Messages: []sdk.MessageParam{
			sdk.NewUserMessage(sdk.NewTextBlock("run it")),
			sdk.NewAssistantMessage(sdk.NewToolUseBlock("t1", map[string]any{"cmd": "make"}, "sh"))}}},
		{"fields the SDK keeps beside the blocks", func() History {
			m := sdk.NewUserMessage(sdk.NewTextBlock("hi"))
			m.SetExtraFields(map[string]any{"x-trace": "abc"})
			b := sdk.NewTextBlock("hello")
			b.OfText.SetExtraFields(map[string]any{"x-note": 1})
			return History{Messages: []sdk.MessageParam{m, sdk.NewAssistantMessage(b)}}
		}()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := encode(t, tt.h)
			requireIdentical(t, tt.h, roundTrip(t, tt.h))
			require.Equal(t, string(before), string(encode(t, tt.h)), "the input is not modified")
		})
	}
}

func TestConvertShowsTheEngineEveryBlock(t *testing.T) {
	conv, err := Convert(decode(t, everyBlockJSON))
	require.NoError(t, err)
	msgs := conv.Messages
	roles := make([]string, len(msgs))
	for i, m := range msgs {
		roles[i] = m.Role
	}
	require.Equal(t, []string{"system", "user", "assistant", "tool", "tool", "user", "assistant", "user", "assistant"}, roles,
		"one message per turn, except that each tool_result is a tool message of its own")

	sys := msgs[0]
	assert.Equal(t, []string{"You are a careful release engineer.", "Answer in English."},
		[]string{sys.MultiContent[0].Text, sys.MultiContent[1].Text}, "the system prompt keeps its blocks as parts")

	first := compact.Text(msgs[1])
	assert.Contains(t, first, "[document: notes.pdf, application/pdf, 12 bytes inline]\ndraft", "a PDF reads as its title and size")
	assert.Contains(t, first, "v2 drops the legacy flag.", "a text document reads as its text")
	assert.Contains(t, first, "[document, https://example.com/notes.pdf]")
	assert.Contains(t, first, "chunk one", "a content document reads as its blocks")
	assert.Contains(t, first, "[image: file file_012]")
	require.True(t, hasImage(msgs[1]))
	assert.Equal(t, "data:image/png;base64,iVBORw0KGgo=", msgs[1].MultiContent[6].ImageURL.URL)
	assert.Equal(t, "https://example.com/shot.png", msgs[1].MultiContent[7].ImageURL.URL)

	calls := msgs[2]
	assert.Equal(t, "Two files to read; read both at once.", calls.ReasoningContent)
	assert.Equal(t, "Reading both files.", calls.Content)
	require.Len(t, calls.ToolCalls, 2, "parallel tool_use blocks are one turn's calls")
	assert.Equal(t, openai.FunctionCall{Name: "read_file", Arguments: `{"lines":[1,40],"path":"flags.go"}`}, calls.ToolCalls[1].Function)

	assert.Equal(t, "toolu_01", msgs[3].ToolCallID)
	assert.Equal(t, "## v2\n- drop --legacy", msgs[3].Content)
	assert.Equal(t, "toolu_02", msgs[4].ToolCallID)
	assert.True(t, hasImage(msgs[4]), "a result's image is an image")
	assert.Equal(t, "The flags live in cmd/flags.go now.", msgs[5].Content, "the text after the results follows them")

	server := compact.Text(msgs[6])
	assert.Contains(t, server, "[server_tool_use]\n", "a server tool block reads as its JSON")
	assert.Contains(t, server, `"query":"legacy flag removal"`)
	assert.Contains(t, server, "Removing flags")
	assert.Empty(t, msgs[6].ToolCalls, "server tool calls are not the host's to answer")

	last := compact.Text(msgs[7])
	assert.Contains(t, last, "[search result: KB 12, https://example.com/kb]\nFlags are in cmd/.")
	assert.Contains(t, last, "[container_upload]\n"+`{"file_id":"file_013","type":"container_upload"}`, "a block with no part of its own reads as its JSON")

	unknown := param.Override[sdk.ContentBlockParamUnion](json.RawMessage(`{"type":"hologram","frames":3}`))
	conv, err = Convert(History{Messages: []sdk.MessageParam{sdk.NewUserMessage(unknown)}})
	require.NoError(t, err)
	assert.Equal(t, "[hologram]\n"+`{"type":"hologram","frames":3}`, conv.Messages[0].Content, "so does a block the SDK does not know")
}

func TestConvertFailsOnlyWhereNoMessageCanSay(t *testing.T) {
	tests := []struct {
		name string
		h    History
		want string
	}{
		{"a role the API does not have", History{Messages: []sdk.MessageParam{
			sdk.NewUserMessage(sdk.NewTextBlock("hi")), {Role: "tool", Content: []sdk.ContentBlockParamUnion{sdk.NewTextBlock("x")}}}},
			`anthropic: message 1: compact: invalid history: role "tool"`},
		{"a tool input that does not encode", History{Messages: []sdk.MessageParam{
			sdk.NewUserMessage(sdk.NewTextBlock("hi")),
			sdk.NewAssistantMessage(sdk.NewToolUseBlock("t1", make(chan int), "f"))}},
			`anthropic: message 1: compact: invalid history: block 0: tool_use "t1" input: json: unsupported type: chan int`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Convert(tt.h)
			require.Error(t, err)
			assert.True(t, errors.Is(err, compact.ErrInvalidHistory))
			assert.Equal(t, tt.want, err.Error())
		})
	}
}
