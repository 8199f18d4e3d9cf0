package compact_test

import (
	"fmt"

	"github.com/contextkit/compact"
	openai "github.com/sashabaranov/go-openai"
)

func ExampleRenderTurns() {
	turns := []compact.Message{
		{Role: compact.RoleUser, Content: "Why does the build fail?"},
		{Role: compact.RoleAssistant, Content: "Let me run it.", ToolCalls: []openai.ToolCall{{
			ID: "call_1", Type: openai.ToolTypeFunction,
			Function: openai.FunctionCall{Name: "bash", Arguments: `{"command":"go build ./..."}`},
		}}},
		{Role: compact.RoleTool, ToolCallID: "call_1", Content: "main.go:12: undefined: frobnicate"},
		{Role: compact.RoleAssistant, Content: "frobnicate is not defined in main.go."},
	}
	fmt.Println(compact.RenderTurns(turns, compact.RenderOptions{}))
	// Output:
	// [user]
	// Why does the build fail?
	//
	// [assistant]
	// Let me run it.
	// [tool call call_1] bash({"command":"go build ./..."})
	//
	// [tool result call_1 (bash)]
	// main.go:12: undefined: frobnicate
	//
	// [assistant]
	// frobnicate is not defined in main.go.
}
