package genai

import (
	"testing"

	openai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/contextkit/compact"
)

func TestFromMessagesRefusesWhatNoGeminiHistoryCanPair(t *testing.T) {
	call := func(id, name string) compact.Message {
		return compact.Message{Role: compact.RoleAssistant, ToolCalls: []openai.ToolCall{{ID: id, Type: openai.ToolTypeFunction,
			Function: openai.FunctionCall{Name: name, Arguments: "{}"}}}}
	}
	user := compact.Message{Role: compact.RoleUser, Content: "hi"}
	tests := []struct {
		name string
		msgs []compact.Message
		want string
	}{
		{"a tool message for no call", []compact.Message{user, {Role: compact.RoleTool, ToolCallID: "ghost"}},
			`genai: message 1: tool result "ghost" answers no earlier unanswered call`},
		{"a tool message for no call, with a name", []compact.Message{user, {Role: compact.RoleTool, ToolCallID: "ghost", Name: "search", Content: "x"}},
			`genai: message 1: tool result "ghost" answers no earlier unanswered call`},
		{"a tool message with no call id", []compact.Message{user, call("c1", "search"), {Role: compact.RoleTool, Content: "x"}},
			`genai: message 2: tool message has no tool_call_id`},
		{"a call left unanswered before another turn", []compact.Message{user, call("c1", "search"), user},
			`genai: message 1: tool call "c1" (search) is never answered`},
		{"a call with no name", []compact.Message{user, call("c1", ""), {Role: compact.RoleTool, ToolCallID: "c1", Content: "x"}},
			`genai: message 1: compact: invalid history: tool call "c1" has no function name, which the Gemini API needs`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, err := FromMessages(tt.msgs)
			require.Error(t, err, "FromMessages returns a history its own Validate rejects: %v", Validate(h))
			require.ErrorIs(t, err, compact.ErrInvalidHistory)
			assert.Equal(t, tt.want, err.Error())
		})
	}
}

func TestFromMessagesTakesCallsThatMayStillBeRunning(t *testing.T) {
	msgs := []compact.Message{
		{Role: compact.RoleUser, Content: "Read both."},
		{Role: compact.RoleAssistant, ToolCalls: []openai.ToolCall{
			{ID: "c1", Type: openai.ToolTypeFunction, Function: openai.FunctionCall{Name: "read_file", Arguments: `{"path":"a"}`}},
			{ID: "c2", Type: openai.ToolTypeFunction, Function: openai.FunctionCall{Name: "read_file", Arguments: `{"path":"b"}`}}}},
	}
	h, err := FromMessages(msgs)
	require.NoError(t, err, "the calls of the last turn may wait")
	require.NoError(t, Validate(h))
	h, err = FromMessages(append(msgs, compact.Message{Role: compact.RoleTool, ToolCallID: "c1", Content: "A"}))
	require.NoError(t, err, "and may be answered in part")
	require.Len(t, h.Contents, 3)
}

func TestFromMessagesInlinesOnlyImageData(t *testing.T) {
	tests := []struct {
		name, url string
		inline    bool
	}{
		{"a PNG", "data:image/png;base64,iVBORw0KGgo=", true},
		{"an empty PNG", "data:image/png;base64,", true},
		{"no image type", "data:0;base64,", false},
		{"no image type, with data", "data:text/plain;base64,aGk=", false},
		{"a web address", "https://x.test/a.png", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			msgs := []compact.Message{{Role: compact.RoleUser, MultiContent: []openai.ChatMessagePart{
				{Type: openai.ChatMessagePartTypeImageURL, ImageURL: &openai.ChatMessageImageURL{URL: tt.url}}}}}
			h, err := FromMessages(msgs)
			require.NoError(t, err)
			require.Len(t, h.Contents, 1)
			require.Len(t, h.Contents[0].Parts, 1)
			p := h.Contents[0].Parts[0]
			assert.Equal(t, tt.inline, p.InlineData != nil, "inline data")
			assert.Equal(t, !tt.inline, p.Text != "", "a text placeholder")
			conv, err := Convert(h)
			require.NoError(t, err)
			again, err := FromMessages(conv.Messages)
			require.NoError(t, err)
			assert.Equal(t, h, again, "converting the history and back changes nothing")
		})
	}
}
