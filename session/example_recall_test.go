package session_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	openai "github.com/sashabaranov/go-openai"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/session"
)

// buildLog is an agent's run: a test fails once early on, with an error
// line a summary has no room for, then many rounds of other work.
func buildLog() []compact.Message {
	msgs := []compact.Message{
		{Role: compact.RoleSystem, Content: "You are a coding agent."},
		{Role: compact.RoleUser, Content: "Make the tests pass."},
	}
	for i := 1; i <= 40; i++ {
		id := fmt.Sprintf("call_%d", i)
		out := fmt.Sprintf("ok  pkg%d  0.%02ds\n%s", i, i, strings.Repeat("=== RUN TestSomething\n", 12))
		if i == 2 {
			out = "--- FAIL: TestRetry (0.01s)\n    retry_test.go:41: budget = 0, want 3\nFAIL"
		}
		msgs = append(msgs,
			compact.Message{Role: compact.RoleAssistant, ToolCalls: []openai.ToolCall{{ID: id, Type: openai.ToolTypeFunction,
				Function: openai.FunctionCall{Name: "bash", Arguments: fmt.Sprintf(`{"command":"go test ./pkg%d"}`, i)}}}},
			compact.Message{Role: compact.RoleTool, ToolCallID: id, Content: out})
	}
	return append(msgs, compact.Message{Role: compact.RoleUser, Content: "Which test failed first?"})
}

func ExampleSession_Tools() {
	ctx := context.Background()
	s, err := session.Open(context.Background(), "agent-7", smallEngine(), session.WithRecall(true), session.WithToolBudget(1000))
	if err != nil {
		fmt.Println(err)
		return
	}
	_ = s.Append(ctx, buildLog()...)
	if _, err := s.Compress(ctx); err != nil {
		fmt.Println(err)
		return
	}
	// The summary ends with a line that points the model at the archive.
	for _, m := range s.Messages() {
		if compact.IsSummary(m) {
			text := compact.Text(m)
			fmt.Println(text[strings.LastIndex(text, "\n")+1:])
		}
	}

	// The host offers the tools with its request and routes the model's
	// calls to them by name.
	tools := map[string]compact.Tool{}
	for _, t := range s.Tools() {
		tools[t.Definition.Function.Name] = t
	}
	out, _ := tools[session.ToolSearch].Handle(ctx, `{"query":"want 3"}`)
	var found struct {
		Matches []struct {
			Seq  int
			Role string
			Tool string
			Hits []struct{ Snippet string }
		}
	}
	_ = json.Unmarshal(out, &found)
	m := found.Matches[0]
	fmt.Printf("seq %d, %s of %s:\n%s\n", m.Seq, m.Role, m.Tool, m.Hits[0].Snippet)

	out, _ = tools[session.ToolExpand].Handle(ctx, fmt.Sprintf(`{"seq":[%d]}`, m.Seq-1))
	fmt.Println(string(out))
	// Output:
	// [Recall: messages 5 to 74 of this conversation are archived verbatim. Find text in them with context_search, read them by seq with context_expand, list compactions with context_describe.]
	// seq 6, tool of bash:
	// --- FAIL: TestRetry (0.01s)
	//     retry_test.go:41: budget = 0, want 3
	// FAIL
	// {"messages":[{"seq":5,"role":"assistant","calls":[{"id":"call_2","name":"bash"}],"text":"bash({\"command\":\"go test ./pkg2\"})"}]}
}

func ExampleSession_CompressHere() {
	ctx := context.Background()
	s, _ := session.Open(context.Background(), "agent-8", smallEngine(), session.WithRecall(true))
	_ = s.Append(ctx, buildLog()...)
	_ = s.Append(ctx, compact.Message{Role: compact.RoleAssistant, Content: "TestRetry, in pkg2."})

	// "/compress here 1": keep the last exchange, summarise the rest.
	res, err := s.CompressHere(ctx, 1)
	if err != nil {
		fmt.Println(err)
		return
	}
	// The history opens on a user turn: the summary is merged in front of
	// the kept exchange's request, which ends the message unchanged.
	msgs := s.Messages()
	fmt.Println("summary at", res.SummaryIndex, "in a user turn:", compact.IsRealUser(msgs[res.SummaryIndex]))
	for _, m := range msgs[res.SummaryIndex:] {
		fmt.Printf("  %s: ...%s\n", m.Role, m.Content[strings.LastIndex(m.Content, "\n")+1:])
	}
	// Output:
	// summary at 1 in a user turn: true
	//   user: ...Which test failed first?
	//   assistant: ...TestRetry, in pkg2.
}

func ExampleSession_CompressBefore() {
	ctx := context.Background()
	s, _ := session.Open(context.Background(), "agent-9", smallEngine(), session.WithRecall(true))
	_ = s.Append(ctx, buildLog()...)

	// "Summarize up to here", pointing at the last user message.
	res, err := s.CompressBefore(ctx, s.Len()-1)
	if err != nil {
		fmt.Println(err)
		return
	}
	msgs := s.Messages()
	fmt.Println("folded messages", res.SummarizedFrom, "to", res.SummarizedTo, "of", res.MessagesBefore)
	last := msgs[len(msgs)-1].Content // the summary merged in front of it
	fmt.Println("kept:", last[strings.LastIndex(last, "\n")+1:])
	// Output:
	// folded messages 1 to 81 of 83
	// kept: Which test failed first?
}

func ExampleSession_CompressFrom() {
	ctx := context.Background()
	s, _ := session.Open(context.Background(), "agent-10", smallEngine(), session.WithRecall(true))
	_ = s.Append(ctx, buildLog()...)

	// "Summarize from here": keep the task as asked, fold the tool rounds.
	res, err := s.CompressFrom(ctx, 2)
	if err != nil {
		fmt.Println(err)
		return
	}
	msgs := s.Messages()
	fmt.Println("kept:", msgs[1].Content)
	fmt.Println("summary at", res.SummaryIndex, "then:", msgs[res.SummaryIndex+1].Content)
	// Output:
	// kept: Make the tests pass.
	// summary at 2 then: Which test failed first?
}
