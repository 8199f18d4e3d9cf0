// Command agentloop is an agent loop on the official OpenAI Go SDK that
// compacts its history before every request. The model is a local server
// speaking Chat Completions that the program starts itself, so it runs
// offline:
//
//	go run ./examples/agentloop
//
// The same code runs against the real API: drop the base URL and the
// scripted server, and give the client a key.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"strings"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/adapt/openaigo"
)

func main() {
	if err := run(context.Background(), os.Stdout); err != nil {
		log.Fatal(err)
	}
}

// maxTurns bounds the loop, as a real agent bounds its steps.
const maxTurns = 20

// run drives the agent until the model stops calling tools.
func run(ctx context.Context, w io.Writer) error {
	srv := newModelServer()
	defer srv.Close()
	client := openai.NewClient(option.WithAPIKey("local"), option.WithBaseURL(srv.URL+"/v1/"), option.WithMaxRetries(0))

	// One engine per conversation. A 6,000-token window makes this short
	// run compact a few times; use the model's real window.
	engine := compact.New(compact.WithContextWindow(6000), compact.WithModel("gpt-4o"))

	msgs := []openai.ChatCompletionMessageParamUnion{
		openai.SystemMessage("You are a coding agent. Read the files you need with read_file, search with grep, then answer."),
		openai.UserMessage("Find where the retry budget is configured in this repository and tell me its default."),
	}
	for turn := 1; turn <= maxTurns; turn++ {
		// Before every request: compact when the history nears the window.
		// On error the history is untouched and the agent carries on; a
		// pause, a backoff or nothing to gain is a normal state, not a failure.
		if should, err := openaigo.ShouldCompress(engine, msgs); err == nil && should {
			out, res, err := openaigo.Compress(ctx, engine, msgs)
			switch {
			case errors.Is(err, compact.ErrPaused), errors.Is(err, compact.ErrBackoff),
				errors.Is(err, compact.ErrNoSavings), errors.Is(err, compact.ErrNothingToCompress):
				_, _ = fmt.Fprintf(w, "turn %d: not compacting now, a normal state: %v\n", turn, err)
			case err != nil:
				_, _ = fmt.Fprintf(w, "turn %d: compaction failed, sending the history as is: %v\n", turn, err)
			default:
				how := fmt.Sprintf("pruned %d old tool results", len(res.Pruned))
				if res.SummaryIndex >= 0 {
					how = "summarised the older turns"
				}
				_, _ = fmt.Fprintf(w, "turn %d: compacted %d messages (%d tokens) into %d (%d tokens): %s\n",
					turn, len(msgs), res.TokensBefore, len(out), res.TokensAfter, how)
				msgs = out
			}
		}
		resp, err := client.Chat.Completions.New(ctx, openai.ChatCompletionNewParams{
			Model: modelName, Messages: msgs, Tools: tools,
		})
		if err != nil {
			return fmt.Errorf("turn %d: %w", turn, err)
		}
		// The provider's usage keeps the engine's view of the window exact.
		engine.UpdateUsage(openaigo.UsageFrom(resp.Usage))
		reply := resp.Choices[0].Message
		msgs = append(msgs, reply.ToParam())
		if len(reply.ToolCalls) == 0 {
			_, _ = fmt.Fprintf(w, "turn %d: answer: %s\n", turn, reply.Content)
			_, _ = fmt.Fprintf(w, "%d compactions in %d turns\n", engine.Status().Compressions, turn)
			return nil
		}
		for _, call := range reply.ToolCalls {
			msgs = append(msgs, openai.ToolMessage(runTool(call), call.ID))
		}
	}
	return fmt.Errorf("no answer after %d turns", maxTurns)
}

var tools = []openai.ChatCompletionToolUnionParam{
	openai.ChatCompletionFunctionTool(openai.FunctionDefinitionParam{
		Name:        "read_file",
		Description: openai.String("Read a file of the repository."),
		Parameters: openai.FunctionParameters{
			"type":       "object",
			"properties": map[string]any{"path": map[string]any{"type": "string"}},
			"required":   []string{"path"},
		},
	}),
	openai.ChatCompletionCustomTool(openai.ChatCompletionCustomToolCustomParam{
		Name:        "grep",
		Description: openai.String("Search the repository for a pattern; the input is the pattern."),
	}),
}

// runTool answers a read_file call with a made-up Go file of a realistic
// size (about 500 tokens), and a grep call with no matches.
func runTool(call openai.ChatCompletionMessageToolCallUnion) string {
	if call.Type == "custom" {
		return "grep: no matches for " + call.Custom.Input
	}
	var args struct{ Path string }
	if err := json.Unmarshal([]byte(call.Function.Arguments), &args); err != nil {
		return "error: " + err.Error()
	}
	var b strings.Builder
	fmt.Fprintf(&b, "// %s\npackage retry\n\n", args.Path)
	for i := 0; i < 20; i++ {
		fmt.Fprintf(&b, "// helper%d waits between attempts and reports whether to go on.\nfunc helper%d(attempt int) bool { return attempt < %d }\n", i, i, i+2)
	}
	if strings.HasSuffix(args.Path, "part6.go") {
		b.WriteString("\n// DefaultBudget is how many attempts a call gets.\nconst DefaultBudget = 3\n")
	}
	return b.String()
}
