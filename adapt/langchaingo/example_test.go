package langchaingo_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/tmc/langchaingo/llms"

	"github.com/contextkit/compact"
	adapt "github.com/contextkit/compact/adapt/langchaingo"
	"github.com/contextkit/compact/session"
)

// history is an agent conversation: a system prompt, a question, three
// rounds of two parallel tool calls (one fails each time), and a
// follow-up.
func history() []llms.MessageContent {
	msgs := []llms.MessageContent{
		llms.TextParts(llms.ChatMessageTypeSystem, "You are a coding agent."),
		llms.TextParts(llms.ChatMessageTypeHuman, "Where is the retry budget set?"),
	}
	long := strings.Repeat("// retry helpers: wait, back off, give up after the budget.\n", 40)
	for i := 1; i <= 3; i++ {
		a, b := fmt.Sprintf("call_%da", i), fmt.Sprintf("call_%db", i)
		msgs = append(msgs,
			llms.MessageContent{Role: llms.ChatMessageTypeAI, Parts: []llms.ContentPart{
				llms.ToolCall{ID: a, Type: "function", FunctionCall: &llms.FunctionCall{Name: "read_file", Arguments: fmt.Sprintf(`{"path":"retry%d.go"}`, i)}},
				llms.ToolCall{ID: b, Type: "function", FunctionCall: &llms.FunctionCall{Name: "read_file", Arguments: fmt.Sprintf(`{"path":"budget%d.go"}`, i)}}}},
			llms.MessageContent{Role: llms.ChatMessageTypeTool, Parts: []llms.ContentPart{llms.ToolCallResponse{ToolCallID: a, Name: "read_file", Content: long}}},
			llms.MessageContent{Role: llms.ChatMessageTypeTool, Parts: []llms.ContentPart{llms.ToolCallResponse{ToolCallID: b, Name: "read_file", Content: "no such file"}}})
	}
	return append(msgs,
		llms.TextParts(llms.ChatMessageTypeAI, "Helpers only so far; the budget files are missing."),
		llms.TextParts(llms.ChatMessageTypeHuman, "Then check config/defaults.go."))
}

func ExampleCompress() {
	msgs := history()
	engine := compact.New(compact.WithContextWindow(2000))
	out, res, err := adapt.Compress(context.Background(), engine, msgs, compact.Force())
	if err != nil {
		fmt.Println("carry on with the history as it is:", err)
		return
	}
	fmt.Printf("%d messages -> %d:", len(msgs), len(out))
	for _, m := range out {
		fmt.Print(" ", m.Role)
	}
	fmt.Println()
	fmt.Println("summarised messages", res.SummarizedFrom, "to", res.SummarizedTo)
	fmt.Println("system parts:", len(out[0].Parts), "(the prompt, then the compaction note)")
	fmt.Println("valid request:", adapt.Validate(out) == nil)
	// Output:
	// 13 messages -> 7: system human ai tool tool ai human
	// summarised messages 1 to 7
	// system parts: 2 (the prompt, then the compaction note)
	// valid request: true
}

func ExampleConvert() {
	conv, err := adapt.Convert([]llms.MessageContent{
		{Role: llms.ChatMessageTypeAI, Parts: []llms.ContentPart{
			llms.ToolCall{ID: "a", Type: "function", FunctionCall: &llms.FunctionCall{Name: "f", Arguments: "{}"}},
			llms.ToolCall{ID: "b", Type: "function", FunctionCall: &llms.FunctionCall{Name: "g", Arguments: "{}"}}}},
		// One tool message answering both calls, as some providers take it.
		{Role: llms.ChatMessageTypeTool, Parts: []llms.ContentPart{
			llms.ToolCallResponse{ToolCallID: "a", Name: "f", Content: "1"},
			llms.ToolCallResponse{ToolCallID: "b", Name: "g", Content: "2"}}},
	})
	if err != nil {
		panic(err)
	}
	for _, m := range conv.Messages {
		fmt.Printf("%-9s calls=%d answers=%q\n", m.Role, len(m.ToolCalls), m.ToolCallID)
	}
	// Output:
	// assistant calls=2 answers=""
	// tool      calls=0 answers="a"
	// tool      calls=0 answers="b"
}

