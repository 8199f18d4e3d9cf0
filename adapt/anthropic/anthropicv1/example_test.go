package anthropicv1_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/anthropics/anthropic-sdk-go"

	"github.com/contextkit/compact"
	adapt "github.com/contextkit/compact/adapt/anthropic/anthropicv1"
)

// history is an agent conversation: a cached system prompt, a question,
// three rounds of two parallel tool calls answered in one turn (one call
// fails each time), and a follow-up.
func history() adapt.History {
	h := adapt.History{
		System: []anthropic.TextBlockParam{{Text: "You are a coding agent.",
			CacheControl: anthropic.CacheControlEphemeralParam{TTL: anthropic.CacheControlEphemeralTTLTTL1h}}},
		Messages: []anthropic.MessageParam{
			anthropic.NewUserMessage(anthropic.NewTextBlock("Where is the retry budget set?")),
		},
	}
	long := strings.Repeat("// retry helpers: wait, back off, give up after the budget.\n", 40)
	for i := 1; i <= 3; i++ {
		a, b := fmt.Sprintf("toolu_%da", i), fmt.Sprintf("toolu_%db", i)
		h.Messages = append(h.Messages,
			anthropic.NewAssistantMessage(anthropic.NewThinkingBlock("sig", "Read two more files."),
				anthropic.NewToolUseBlock(a, map[string]any{"path": fmt.Sprintf("retry%d.go", i)}, "read_file"),
				anthropic.NewToolUseBlock(b, map[string]any{"path": fmt.Sprintf("budget%d.go", i)}, "read_file")),
			anthropic.NewUserMessage(anthropic.NewToolResultBlock(a, long, false),
				anthropic.NewToolResultBlock(b, "open: no such file", true)))
	}
	h.Messages = append(h.Messages,
		anthropic.NewAssistantMessage(anthropic.NewTextBlock("Helpers only so far; the budget files are missing.")),
		anthropic.NewUserMessage(anthropic.NewTextBlock("Then check config/defaults.go.")))
	return h
}

// describe prints each turn of h as its role and its blocks' types.
func describe(h adapt.History) {
	for _, m := range h.Messages {
		var types []string
		for _, b := range m.Content {
			types = append(types, *b.GetType())
		}
		fmt.Printf("  %-9s %s\n", m.Role, strings.Join(types, " "))
	}
}

func ExampleCompress() {
	h := history()
	engine := compact.New(compact.WithContextWindow(2000))
	out, res, err := adapt.Compress(context.Background(), engine, h, compact.Force())
	if err != nil {
		fmt.Println("carry on with the history as it is:", err)
		return
	}
	fmt.Printf("%d turns -> %d:\n", len(h.Messages), len(out.Messages))
	describe(out)
	fmt.Println("summarised converted messages", res.SummarizedFrom, "to", res.SummarizedTo)
	fmt.Println("system blocks:", len(out.System), "(the prompt, then the compaction note)")
	fmt.Println("cache_control kept:", out.System[0].CacheControl.TTL)
	fmt.Println("valid request:", adapt.Validate(out) == nil)
	// Output:
	// 9 turns -> 5:
	//   user      text
	//   assistant thinking tool_use tool_use
	//   user      tool_result tool_result
	//   assistant text
	//   user      text
	// summarised converted messages 1 to 7
	// system blocks: 2 (the prompt, then the compaction note)
	// cache_control kept: 1h
	// valid request: true
}

func ExampleConvert() {
	conv, err := adapt.Convert(history())
	if err != nil {
		panic(err)
	}
	for _, m := range conv.Messages {
		fmt.Printf("%-9s calls=%d id=%q\n", m.Role, len(m.ToolCalls), m.ToolCallID)
	}
	// Output:
	// system    calls=0 id=""
	// user      calls=0 id=""
	// assistant calls=2 id=""
	// tool      calls=0 id="toolu_1a"
	// tool      calls=0 id="toolu_1b"
	// assistant calls=2 id=""
	// tool      calls=0 id="toolu_2a"
	// tool      calls=0 id="toolu_2b"
	// assistant calls=2 id=""
	// tool      calls=0 id="toolu_3a"
	// tool      calls=0 id="toolu_3b"
	// assistant calls=0 id=""
	// user      calls=0 id=""
}

func ExampleConversion_Restore() {
	h := history()
	conv, err := adapt.Convert(h)
	if err != nil {
		panic(err)
	}
	// An engine that rewrites the first failed result and keeps the rest.
	msgs := compact.Clone(conv.Messages)
	msgs[4].Content = "[pruned]"
	out, err := conv.Restore(msgs)
	if err != nil {
		panic(err)
	}
	r := out.Messages[2].Content[1].OfToolResult
	fmt.Println(r.ToolUseID, "is_error:", r.IsError.Value, "content:", r.Content[0].OfText.Text)
	fmt.Println("other blocks unchanged:", out.Messages[2].Content[0] == h.Messages[2].Content[0])
	// Output:
	// toolu_1b is_error: true content: [pruned]
	// other blocks unchanged: true
}

func ExampleFromMessages() {
	h, err := adapt.FromMessages([]compact.Message{
		{Role: compact.RoleSystem, Content: "Be brief."},
		{Role: compact.RoleUser, Content: "Hi."},
		{Role: compact.RoleUser, Content: "Are you there?"},
	})
	if err != nil {
		panic(err)
	}
	body, _ := json.Marshal(map[string]any{"system": h.System, "messages": h.Messages})
	fmt.Println(string(body))
	// Output:
	// {"messages":[{"content":[{"text":"Hi.","type":"text"},{"text":"Are you there?","type":"text"}],"role":"user"}],"system":[{"text":"Be brief.","type":"text"}]}
}

func ExampleValidate() {
	h := history()
	h.Messages = h.Messages[:2] // the calls of the last turn may still run
	fmt.Println(adapt.Validate(h))
	h.Messages = append(h.Messages, anthropic.NewUserMessage(anthropic.NewTextBlock("What did you find?")))
	fmt.Println(adapt.Validate(h))
	// Output:
	// <nil>
	// anthropic: message 2: tool_use "toolu_1a" of the turn before is not answered here
}

func ExampleShouldCompress() {
	for _, window := range []int{200_000, 1_000} {
		engine := compact.New(compact.WithContextWindow(window))
		ok, err := adapt.ShouldCompress(engine, history())
		fmt.Println(window, ok, err)
	}
	// Output:
	// 200000 false <nil>
	// 1000 true <nil>
}

func ExampleUsageFrom() {
	var resp anthropic.Message // as Messages.New returns it
	resp.Usage.InputTokens, resp.Usage.OutputTokens = 200, 400
	resp.Usage.CacheReadInputTokens, resp.Usage.CacheCreationInputTokens = 30000, 1000
	u := adapt.UsageFrom(resp.Usage)
	fmt.Println(u.PromptTokens, u.CachedTokens, u.CacheWriteTokens, u.CompletionTokens)
	// Output:
	// 31200 30000 1000 400
}
