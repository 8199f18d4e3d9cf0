package compact_test

import (
	"context"
	"fmt"

	"github.com/contextkit/compact"
	openai "github.com/sashabaranov/go-openai"
)

func bashCall(id, command string) compact.Message {
	return compact.Message{Role: compact.RoleAssistant, ToolCalls: []openai.ToolCall{{
		ID: id, Type: openai.ToolTypeFunction,
		Function: openai.FunctionCall{Name: "bash", Arguments: fmt.Sprintf(`{"command":%q}`, command)},
	}}}
}

func toolResult(id, output string) compact.Message {
	return compact.Message{Role: compact.RoleTool, ToolCallID: id, Content: output}
}

// An ExtractiveSummarizer needs no model: it lifts the facts (errors with
// the command that printed them, files, identifiers, the last command),
// the task, the commands with their exit status and the decisions out of
// the turns themselves, under the headings a model-written summary uses.
func ExampleNewExtractiveSummarizer() {
	turns := []compact.Message{
		{Role: compact.RoleUser, Content: "ParseDuration rejects \"1h 30m\"; make it accept spaces."},
		{Role: compact.RoleAssistant, Content: "The root cause is that time.ParseDuration stops at the space. I'll strip spaces first."},
		{Role: compact.RoleAssistant, ToolCalls: []openai.ToolCall{{
			ID: "c1", Type: openai.ToolTypeFunction,
			Function: openai.FunctionCall{Name: "edit_file", Arguments: `{"path":"internal/timeutil/duration.go"}`},
		}}},
		toolResult("c1", "Edited internal/timeutil/duration.go"),
		bashCall("c2", "go test ./internal/timeutil/..."),
		toolResult("c2", "--- FAIL: TestParseDuration/blank (0.00s)\n    duration_test.go:31: want ErrEmpty\nFAIL\nexit status 1"),
		{Role: compact.RoleAssistant, Content: "Blank input now fails the wrong way; checking it after trimming next."},
	}
	s := compact.NewExtractiveSummarizer(nil)
	summary, err := s.Summarize(context.Background(), compact.SummaryRequest{Turns: turns})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(summary)
	// Output:
	// ## Facts
	// - Unresolved errors from `go test ./internal/timeutil/...`:
	//   - --- FAIL: TestParseDuration/blank (0.00s)
	//   - duration_test.go:31: want ErrEmpty
	// - Modified: internal/timeutil/duration.go
	// - Last command: go test ./internal/timeutil/...
	// - Referenced: ./internal/timeutil/...; duration_test.go
	//
	// ## Task
	// > ParseDuration rejects "1h 30m"; make it accept spaces.
	//
	// ## Completed actions
	// - go test ./internal/timeutil/... → exit 1
	//
	// ## Current state
	// > Blank input now fails the wrong way; checking it after trimming next.
	//
	// ## Decisions
	// - The root cause is that time.ParseDuration stops at the space.
	// - I'll strip spaces first.
}

// A later compaction passes the previous summary back: its lists are merged
// with the new turns' (older entries first, repeats once), and its task
// joins the goal. The focus outranks recency.
func ExampleNewExtractiveSummarizer_update() {
	s := compact.NewExtractiveSummarizer(nil)
	ctx := context.Background()
	first, _ := s.Summarize(ctx, compact.SummaryRequest{Turns: []compact.Message{
		{Role: compact.RoleUser, Content: "Build the parser."},
		bashCall("c1", "make parser"), toolResult("c1", "ok"),
	}})
	second, _ := s.Summarize(ctx, compact.SummaryRequest{
		PreviousSummary: first,
		Focus:           "lexer",
		Turns: []compact.Message{
			{Role: compact.RoleUser, Content: "Now the lexer."},
			bashCall("c2", "make lexer"), toolResult("c2", "Error: lexer.go: unexpected EOF\nexit status 2"),
			bashCall("c3", "make docs"), toolResult("c3", "ok"),
		},
	})
	fmt.Println(second)
	// Output:
	// Focus: lexer
	//
	// ## Facts
	// - Unresolved errors from `make lexer`:
	//   - Error: lexer.go: unexpected EOF
	// - Last command: make docs
	//
	// ## Task
	// > Now the lexer.
	//
	// ## Goal
	// - Build the parser.
	//
	// ## Completed actions
	// - make parser
	// - make lexer → exit 2
	// - make docs
}
