package eino_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/schema"

	"github.com/contextkit/compact"
	adapt "github.com/contextkit/compact/adapt/eino"
)

// history is an agent conversation in eino's messages: a system prompt, a
// question, three rounds of two parallel tool calls (one fails each time),
// and a follow-up.
func history() []*schema.Message {
	msgs := []*schema.Message{
		schema.SystemMessage("You are a coding agent."),
		schema.UserMessage("Where is the retry budget set?"),
	}
	long := strings.Repeat("// retry helpers: wait, back off, give up after the budget.\n", 40)
	for i := 1; i <= 3; i++ {
		a, b := fmt.Sprintf("call_%da", i), fmt.Sprintf("call_%db", i)
		msgs = append(msgs,
			schema.AssistantMessage("", []schema.ToolCall{
				{ID: a, Type: "function", Function: schema.FunctionCall{Name: "read_file", Arguments: fmt.Sprintf(`{"path":"retry%d.go"}`, i)}},
				{ID: b, Type: "function", Function: schema.FunctionCall{Name: "read_file", Arguments: fmt.Sprintf(`{"path":"budget%d.go"}`, i)}},
			}),
			schema.ToolMessage(long, a, schema.WithToolName("read_file")),
			schema.ToolMessage("open: no such file", b, schema.WithToolName("read_file")))
	}
	return append(msgs,
		schema.AssistantMessage("Helpers only so far; the budget files are missing.", nil),
		schema.UserMessage("Then check config/defaults.go."))
}

// roles prints each message's role and, for a tool call turn, its calls.
func roles(msgs []*schema.Message) {
	for _, m := range msgs {
		fmt.Printf("  %-9s calls=%d %.40q\n", m.Role, len(m.ToolCalls), m.Content)
	}
}

func ExampleNewMiddleware() {
	// One engine, and so one middleware, per conversation. A 2,000-token
	// window makes this short history compact; use the model's window.
	engine := compact.New(compact.WithContextWindow(2000))
	mw := adapt.NewMiddleware(engine, adapt.WithCompressOptions(compact.WithFocus("the retry budget")))

	// adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{Model: m,
	//	Handlers: []adk.ChatModelAgentMiddleware{mw}}) calls this before each
	// model call; here it is called by hand.
	state := &adk.ChatModelAgentState{Messages: history()}
	_, next, err := mw.BeforeModelRewriteState(context.Background(), state, &adk.ModelContext{})
	if err != nil {
		panic(err)
	}
	fmt.Println(len(state.Messages), "messages ->", len(next.Messages))
	fmt.Println("system prompt kept, a note added:", strings.HasPrefix(next.Messages[0].Content, state.Messages[0].Content+"\n\n"))
	fmt.Println("last message:", next.Messages[len(next.Messages)-1].Content)
	fmt.Println("compactions:", engine.Status().Compressions)
	// Output:
	// 13 messages -> 7
	// system prompt kept, a note added: true
	// last message: Then check config/defaults.go.
	// compactions: 1
}

func ExampleCompress() {
	msgs := history()
	engine := compact.New(compact.WithContextWindow(2000))
	out, res, err := adapt.Compress(context.Background(), engine, msgs, compact.Force())
	if err != nil {
		fmt.Println("carry on with the history as it is:", err)
		return
	}
	fmt.Printf("%d messages -> %d:\n", len(msgs), len(out))
	roles(out)
	fmt.Println("summarised messages", res.SummarizedFrom, "to", res.SummarizedTo)
	// Output:
	// 13 messages -> 7:
	//   system    calls=0 "You are a coding agent.\n\n[Note: earlier "
	//   user      calls=0 "[Context handoff] This conversation outg"
	//   assistant calls=2 ""
	//   tool      calls=0 "[pruned] Output of read_file (path: retr"
	//   tool      calls=0 "open: no such file"
	//   assistant calls=0 "Helpers only so far; the budget files ar"
	//   user      calls=0 "Then check config/defaults.go."
	// summarised messages 1 to 7
}

func ExampleConvert() {
	conv, err := adapt.Convert(history())
	if err != nil {
		panic(err)
	}
	for _, m := range conv.Messages[:5] {
		fmt.Printf("%-9s calls=%d id=%q\n", m.Role, len(m.ToolCalls), m.ToolCallID)
	}
	// Output:
	// system    calls=0 id=""
	// user      calls=0 id=""
	// assistant calls=2 id=""
	// tool      calls=0 id="call_1a"
	// tool      calls=0 id="call_1b"
}

func ExampleConversion_Restore() {
	msgs := history()
	conv, err := adapt.Convert(msgs)
	if err != nil {
		panic(err)
	}
	// An engine that shortens the first failed result and keeps the rest.
	out := compact.Clone(conv.Messages)
	out[4].Content = "[pruned]"
	restored, err := conv.Restore(out)
	if err != nil {
		panic(err)
	}
	r := restored[4]
	fmt.Println(r.ToolCallID, r.ToolName, r.Content)
	fmt.Println("other messages unchanged:", restored[3].Content == msgs[3].Content)
	// Output:
	// call_1b read_file [pruned]
	// other messages unchanged: true
}

func ExampleFromMessages() {
	msgs, err := adapt.FromMessages([]compact.Message{
		{Role: compact.RoleSystem, Content: "Be brief."},
		{Role: compact.RoleUser, Content: "Hi."},
	})
	if err != nil {
		panic(err)
	}
	body, _ := json.Marshal(msgs)
	fmt.Println(string(body))
	// Output:
	// [{"role":"system","content":"Be brief."},{"role":"user","content":"Hi."}]
}

func ExampleValidate() {
	msgs := history()[:3] // the calls of the last turn may still run
	fmt.Println(adapt.Validate(msgs))
	msgs = append(msgs, schema.UserMessage("What did you find?"))
	fmt.Println(adapt.Validate(msgs) != nil)
	// Output:
	// <nil>
	// true
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
	resp := schema.AssistantMessage("done", nil) // as a model component returns it
	resp.ResponseMeta = &schema.ResponseMeta{Usage: &schema.TokenUsage{PromptTokens: 31200, CompletionTokens: 400,
		TotalTokens: 31600, PromptTokenDetails: schema.PromptTokenDetails{CachedTokens: 30000, CacheWriteTokens: 1000}}}
	u := adapt.UsageFrom(resp.ResponseMeta.Usage)
	fmt.Println(u.PromptTokens, u.CachedTokens, u.CacheWriteTokens, u.CompletionTokens)
	// Output:
	// 31200 30000 1000 400
}
