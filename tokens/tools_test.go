package tokens

import (
	"encoding/json"
	"testing"

	openai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/assert"
)

// weatherRequest is the request of OpenAI's cookbook ("How to count tokens
// with tiktoken", counting tools): one function with an enum parameter, a
// system and a user message. The API reported 101 prompt tokens for gpt-4o
// and gpt-4o-mini, and 105 for gpt-4 and gpt-3.5-turbo.
func weatherRequest() ([]Message, []openai.Tool) {
	params := json.RawMessage(`{"type": "object", "properties": {
		"location": {"type": "string", "description": "The city and state, e.g. San Francisco, CA"},
		"unit": {"type": "string", "description": "The unit of temperature to return", "enum": ["celsius", "fahrenheit"]}},
		"required": ["location"]}`)
	tools := []openai.Tool{{Type: openai.ToolTypeFunction, Function: &openai.FunctionDefinition{
		Name: "get_current_weather", Description: "Get the current weather in a given location", Parameters: params}}}
	msgs := []Message{
		{Role: openai.ChatMessageRoleSystem, Content: "You are a helpful assistant that can answer to questions about the weather."},
		{Role: openai.ChatMessageRoleUser, Content: "What's the weather like in San Francisco?"},
	}
	return msgs, tools
}

func TestToolDefinitionsCountAsTheAPIReported(t *testing.T) {
	msgs, tools := weatherRequest()
	for _, tt := range []struct {
		encoding string
		want     int
	}{{EncodingO200KBase, 101}, {EncodingCL100KBase, 105}} {
		tc := newCounter(t, tt.encoding)
		assert.Equal(t, tt.want, CountMessages(tc, msgs)+CountTools(tc, tools), tt.encoding)
	}
}

func TestToolParametersMayBeAnyJSONValue(t *testing.T) {
	_, tools := weatherRequest()
	tc := newCounter(t, EncodingO200KBase)
	want := CountTools(tc, tools)
	var asMap map[string]any
	_ = json.Unmarshal(tools[0].Function.Parameters.(json.RawMessage), &asMap)
	mapped := []openai.Tool{{Type: openai.ToolTypeFunction, Function: &openai.FunctionDefinition{
		Name: tools[0].Function.Name, Description: tools[0].Function.Description, Parameters: asMap}}}
	assert.Equal(t, want, CountTools(tc, mapped), "a map counts like the raw schema")
	assert.Zero(t, CountTools(tc, nil))
	bare := []openai.Tool{{Type: openai.ToolTypeFunction, Function: &openai.FunctionDefinition{Name: "now"}}}
	assert.Equal(t, toolsEnd+toolInitO200K+tc.CountText("now:"), CountTools(tc, bare))
}
