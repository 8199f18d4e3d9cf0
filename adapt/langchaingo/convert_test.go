package langchaingo

import (
	"errors"
	"testing"

	openai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tmc/langchaingo/llms"

	"github.com/contextkit/compact"
)

func msg(role llms.ChatMessageType, parts ...llms.ContentPart) llms.MessageContent {
	return llms.MessageContent{Role: role, Parts: parts}
}

func call(id, name, args string) llms.ToolCall {
	return llms.ToolCall{ID: id, Type: "function", FunctionCall: &llms.FunctionCall{Name: name, Arguments: args}}
}

func response(id, name, content string) llms.ToolCallResponse {
	return llms.ToolCallResponse{ToolCallID: id, Name: name, Content: content}
}

func TestConvertThenRestoreGivesBackTheSameHistory(t *testing.T) {
	tests := []struct {
		name string
		msgs []llms.MessageContent
	}{
		{"every part type, decoded", decode(t, everyPartJSON)},
		{"every part type, built in Go with pointer parts", everyPart()},
		{"nothing", nil},
		{"empty but not nil", []llms.MessageContent{}},
		{"messages with no parts", []llms.MessageContent{{Role: llms.ChatMessageTypeHuman}, {Role: llms.ChatMessageTypeAI, Parts: []llms.ContentPart{}}}},
		{"parts where providers refuse them", []llms.MessageContent{
			msg(llms.ChatMessageTypeHuman, llms.TextPart("x"), call("a", "f", "{}"), response("b", "g", "late")),
			msg(llms.ChatMessageTypeTool, llms.TextPart("not a response"), response("c", "h", "orphan"))}},
		{"a tool call without a function", []llms.MessageContent{msg(llms.ChatMessageTypeAI, llms.ToolCall{ID: "x"})}},
		{"a pending call at the end", []llms.MessageContent{
			msg(llms.ChatMessageTypeHuman, llms.TextPart("run it")), msg(llms.ChatMessageTypeAI, call("c1", "sh", `{"cmd":"make"}`))}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := encode(t, tt.msgs)
			requireIdentical(t, tt.msgs, roundTrip(t, tt.msgs))
			require.Equal(t, string(before), string(encode(t, tt.msgs)), "the input is not modified")
		})
	}
}

func TestConvertShowsTheEngineEveryPart(t *testing.T) {
	conv, err := Convert(decode(t, everyPartJSON))
	require.NoError(t, err)
	msgs := conv.Messages
	roles := make([]string, len(msgs))
	for i, m := range msgs {
		roles[i] = m.Role
	}
	require.Equal(t, []string{"system", "user", "assistant", "tool", "tool", "assistant", "tool", "user", "user", "assistant", "user"}, roles,
		"one message per message, except a tool message answering two calls, which is two")

	assert.Equal(t, "You are a careful release engineer.", msgs[0].MultiContent[0].Text)
	first := msgs[1].MultiContent
	assert.Equal(t, &openai.ChatMessageImageURL{URL: "https://example.com/shot.png", Detail: "high"}, first[1].ImageURL)
	assert.Equal(t, "data:image/png;base64,iVBORw0KGgo=", first[2].ImageURL.URL, "a binary image is an image")
	assert.Equal(t, "[binary: application/pdf, 9 bytes]", first[3].Text, "other binary data is named")

	assert.Equal(t, "Reading both files.", msgs[2].Content)
	require.Len(t, msgs[2].ToolCalls, 2)
	assert.Equal(t, openai.ToolCall{ID: "call_2", Type: "function",
		Function: openai.FunctionCall{Name: "read_file", Arguments: `{"path":"flags.go","lines":[1,40]}`}}, msgs[2].ToolCalls[1])
	assert.Equal(t, compact.Message{Role: "tool", ToolCallID: "call_1", Name: "read_file", Content: "## v2\n- drop --legacy"}, msgs[3])
	assert.Equal(t, "call_2", msgs[4].ToolCallID)
	assert.Equal(t, "A reviewer says: the notes look right.", msgs[7].Content, "a generic message is the user's")
	assert.Equal(t, "[function result lint]\n0 issues", msgs[8].Content, "a function message names its function")
	require.NoError(t, compact.Validate(msgs), "the conversion is a valid chat history")
}

func TestConvertFailsOnlyWhereNoMessageCanSay(t *testing.T) {
	tests := []struct {
		name string
		msgs []llms.MessageContent
		want string
	}{
		{"a role langchaingo does not define", []llms.MessageContent{msg("critic", llms.TextPart("no"))},
			`langchaingo: message 0: compact: invalid history: role "critic"`},
		{"a nil part", []llms.MessageContent{msg(llms.ChatMessageTypeHuman, llms.TextPart("a"), nil)},
			`langchaingo: message 0: compact: invalid history: part 1 is nil`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Convert(tt.msgs)
			require.Error(t, err)
			assert.True(t, errors.Is(err, compact.ErrInvalidHistory))
			assert.Equal(t, tt.want, err.Error())
		})
	}
}
