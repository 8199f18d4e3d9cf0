package openaigo

import (
	"context"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/contextkit/compact"
)

// A union with no variant is the SDK's nil part: it encodes as null, which
// the API refuses. Issue 35 found nil parts passing the other adapters'
// Validate; these are the Chat Completions and Responses ones.
func TestAPartWithNoVariantIsAnErrorNamingItsMessage(t *testing.T) {
	hi := openai.UserMessage("Read a.go.")
	tests := []struct {
		name string
		msgs []openai.ChatCompletionMessageParamUnion
		want string
	}{
		{"in a user message", []openai.ChatCompletionMessageParamUnion{{OfUser: &openai.ChatCompletionUserMessageParam{
			Content: openai.ChatCompletionUserMessageParamContentUnion{OfArrayOfContentParts: []openai.ChatCompletionContentPartUnionParam{
				openai.TextContentPart("Read a.go."), {}}}}}},
			"openaigo: message 0: compact: invalid history: part 1 has no variant (it encodes as null)"},
		{"in an assistant message", []openai.ChatCompletionMessageParamUnion{hi, {OfAssistant: &openai.ChatCompletionAssistantMessageParam{
			Content: openai.ChatCompletionAssistantMessageParamContentUnion{
				OfArrayOfContentParts: []openai.ChatCompletionAssistantMessageParamContentArrayOfContentPartUnion{{}}}}}},
			"openaigo: message 1: compact: invalid history: part 0 has no variant (it encodes as null)"},
		{"a tool call", []openai.ChatCompletionMessageParamUnion{hi, {OfAssistant: &openai.ChatCompletionAssistantMessageParam{
			ToolCalls: []openai.ChatCompletionMessageToolCallUnionParam{{}}}}},
			"openaigo: message 1: compact: invalid history: tool call 0 has no variant (it encodes as null)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Convert(tt.msgs)
			require.ErrorIs(t, err, compact.ErrInvalidHistory)
			assert.Equal(t, tt.want, err.Error())
			assert.Equal(t, tt.want, Validate(tt.msgs).Error(), "Validate passes a part that encodes as null")
			_, _, err = Compress(context.Background(), compact.New(compact.WithContextWindow(4000)), tt.msgs, compact.Force())
			require.ErrorIs(t, err, compact.ErrInvalidHistory)
		})
	}
}

func TestAnItemPartWithNoVariantIsAnErrorNamingItsItem(t *testing.T) {
	items := []Item{
		{OfInputMessage: &responses.ResponseInputItemMessageParam{Role: "user", Content: responses.ResponseInputMessageContentListParam{
			{OfInputText: &responses.ResponseInputTextParam{Text: "Read a.go."}}, {}}}},
	}
	_, err := ConvertItems(items)
	require.ErrorIs(t, err, compact.ErrInvalidHistory)
	assert.Equal(t, "openaigo: item 0: compact: invalid history: content part 1 has no variant (it encodes as null)", err.Error())
	require.ErrorIs(t, ValidateItems(items), compact.ErrInvalidHistory)
	out := decodeItemsT(t, `[{"type":"function_call","call_id":"c1","name":"f","arguments":"{}"},
		{"type":"function_call_output","call_id":"c1","output":[{"type":"input_text","text":"x"},null]}]`)
	_, err = ConvertItems(out)
	require.ErrorIs(t, err, compact.ErrInvalidHistory)
	assert.Equal(t, "openaigo: item 1: compact: invalid history: output part 1 has no variant (it encodes as null)", err.Error())
}