func ExampleConversion_Restore() {
	msgs := history()
	conv, err := adapt.Convert(msgs)
	if err != nil {
		panic(err)
	}
	// An engine that rewrites the first failed result and keeps the rest.
	out := compact.Clone(conv.Messages)
	out[4].Content = "[pruned]"
	restored, err := conv.Restore(out)
	if err != nil {
		panic(err)
	}
	fmt.Printf("%+v\n", restored[4].Parts[0])
	fmt.Println("name kept, everything else unchanged:", len(restored) == len(msgs))
	// Output:
	// {ToolCallID:call_1b Name:read_file Content:[pruned]}
	// name kept, everything else unchanged: true
}

func ExampleFromMessages() {
	msgs, err := adapt.FromMessages([]compact.Message{
		{Role: compact.RoleSystem, Content: "Be brief."},
		{Role: compact.RoleUser, Content: "Hi."},
	})
	if err != nil {
		panic(err)
	}
	llms.ShowMessageContents(stdout{}, msgs)
	// Output:
	// MessageContent (len=2)
	// [0]: Role=system
	//   Parts[0]: TextContent "Be brief."
	// [1]: Role=human
	//   Parts[0]: TextContent "Hi."
}

// stdout is fmt's standard output as an io.Writer.
type stdout struct{}

func (stdout) Write(p []byte) (int, error) { return fmt.Print(string(p)) }

func ExampleValidate() {
	msgs := history()[:3] // the calls of the last AI message may still run
	fmt.Println(adapt.Validate(msgs))
	msgs = append(msgs, llms.TextParts(llms.ChatMessageTypeHuman, "What did you find?"))
	fmt.Println(adapt.Validate(msgs))
	// Output:
	// <nil>
	// langchaingo: message 3: tool call "call_1a" of message 2 is not answered before this message
}

func ExampleShouldCompress() {
	for _, window := range []int{200_000, 1_000} {
		ok, err := adapt.ShouldCompress(compact.New(compact.WithContextWindow(window)), history())
		fmt.Println(window, ok, err)
	}
	// Output:
	// 200000 false <nil>
	// 1000 true <nil>
}

func ExampleUsageFrom() {
	var resp llms.ContentResponse // as GenerateContent returns it
	resp.Choices = []*llms.ContentChoice{{GenerationInfo: map[string]any{
		"PromptTokens": 31200, "PromptCachedTokens": 30000, "CompletionTokens": 400, "TotalTokens": 31600}}}
	u := adapt.UsageFrom(resp.Choices[0].GenerationInfo)
	fmt.Println(u.PromptTokens, u.CachedTokens, u.CompletionTokens)
	// Output:
	// 31200 30000 400
}

func ExampleNewMemory() {
	// In a real program the session has a store (session/sqlitestore) and
	// recall, and the memory goes to chains.NewConversation(llm, mem).
	ctx := context.Background()
	s, err := session.Open(ctx, "chat-42", compact.New(compact.WithContextWindow(128_000)))
	if err != nil {
		panic(err)
	}
	mem := adapt.NewMemory(s)
	if err := mem.SaveContext(ctx, map[string]any{"input": "Hi, I'm Ada."}, map[string]any{"text": "Hello Ada!"}); err != nil {
		panic(err)
	}
	vars, err := mem.LoadMemoryVariables(ctx, map[string]any{"input": "What's my name?"})
	if err != nil {
		panic(err)
	}
	fmt.Println(vars["history"])
	// Output:
	// Human: Hi, I'm Ada.
	// AI: Hello Ada!
}

func ExampleRecallTools() {
	s, err := session.Open(context.Background(), "chat-43", nil, session.WithRecall(true))
	if err != nil {
		panic(err)
	}
	for _, tool := range adapt.RecallTools(s) {
		fmt.Println(tool.Name())
	}
	// Output:
	// context_search
	// context_expand
	// context_describe
}

func ExampleChatMessages() {
	for _, m := range adapt.ChatMessages([]compact.Message{
		{Role: compact.RoleUser, Content: "q"},
		{Role: compact.RoleAssistant, Content: "a"},
	}) {
		fmt.Printf("%s %q\n", m.GetType(), m.GetContent())
	}
	// Output:
	// human "q"
	// ai "a"
}
