//lint:file-ignore SA1019 deprecated function calling is converted too, so histories that use it round-trip

package openaigo

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/param"
	goopenai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/contextkit/compact"
)

func TestConvertThenRestoreGivesBackTheSameHistory(t *testing.T) {
	extra := openai.UserMessage("hi")
	extra.OfUser.SetExtraFields(map[string]any{"x-trace": "abc"})
	tests := []struct {
		name string
		msgs []openai.ChatCompletionMessageParamUnion
	}{
		{"every part and field, decoded from a request body", decode(t, everyPartJSON)},
		{"built with the SDK's helpers", []openai.ChatCompletionMessageParamUnion{
			openai.SystemMessage("Be brief."), openai.UserMessage("hi"), openai.AssistantMessage("hello"),
			openai.DeveloperMessage("dev"), openai.ToolMessage("result", "call_9")}},
		{"nothing", nil},
		{"empty but not nil", []openai.ChatCompletionMessageParamUnion{}},
		{"a deprecated function result", []openai.ChatCompletionMessageParamUnion{
			{OfFunction: &openai.ChatCompletionFunctionMessageParam{Name: "f", Content: param.NewOpt("42")}}}},
		{"null and empty contents", decode(t, `[{"role":"user","content":""},{"role":"assistant","content":null},{"role":"assistant","content":[]},{"role":"tool","tool_call_id":"x","content":[]}]`)},
		{"fields the SDK keeps beside the known ones", []openai.ChatCompletionMessageParamUnion{extra}},
		{"a message the SDK holds as raw JSON", []openai.ChatCompletionMessageParamUnion{
			param.Override[openai.ChatCompletionMessageParamUnion](json.RawMessage(`{"role":"user","content":"raw","x":1}`))}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := encode(t, tt.msgs)
			requireIdentical(t, tt.msgs, roundTrip(t, tt.msgs))
			require.Equal(t, before, encode(t, tt.msgs), "the input is not modified")
		})
	}
}

func TestConvertShowsTheEngineEveryPart(t *testing.T) {
	v := viewsOf(t, decode(t, everyPartJSON))
	require.Len(t, v, 9, "one message for each message")
	require.NoError(t, compact.Validate(v))

	assert.Equal(t, compact.Message{Role: roleDeveloper, Name: "ops", MultiContent: []goopenai.ChatMessagePart{
		textPart("Follow the repository's style."), textPart("Never push.")}}, v[0])
	assert.Equal(t, compact.Message{Role: compact.RoleSystem, Content: "You are a release agent."}, v[1])

	assert.Equal(t, "dana", v[2].Name)
	assert.Equal(t, &goopenai.ChatMessageImageURL{URL: "data:image/png;base64,iVBORw0KGgo=", Detail: "low"}, v[2].MultiContent[1].ImageURL)
	assert.Equal(t, "https://example.com/shot.png", v[2].MultiContent[2].ImageURL.URL)
	assert.Equal(t, "[audio: wav, 16 bytes inline]", v[2].MultiContent[3].Text)
	assert.Equal(t, "[file: notes.pdf]", v[2].MultiContent[4].Text)
	assert.Equal(t, "[file: inline, 12 bytes inline]", v[2].MultiContent[5].Text)

	assert.Equal(t, "agent", v[3].Name)
	assert.Equal(t, "", v[3].Content, "an audio reference beside calls adds no text")
	assert.Equal(t, []goopenai.ToolCall{
		{ID: "call_1", Type: "function", Function: goopenai.FunctionCall{Name: "read_file", Arguments: `{"path": "NOTES.md"}`}},
		{ID: "call_2", Type: "custom", Function: goopenai.FunctionCall{Name: "grep", Arguments: "legacy flags/"}},
	}, v[3].ToolCalls, "a custom call is a call of type custom")
	assert.Equal(t, "flags/legacy.go:3\nflags/legacy_test.go:9", compact.Text(v[5]))
	assert.Equal(t, compact.Message{Role: compact.RoleAssistant, Refusal: "I will not push.",
		MultiContent: []goopenai.ChatMessagePart{textPart("The notes match.")}}, v[6],
		"a refusal part joins the refusal")
	assert.Equal(t, &goopenai.FunctionCall{Name: "noop", Arguments: "{}"}, v[7].FunctionCall)

	audioOnly := viewsOf(t, decode(t, `[{"role":"assistant","audio":{"id":"a1"}}]`))
	assert.Equal(t, audioPlaceholder, audioOnly[0].Content, "an audio-only turn is not empty")
}

func TestConvertFailsOnlyOnAMessageWithNoRole(t *testing.T) {
	raw := param.Override[openai.ChatCompletionMessageParamUnion](json.RawMessage(`{"content":"who?"}`))
	_, err := Convert([]openai.ChatCompletionMessageParamUnion{openai.UserMessage("hi"), raw})
	require.Error(t, err)
	assert.True(t, errors.Is(err, compact.ErrInvalidHistory))
	assert.Equal(t, "openaigo: message 1: compact: invalid history: a message with no role", err.Error())
}

func TestValidateNamesTheMessage(t *testing.T) {
	msgs := decode(t, everyPartJSON)
	require.NoError(t, Validate(msgs))
	broken := append(msgs[:4:4], msgs[5:]...) // call_1 loses its result
	var ve *compact.ValidationError
	require.ErrorAs(t, Validate(broken), &ve)
	assert.Equal(t, 3, ve.Index)
	assert.Equal(t, `message 3: tool call "call_1" (read_file) is never answered`, ve.Error())
}
