package compact_test

import (
	"errors"
	"fmt"
	"strings"

	"github.com/contextkit/compact"
	openai "github.com/sashabaranov/go-openai"
)

// The example conversation of OpenAI's cookbook ("How to count tokens with
// tiktoken"); the API reported 124 prompt tokens for it on gpt-4o.
var cookbook = []compact.Message{
	{Role: "system", Content: "You are a helpful, pattern-following assistant that translates corporate jargon into plain English."},
	{Role: "system", Name: "example_user", Content: "New synergies will help drive top-line growth."},
	{Role: "system", Name: "example_assistant", Content: "Things working well together will increase revenue."},
	{Role: "system", Name: "example_user", Content: "Let's circle back when we have more bandwidth to touch base on opportunities for increased leverage."},
	{Role: "system", Name: "example_assistant", Content: "Let's talk later when we're less busy about how to do better."},
	{Role: "user", Content: "This late pivot means we don't have time to boil the ocean for the client deliverable."},
}

func ExampleNewTokenCounter() {
	tc, err := compact.NewTokenCounter("gpt-4o")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(tc.Encoding())
	fmt.Println(tc.CountText("hello world"))
	fmt.Println(compact.CountMessages(tc, cookbook))
	// Output:
	// o200k_base
	// 2
	// 124
}

func ExampleNewEncodingCounter() {
	tc, err := compact.NewEncodingCounter(compact.EncodingCL100KBase)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(tc.CountText("tiktoken is great!"))

	_, err = compact.NewEncodingCounter("p50k_base")
	fmt.Println(errors.Is(err, compact.ErrUnknownEncoding))
	// Output:
	// 6
	// true
}

func ExampleEncodingForModel() {
	for _, model := range []string{"gpt-4o-mini", "gpt-4-turbo", "azure/gpt-35-turbo", "o3", "my-local-model"} {
		fmt.Println(model, compact.EncodingForModel(model))
	}
	// Output:
	// gpt-4o-mini o200k_base
	// gpt-4-turbo cl100k_base
	// azure/gpt-35-turbo cl100k_base
	// o3 o200k_base
	// my-local-model o200k_base
}

func ExampleCountMessages() {
	tc, err := compact.NewTokenCounter("gpt-4o")
	if err != nil {
		fmt.Println(err)
		return
	}
	msgs := []compact.Message{
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
	fmt.Println("request", compact.CountMessages(tc, msgs))
	// Output:
	// user 6
	// assistant 13
	// tool 9
	// request 31
}

func ExampleWithImageTokens() {
	image := compact.Message{Role: "user", MultiContent: []openai.ChatMessagePart{
		{Type: openai.ChatMessagePartTypeText, Text: "What is in this picture?"},
		{Type: openai.ChatMessagePartTypeImageURL, ImageURL: &openai.ChatMessageImageURL{URL: "https://example.com/cat.png"}},
	}}
	def, _ := compact.NewTokenCounter("gpt-4o")
	small, _ := compact.NewTokenCounter("gpt-4o", compact.WithImageTokens(255)) // 512x512: 85 + 170
	fmt.Println(def.CountMessage(image), small.CountMessage(image))
	// Output:
	// 775 265
}

func ExampleTally() {
	tc, err := compact.NewTokenCounter("gpt-4o")
	if err != nil {
		fmt.Println(err)
		return
	}
	tally := compact.NewTally(tc)
	fmt.Println(tally.Add(cookbook[:5]...))
	fmt.Println(tally.Add(cookbook[5]))
	fmt.Println(tally.Len(), tally.Total() == compact.CountMessages(tc, cookbook))

	// After compaction replaced the history, recount it.
	fmt.Println(tally.Reset([]compact.Message{cookbook[0], {Role: "user", Content: "Summary: jargon translation practice."}}))
	// Output:
	// 102
	// 124
	// 6 true
	// 34
}

func ExampleEstimateCounter() {
	var est compact.EstimateCounter // four bytes a token
	fmt.Println(est.CountText("hello world"))
	fmt.Println(compact.CountMessages(est, cookbook))
	// Output:
	// 3
	// 165
}

// A counter over another tokenizer counts messages by the same rules with
// MessageTokens; here each word is taken for a token.
func ExampleMessageTokens() {
	words := func(s string) int { return len(strings.Fields(s)) }
	m := compact.Message{Role: "user", Content: "count these four words"}
	const imageTokens = 765 // what an image of detail "high" costs; m has none
	fmt.Println(compact.MessageTokens(m, words, imageTokens))
	// Output:
	// 8
}
