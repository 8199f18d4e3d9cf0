package compact_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/tokens"
	openai "github.com/sashabaranov/go-openai"
)

// agentHistory is a coding agent's conversation: rounds runs of the tests,
// each printing 40 lines, then a short reply.
func agentHistory(rounds int) []compact.Message {
	msgs := []compact.Message{
		{Role: compact.RoleSystem, Content: "You are a coding agent."},
		{Role: compact.RoleUser, Content: "Make the store tests pass."},
	}
	for i := 1; i <= rounds; i++ {
		id := fmt.Sprintf("call_%d", i)
		out := strings.Repeat(fmt.Sprintf("--- FAIL: TestStore%d (0.01s)\n", i), 40) + "exit status 1"
		msgs = append(msgs,
			compact.Message{Role: compact.RoleAssistant, ToolCalls: []openai.ToolCall{{
				ID: id, Type: openai.ToolTypeFunction,
				Function: openai.FunctionCall{Name: "bash", Arguments: `{"command":"go test ./store"}`},
			}}},
			compact.Message{Role: compact.RoleTool, ToolCallID: id, Content: out})
	}
	return append(msgs, compact.Message{Role: compact.RoleAssistant, Content: "Still failing; looking at the fixture."})
}

// Prune masks the output of old tool calls, keeping the last few whole.
func ExamplePrune() {
	res := compact.Prune(agentHistory(5), compact.WithClearAtLeast(500))
	fmt.Println("committed:", res.Committed)
	for _, c := range res.Changes {
		fmt.Printf("message %d (%s): %s, %d -> %d tokens\n", c.Index, c.ToolCallID, c.Kind, c.TokensBefore, c.TokensAfter)
	}
	fmt.Println(res.Messages[3].Content)
	// Output:
	// committed: true
	// message 3 (call_1): masked tool result, 300 -> 43 tokens
	// message 5 (call_2): masked tool result, 300 -> 43 tokens
	// [pruned] Output of bash (command: go test ./store) removed to save space (exit status 1, 41 lines, 1173 bytes). Call the tool again if you need it.
}

// A rule table says how to describe a tool's calls, and which tools'
// output must never be masked.
func ExampleWithToolRules() {
	msgs := agentHistory(5)
	msgs[4].ToolCalls[0].Function.Name = "plan" // call_2 updates the agent's plan
	res := compact.Prune(msgs, compact.WithClearAtLeast(0), compact.WithToolRules(
		compact.ToolRule{Name: "plan", NeverMask: true},
		compact.ToolRule{Name: "bash", Describe: func(args map[string]any, result string) string {
			return fmt.Sprintf("the test run %q", args["command"])
		}},
	))
	for _, c := range res.Changes {
		fmt.Println(c.Index, res.Messages[c.Index].Content)
	}
	// Output:
	// 3 [pruned] Output of the test run "go test ./store" removed to save space (exit status 1, 41 lines, 1173 bytes). Call the tool again if you need it.
}

// A Compressor prunes before it summarises: when that is enough, no
// summarizer is called at all.
func ExampleWithPruning() {
	calls := 0
	count := compact.SummarizerFunc(func(ctx context.Context, req compact.SummaryRequest) (string, error) {
		calls++
		return "summary", nil
	})
	c := compact.New(compact.WithContextWindow(4200), compact.WithThresholdBounds(0, 0),
		compact.WithTokenCounter(tokens.Estimate{}), compact.WithSummarizer(count),
		compact.WithPruning(true), compact.WithClearAtLeast(500))
	msgs := agentHistory(10)
	fmt.Println("should compress:", c.ShouldCompressMessages(msgs))
	res, err := c.Compress(context.Background(), msgs)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("summarizer calls:", calls, "summary index:", res.SummaryIndex, "pruned:", len(res.Pruned))
	fmt.Println("should compress now:", c.ShouldCompressMessages(res.Messages))
	// Output:
	// should compress: true
	// summarizer calls: 0 summary index: -1 pruned: 7
	// should compress now: false
}
