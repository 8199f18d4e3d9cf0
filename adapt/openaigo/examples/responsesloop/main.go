// Command responsesloop is an agent loop on the Responses API of the
// official OpenAI Go SDK that keeps its own history (store is false, as
// under zero data retention) and compacts it before every request with
// OpenAI's own compaction, falling back to compact's when that fails. The
// model is a local server speaking the Responses API that the program
// starts itself, so it runs offline:
//
//	go run ./examples/responsesloop
//
// The same code runs against the real API: drop the base URL and the
// scripted server, and give the client a key.
//
// The host's other choice is server-side compaction: set ContextManagement
// on the request (see openaigo.NativeEngine) and the provider compacts
// while it answers; the compaction item arrives in the output, and
// openaigo reads it as the history's summary.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"os"
	"strings"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/adapt/openaigo"
)

func main() {
	if err := run(context.Background(), os.Stdout); err != nil {
		log.Fatal(err)
	}
}

// maxTurns bounds the loop, as a real agent bounds its steps.
const maxTurns = 30

// nativeTimeout bounds a compaction request: past it the fallback
// compacts, so a slow provider never holds the agent up for long.
const nativeTimeout = 30 * time.Second

// run drives the agent until the model stops calling tools.
func run(ctx context.Context, w io.Writer) error {
	srv := newModelServer()
	defer srv.Close()
	client := openai.NewClient(option.WithAPIKey("local"), option.WithBaseURL(srv.URL+"/v1/"), option.WithMaxRetries(0))

	// One engine per conversation. The fallback sets the threshold: a
	// 6,000-token window makes this short run compact a few times; use the
	// model's real window.
	engine := openaigo.NewNativeEngine(client.Responses, modelName,
		compact.New(compact.WithContextWindow(6000), compact.WithModel("gpt-4o")),
		openaigo.WithTimeout(nativeTimeout))

	input := []responses.ResponseInputItemUnionParam{
		responses.ResponseInputItemParamOfMessage("You are a coding agent. Read the files you need with read_file, search with grep, then answer.",
			responses.EasyInputMessageRoleSystem),
		responses.ResponseInputItemParamOfMessage("Find where the retry budget is configured in this repository and tell me its default.",
			responses.EasyInputMessageRoleUser),
	}
	for turn := 1; turn <= maxTurns; turn++ {
		// Before every request: compact when the history nears the window.
		// On error the history is untouched and the agent carries on.
		if should, err := openaigo.ShouldCompressItems(engine, input); err == nil && should {
			out, res, err := openaigo.CompressItems(ctx, engine, input)
			if err != nil {
				fmt.Fprintf(w, "turn %d: compaction failed, sending the history as is: %v\n", turn, err)
			} else {
				fmt.Fprintf(w, "turn %d: compacted %d items (%d tokens) into %d (%d tokens) with %s\n",
					turn, len(input), res.TokensBefore, len(out), res.TokensAfter, res.Summarizer)
				if res.Fallback {
					fmt.Fprintf(w, "turn %d: fallback: %s\n", turn, res.FallbackReason)
				}
				input = out
			}
		}
		resp, err := client.Responses.New(ctx, responses.ResponseNewParams{
			Model:   modelName,
			Input:   responses.ResponseNewParamsInputUnion{OfInputItemList: input},
			Tools:   tools,
			Store:   openai.Bool(false),
			Include: []responses.ResponseIncludable{responses.ResponseIncludableReasoningEncryptedContent},
		})
		if err != nil {
			return fmt.Errorf("turn %d: %w", turn, err)
		}
		// The provider's usage keeps the engine's view of the window exact.
		engine.UpdateUsage(openaigo.UsageFromResponse(resp.Usage))
		input = append(input, openaigo.ItemsFromOutput(resp.Output)...)
		calls := 0
		for _, item := range resp.Output {
			switch item.Type {
			case "function_call":
				calls++
				out := responses.ResponseInputItemParamOfFunctionCallOutput(readFile(item.Arguments.OfString))
				out.OfFunctionCallOutput.CallID = openai.String(item.CallID)
				input = append(input, out)
			case "custom_tool_call":
				calls++
				input = append(input, responses.ResponseInputItemParamOfCustomToolCallOutput(item.CallID, "grep: no matches for "+item.Input))
			}
		}
		if calls == 0 {
			fmt.Fprintf(w, "turn %d: answer: %s\n", turn, resp.OutputText())
			fmt.Fprintf(w, "%d compactions in %d turns\n", engine.Status().Compressions, turn)
			return nil
		}
	}
	return fmt.Errorf("no answer after %d turns", maxTurns)
}

var tools = []responses.ToolUnionParam{
	responses.ToolParamOfFunction("read_file", map[string]any{
		"type":       "object",
		"properties": map[string]any{"path": map[string]any{"type": "string"}},
		"required":   []string{"path"},
	}, true),
	responses.ToolParamOfCustom("grep"),
}

// readFile answers a read_file call with a made-up Go file of a realistic
// size (about 500 tokens).
func readFile(arguments string) string {
	var args struct{ Path string }
	if err := json.Unmarshal([]byte(arguments), &args); err != nil {
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
