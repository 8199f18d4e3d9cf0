package openaigo_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/openai/openai-go/v3"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/adapt/openaigo"
)

// history is an agent conversation: a system prompt, a question, three
// rounds of a function call and a custom call answered (one fails each
// time), and a follow-up.
func history() []openai.ChatCompletionMessageParamUnion {
	msgs := []openai.ChatCompletionMessageParamUnion{
		openai.SystemMessage("You are a coding agent."),
		openai.UserMessage("Where is the retry budget set?"),
	}
	long := strings.Repeat("// retry helpers: wait, back off, give up after the budget.\n", 40)
	for i := 1; i <= 3; i++ {
		a, b := fmt.Sprintf("call_%da", i), fmt.Sprintf("call_%db", i)
		msgs = append(msgs,
			openai.ChatCompletionMessageParamUnion{OfAssistant: &openai.ChatCompletionAssistantMessageParam{
				ToolCalls: []openai.ChatCompletionMessageToolCallUnionParam{
					{OfFunction: &openai.ChatCompletionMessageFunctionToolCallParam{ID: a,
						Function: openai.ChatCompletionMessageFunctionToolCallFunctionParam{Name: "read_file", Arguments: fmt.Sprintf(`{"path":"retry%d.go"}`, i)}}},
					{OfCustom: &openai.ChatCompletionMessageCustomToolCallParam{ID: b,
						Custom: openai.ChatCompletionMessageCustomToolCallCustomParam{Name: "grep", Input: "DefaultBudget"}}},
				}}},
			openai.ToolMessage(long, a),
			openai.ToolMessage("grep: no matches", b))
	}
	return append(msgs,
		openai.AssistantMessage("Helpers only so far; nothing sets the budget."),
		openai.UserMessage("Then check config/defaults.go."))
}

// describe prints each message's type, and the types of its calls.
func describe(msgs []openai.ChatCompletionMessageParamUnion) {
	for _, m := range msgs {
		line := "  "
		switch {
		case m.OfSystem != nil:
			line += "system"
		case m.OfUser != nil:
			line += "user"
		case m.OfAssistant != nil:
			line += "assistant"
			for _, c := range m.OfAssistant.ToolCalls {
				if c.OfCustom != nil {
					line += " custom"
				} else {
					line += " function"
				}
			}
		case m.OfTool != nil:
			line += "tool " + m.OfTool.ToolCallID
		}
		fmt.Println(line)
	}
}

func ExampleCompress() {
	msgs := history()
	engine := compact.New(compact.WithContextWindow(2000))
	out, res, err := openaigo.Compress(context.Background(), engine, msgs, compact.Force())
	if err != nil {
		fmt.Println("carry on with the history as it is:", err)
		return
	}
	fmt.Printf("%d messages -> %d:\n", len(msgs), len(out))
	describe(out)
	fmt.Println("summarised messages", res.SummarizedFrom, "to", res.SummarizedTo)
	fmt.Println("valid request:", openaigo.Validate(out) == nil)
	// Output:
	// 13 messages -> 7:
	//   system
	//   user
	//   assistant function custom
	//   tool call_3a
	//   tool call_3b
	//   assistant
	//   user
	// summarised messages 1 to 7
	// valid request: true
}

func ExampleConvert() {
	conv, err := openaigo.Convert(history()[:5])
	if err != nil {
		panic(err)
	}
	for _, m := range conv.Messages {
		line := m.Role
		for _, c := range m.ToolCalls {
			line += " " + c.Function.Name + "(" + c.Function.Arguments + ")"
		}
		fmt.Println(line)
	}
	// Output:
	// system
	// user
	// assistant read_file({"path":"retry1.go"}) grep(DefaultBudget)
	// tool
	// tool
}

func ExampleConversion_Restore() {
	msgs := history()
	conv, err := openaigo.Convert(msgs)
	if err != nil {
		panic(err)
	}
	// An engine that shortens the first custom call's input and keeps the
	// rest.
	out := compact.Clone(conv.Messages)
	out[2].ToolCalls[1].Function.Arguments = "Default…"
	restored, err := conv.Restore(out)
	if err != nil {
		panic(err)
	}
	fmt.Println("custom input:", restored[2].OfAssistant.ToolCalls[1].OfCustom.Custom.Input)
	fmt.Println("other call unchanged:", restored[2].OfAssistant.ToolCalls[0] == msgs[2].OfAssistant.ToolCalls[0])
	// Output:
	// custom input: Default…
	// other call unchanged: true
}

func ExampleFromMessages() {
	msgs, err := openaigo.FromMessages([]compact.Message{
		{Role: compact.RoleSystem, Content: "Be brief."},
		{Role: compact.RoleUser, Content: "Hi."},
	})
	if err != nil {
		panic(err)
	}
	body, _ := json.Marshal(msgs)
	fmt.Println(string(body))
	// Output:
	// [{"content":"Be brief.","role":"system"},{"content":"Hi.","role":"user"}]
}

func ExampleValidate() {
	msgs := history()
	fmt.Println(openaigo.Validate(msgs))
	fmt.Println(openaigo.Validate(append(msgs[:3:3], msgs[4:]...))) // call_1a loses its result
	// Output:
	// <nil>
	// message 2: tool call "call_1a" (read_file) is never answered
}

func ExampleShouldCompress() {
	for _, window := range []int{128_000, 1_000} {
		ok, err := openaigo.ShouldCompress(compact.New(compact.WithContextWindow(window)), history())
		fmt.Println(window, ok, err)
	}
	// Output:
	// 128000 false <nil>
	// 1000 true <nil>
}

func ExampleUsageFrom() {
	var resp openai.ChatCompletion // as Chat.Completions.New returns it
	resp.Usage.PromptTokens, resp.Usage.CompletionTokens, resp.Usage.TotalTokens = 31200, 400, 31600
	resp.Usage.PromptTokensDetails.CachedTokens = 30000
	u := openaigo.UsageFrom(resp.Usage)
	fmt.Println(u.PromptTokens, u.CachedTokens, u.CompletionTokens)
	// Output:
	// 31200 30000 400
}
