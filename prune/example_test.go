package prune_test

import (
	"fmt"
	"strings"

	"github.com/contextkit/compact/internal/msgtest"
	"github.com/contextkit/compact/prune"
	openai "github.com/sashabaranov/go-openai"
)

// Apply masks the output of old tool calls, keeping the last few whole.
func ExampleApply() {
	res := prune.Apply(msgtest.FailingTests(5), prune.WithClearAtLeast(500))
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
	msgs := msgtest.FailingTests(5)
	msgs[4].ToolCalls[0].Function.Name = "plan" // call_2 updates the agent's plan
	res := prune.Apply(msgs, prune.WithClearAtLeast(0), prune.WithToolRules(
		prune.ToolRule{Name: "plan", NeverMask: true},
		prune.ToolRule{Name: "bash", Describe: func(args map[string]any, result string) string {
			return fmt.Sprintf("the test run %q", args["command"])
		}},
	))
	for _, c := range res.Changes {
		fmt.Println(c.Index, res.Messages[c.Index].Content)
	}
	// Output:
	// 3 [pruned] Output of the test run "go test ./store" removed to save space (exit status 1, 41 lines, 1173 bytes). Call the tool again if you need it.
}

// A Pruner keeps its settings for every pruning; an invalid value keeps
// the default and is reported.
func ExampleNew() {
	p := prune.New(prune.WithKeepToolUses(-1), prune.WithClearAtLeast(500))
	fmt.Println(p.Adjusted())
	res := p.Apply(msgtest.FailingTests(5))
	fmt.Println(len(res.Changes), res.Adjusted)
	// Output:
	// [WithKeepToolUses(-1): invalid, 3 kept]
	// 2 [WithKeepToolUses(-1): invalid, 3 kept]
}

// WithKinds limits pruning to the changes that lose no text: duplicates
// and old images.
func ExampleWithKinds() {
	msgs := msgtest.FailingTests(3)
	msgs = append(msgs[:len(msgs)-1], msgs[2:4]...) // call_1 and its output again
	msgs[len(msgs)-2].ToolCalls[0].ID = "call_9"
	msgs[len(msgs)-1].ToolCallID = "call_9"
	msgs = append(msgs, prune.Message{Role: openai.ChatMessageRoleAssistant, Content: "Same failure."})
	res := prune.Apply(msgs, prune.WithClearAtLeast(0), prune.WithKeepToolUses(0),
		prune.WithKinds(prune.Deduplicated, prune.ImagesReplaced))
	for _, c := range res.Changes {
		fmt.Println(c.Index, c.Kind)
	}
	// Output:
	// 3 deduplicated tool result
}

// WithFit makes a history fit a budget when stand-ins for old tool output
// are not enough: here an earlier answer pasting a table is cut to its
// start and end, and the latest exchange stays whole.
func ExampleWithFit() {
	var table strings.Builder
	for i := range 400 {
		fmt.Fprintf(&table, "| row %d | 42 | ok |\n", i)
	}
	msgs := []prune.Message{
		{Role: openai.ChatMessageRoleUser, Content: "Show me the table."},
		{Role: openai.ChatMessageRoleAssistant, Content: table.String()},
		{Role: openai.ChatMessageRoleUser, Content: "Which row is largest?"},
		{Role: openai.ChatMessageRoleAssistant, Content: "Row 7."},
	}
	res := prune.Apply(msgs, prune.WithFit(1000), prune.WithClearAtLeast(0))
	for _, c := range res.Changes {
		fmt.Printf("message %d: %s, %d -> %d tokens\n", c.Index, c.Kind, c.TokensBefore, c.TokensAfter)
	}
	fmt.Println(res.TokensAfter <= 1000)
	fmt.Println(strings.SplitN(res.Messages[1].Content, "\n", 2)[0])
	// Output:
	// message 1: trimmed oversized message, 2179 -> 529 tokens
	// true
	// [pruned] This assistant message was shortened to fit the context window (400 lines, 8690 bytes); its start and end follow.
}
