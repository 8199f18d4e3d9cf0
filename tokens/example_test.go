package tokens_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/contextkit/compact/tokens"
	openai "github.com/sashabaranov/go-openai"
)

// The example conversation of OpenAI's cookbook ("How to count tokens with
// tiktoken"); the API reported 124 prompt tokens for it on gpt-4o.
var cookbook = []tokens.Message{
	{Role: "system", Content: "You are a helpful, pattern-following assistant that translates corporate jargon into plain English."},
	{Role: "system", Name: "example_user", Content: "New synergies will help drive top-line growth."},
	{Role: "system", Name: "example_assistant", Content: "Things working well together will increase revenue."},
	{Role: "system", Name: "example_user", Content: "Let's circle back when we have more bandwidth to touch base on opportunities for increased leverage."},
	{Role: "system", Name: "example_assistant", Content: "Let's talk later when we're less busy about how to do better."},
	{Role: "user", Content: "This late pivot means we don't have time to boil the ocean for the client deliverable."},
}

func ExampleForModel() {
	tc, err := tokens.ForModel("gpt-4o")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(tc.Encoding())
	fmt.Println(tc.CountText("hello world"))
	fmt.Println(tokens.CountMessages(tc, cookbook))
	// Output:
	// o200k_base
	// 2
	// 124
}

func ExampleForEncoding() {
	tc, err := tokens.ForEncoding(tokens.EncodingCL100KBase)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(tc.CountText("tiktoken is great!"))

	_, err = tokens.ForEncoding("p50k_base")
	fmt.Println(errors.Is(err, tokens.ErrUnknownEncoding))
	// Output:
	// 6
	// true
}

func ExampleEncodingForModel() {
	for _, model := range []string{"gpt-4o-mini", "gpt-4-turbo", "azure/gpt-35-turbo", "o3", "my-local-model"} {
		fmt.Println(model, tokens.EncodingForModel(model))
	}
	// Output:
	// gpt-4o-mini o200k_base
	// gpt-4-turbo cl100k_base
	// azure/gpt-35-turbo cl100k_base
	// o3 o200k_base
	// my-local-model o200k_base
}

func ExampleCountMessages() {
	tc, err := tokens.ForModel("gpt-4o")
	if err != nil {
		fmt.Println(err)
		return
	}
	msgs := []tokens.Message{
		{Role: "user", Content: "hello world"},
		{Role: "assistant", ToolCalls: []openai.ToolCall{{
			ID: "call_1", Type: openai.ToolTypeFunction,
			Function: openai.FunctionCall{Name: "search", Arguments: `{"q":"weather"}`},
		}}},
		{Role: "tool", ToolCallID: "call_1", Content: "sunny"},
	}
	for _, m := range msgs {
		fmt.Println(m.Role, tc.CountMessage(m))
	}
	fmt.Println("request", tokens.CountMessages(tc, msgs))
	// Output:
	// user 6
	// assistant 13
	// tool 9
	// request 31
}

func ExampleWithImageTokens() {
	image := tokens.Message{Role: "user", MultiContent: []openai.ChatMessagePart{
		{Type: openai.ChatMessagePartTypeText, Text: "What is in this picture?"},
		{Type: openai.ChatMessagePartTypeImageURL, ImageURL: &openai.ChatMessageImageURL{URL: "https://example.com/cat.png"}},
	}}
	def, _ := tokens.ForModel("gpt-4o")
	small, _ := tokens.ForModel("gpt-4o", tokens.WithImageTokens(255)) // 512x512: 85 + 170
	fmt.Println(def.CountMessage(image), small.CountMessage(image))
	// Output:
	// 775 265
}

func ExampleTally() {
	tc, err := tokens.ForModel("gpt-4o")
	if err != nil {
		fmt.Println(err)
		return
	}
	tally := tokens.NewTally(tc)
	fmt.Println(tally.Add(cookbook[:5]...))
	fmt.Println(tally.Add(cookbook[5]))
	fmt.Println(tally.Len(), tally.Total() == tokens.CountMessages(tc, cookbook))

	// After compaction replaced the history, recount it.
	fmt.Println(tally.Reset([]tokens.Message{cookbook[0], {Role: "user", Content: "Summary: jargon translation practice."}}))
	// Output:
	// 102
	// 124
	// 6 true
	// 34
}

func ExampleEstimator() {
	var est tokens.Estimator // four bytes a token
	fmt.Println(est.CountText("hello world"))
	fmt.Println(tokens.CountMessages(est, cookbook))
	// Output:
	// 3
	// 165
}

// A counter over another tokenizer counts messages by the same rules with
// MessageTokens; here each word is taken for a token.
func ExampleMessageTokens() {
	words := func(s string) int { return len(strings.Fields(s)) }
	m := tokens.Message{Role: "user", Content: "count these four words"}
	const imageTokens = 765 // what an image of detail "high" costs; m has none
	fmt.Println(tokens.MessageTokens(m, words, imageTokens))
	// Output:
	// 8
}

// Tool definitions ride along with every request; CountTools counts them
// the way OpenAI's cookbook measured against the API.
func ExampleCountTools() {
	tc, err := tokens.ForModel("gpt-4o")
	if err != nil {
		fmt.Println(err)
		return
	}
	weather := openai.Tool{Type: openai.ToolTypeFunction, Function: &openai.FunctionDefinition{
		Name: "get_current_weather", Description: "Get the current weather in a given location",
		Parameters: json.RawMessage(`{"type": "object", "properties": {
			"location": {"type": "string", "description": "The city and state, e.g. San Francisco, CA"},
			"unit": {"type": "string", "description": "The unit of temperature to return", "enum": ["celsius", "fahrenheit"]}},
			"required": ["location"]}`)}}
	msgs := []tokens.Message{
		{Role: "system", Content: "You are a helpful assistant that can answer to questions about the weather."},
		{Role: "user", Content: "What's the weather like in San Francisco?"},
	}
	fmt.Println(tokens.CountMessages(tc, msgs) + tokens.CountTools(tc, []openai.Tool{weather}))
	// Output:
	// 101
}

// An invalid option value keeps the default, and the counter says so.
func ExampleExact_Adjusted() {
	tc, err := tokens.ForModel("gpt-4o", tokens.WithImageTokens(-1), tokens.WithCacheSize(0))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(tc.Adjusted())
	// Output:
	// [WithImageTokens(-1): invalid, 765 kept]
}
