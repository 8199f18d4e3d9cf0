// Command agentloop is an agent loop on the official Anthropic Go SDK v2 that
// compacts its history before every request. The model is a local server
// speaking the Messages API that the program starts itself, so it runs
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

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"

	"github.com/contextkit/compact"
	adapt "github.com/contextkit/compact/adapt/anthropic"
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
	client := anthropic.NewClient(option.WithoutEnvironmentDefaults(), option.WithAPIKey("local"),
		option.WithBaseURL(srv.URL), option.WithMaxRetries(0))

	// One engine per conversation. A 6,000-token window makes this short
	// run compact a few times; use the model's real window.
	engine := compact.New(compact.WithContextWindow(6000))

	h := adapt.History{
		System: []anthropic.TextBlockParam{{
			Text:         "You are a coding agent. Read the files you need with read_file, then answer.",
			CacheControl: anthropic.CacheControlEphemeralParam{TTL: anthropic.CacheControlEphemeralTTLTTL1h},
		}},
		Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock(
			"Find where the retry budget is configured in this repository and tell me its default."))},
	}
	for turn := 1; turn <= maxTurns; turn++ {
		// Before every request: compact when the history nears the window.
		// On error the history is untouched and the agent carries on; a
		// pause, a backoff or nothing to gain is a normal state, not a failure.
		if should, err := adapt.ShouldCompress(engine, h); err == nil && should {
			out, res, err := adapt.Compress(ctx, engine, h)
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
				_, _ = fmt.Fprintf(w, "turn %d: compacted %d turns (%d tokens) into %d (%d tokens): %s\n",
					turn, len(h.Messages), res.TokensBefore, len(out.Messages), res.TokensAfter, how)
				h = out
			}
		}
		resp, err := client.Messages.New(ctx, anthropic.MessageNewParams{
			Model: modelName, MaxTokens: 1024, System: h.System, Messages: h.Messages,
			Tools: []anthropic.ToolUnionParam{{OfTool: &readFileTool}},
		})
		if err != nil {
			return fmt.Errorf("turn %d: %w", turn, err)
		}
		// The provider's usage keeps the engine's view of the window exact.
		engine.UpdateUsage(adapt.UsageFrom(resp.Usage))
		h.Messages = append(h.Messages, resp.ToParam())
		if resp.StopReason != anthropic.StopReasonToolUse {
			_, _ = fmt.Fprintf(w, "turn %d: answer: %s\n", turn, text(resp))
			_, _ = fmt.Fprintf(w, "%d compactions in %d turns\n", engine.Status().Compressions, turn)
			return nil
		}
		// Every call of the turn is answered in one user turn.
		var results []anthropic.ContentBlockParamUnion
		for _, b := range resp.Content {
			if b.Type == "tool_use" {
				out, isError := runTool(b.Input)
				results = append(results, anthropic.NewToolResultBlock(b.ID, out, isError))
			}
		}
		h.Messages = append(h.Messages, anthropic.NewUserMessage(results...))
	}
	return fmt.Errorf("no answer after %d turns", maxTurns)
}

// text joins the text blocks of a response.
func text(m *anthropic.Message) string {
	var parts []string
	for _, b := range m.Content {
		if b.Type == "text" {
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(parts, " ")
}

var readFileTool = anthropic.ToolParam{
	Name:        "read_file",
	Description: anthropic.String("Read a file of the repository."),
	InputSchema: anthropic.ToolInputSchemaParam{
		Properties: map[string]any{"path": map[string]any{"type": "string"}},
		Required:   []string{"path"},
	},
}

// runTool answers a read_file call with a made-up Go file of a realistic
// size (about 500 tokens), or an error for a file that is not there.
func runTool(input json.RawMessage) (string, bool) {
	var args struct{ Path string }
	if err := json.Unmarshal(input, &args); err != nil {
		return "error: " + err.Error(), true
	}
	if strings.HasSuffix(args.Path, "_test.go") {
		return "open " + args.Path + ": no such file or directory", true
	}
	var b strings.Builder
	fmt.Fprintf(&b, "// %s\npackage retry\n\n", args.Path)
	for i := 0; i < 20; i++ {
		fmt.Fprintf(&b, "// helper%d waits between attempts and reports whether to go on.\nfunc helper%d(attempt int) bool { return attempt < %d }\n", i, i, i+2)
	}
	if strings.HasSuffix(args.Path, "part6.go") {
		b.WriteString("\n// DefaultBudget is how many attempts a call gets.\nconst DefaultBudget = 3\n")
	}
	return b.String(), false
}
