// Command nativeloop is an agent loop on the official Anthropic Go SDK v2
// that lets the provider manage its context (Anthropic's compaction and
// tool-result clearing, set by a NativeEngine), reads back what the
// provider did, and compacts with compact's own engine when the provider's
// compaction fails. The model is a local server speaking the Messages API
// that the program starts itself, so it runs offline:
//
//	go run ./examples/nativeloop
//
// The same code runs against the real API: drop the base URL and the
// scripted server, and give the client a key. The server fails one
// compaction on purpose, as the API does when compaction is unavailable.
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

// maxRequests bounds the loop, as a real agent bounds its steps.
const maxRequests = 80

// run drives the agent until the model stops calling tools.
func run(ctx context.Context, w io.Writer) error {
	srv := newModelServer()
	defer srv.Close()
	client := anthropic.NewClient(option.WithoutEnvironmentDefaults(), option.WithAPIKey("local"),
		option.WithBaseURL(srv.URL), option.WithMaxRetries(0))

	// One engine per conversation. The fallback's threshold is where the
	// provider compacts: an 80,000-token window puts it at 53,856 tokens,
	// over the API's lowest trigger (50,000). Use the model's real window.
	// Clearing old tool results (on by default) would keep this loop of
	// large reads under the trigger for long; it is off here to show the
	// provider's compaction.
	engine := adapt.NewNativeEngine(compact.New(compact.WithContextWindow(80_000)),
		adapt.WithToolClearing(false),
		adapt.WithInstructions("Summarise the task, the files read and what they held. Call no tools."))

	h := adapt.History{
		System: []anthropic.TextBlockParam{{
			Text:         "You are a coding agent. Read the files you need with read_file, then answer.",
			CacheControl: anthropic.CacheControlEphemeralParam{TTL: anthropic.CacheControlEphemeralTTLTTL1h},
		}},
		Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock(
			"Find where the retry budget is configured in this repository and tell me its default."))},
	}
	provider, own := 0, 0
	for req := 1; req <= maxRequests; req++ {
		// Before every request: compact's engine compacts only when the
		// provider cannot (it failed lately, or the request would not fit).
		out, res, err := adapt.Compress(ctx, engine, h)
		switch {
		case err != nil:
			fmt.Fprintf(w, "request %d: compaction failed, sending the history as is: %v\n", req, err)
		case res.Skipped == "":
			own++
			fmt.Fprintf(w, "request %d: compact's engine compacted %d turns into %d (%d -> %d tokens); fallback: %v\n",
				req, len(h.Messages), len(out.Messages), res.TokensBefore, res.TokensAfter, res.Fallback)
			h = out
		}
		resp, err := client.Messages.New(ctx, anthropic.MessageNewParams{
			Model: modelName, MaxTokens: 1024, System: h.System, Messages: h.Messages,
			Tools: []anthropic.ToolUnionParam{{OfTool: &readFileTool}},
		}, engine.RequestOptions()...)
		if err != nil {
			if engine.RecordFailure(h, err) {
				fmt.Fprintf(w, "request %d: native compaction failed (%s); compact's engine takes over\n", req, errorCode(err))
				continue // send again: compact's engine compacts first
			}
			return fmt.Errorf("request %d: %w", req, err)
		}
		// What the provider did, and its usage (Record calls UpdateUsage).
		if res, err := engine.Record(h, resp); err != nil {
			return fmt.Errorf("request %d: %w", req, err)
		} else if res != nil && res.SummaryIndex >= 0 {
			provider++
			fmt.Fprintf(w, "request %d: the provider compacted %d messages into its summary (%d -> %d tokens)\n",
				req, res.SummarizedTo-res.SummarizedFrom+1, res.TokensBefore, res.TokensAfter)
		} else if res != nil {
			fmt.Fprintf(w, "request %d: the provider cleared %d old tool results\n", req, len(res.Pruned))
		}
		// The whole response goes into the history, compaction block and all.
		h.Messages = append(h.Messages, resp.ToParam())
		if resp.StopReason != anthropic.StopReasonToolUse {
			fmt.Fprintf(w, "request %d: answer: %s\n", req, text(resp))
			fmt.Fprintf(w, "compactions: %d by the provider, %d by compact's engine\n", provider, own)
			return nil
		}
		var results []anthropic.ContentBlockParamUnion
		for _, b := range resp.Content {
			if b.Type == "tool_use" {
				out, isError := runTool(b.Input)
				results = append(results, anthropic.NewToolResultBlock(b.ID, out, isError))
			}
		}
		h.Messages = append(h.Messages, anthropic.NewUserMessage(results...))
	}
	return fmt.Errorf("no answer after %d requests", maxRequests)
}

// errorCode is the API's error_code of err, or its status.
func errorCode(err error) string {
	var apiErr *anthropic.Error
	if !errors.As(err, &apiErr) {
		return err.Error()
	}
	if code := apiErr.ErrorCode(); code != "" {
		return string(code)
	}
	return fmt.Sprint(apiErr.StatusCode)
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

// runTool answers a read_file call with a made-up Go file of about 2,500
// tokens, as large source files are.
func runTool(input json.RawMessage) (string, bool) {
	var args struct{ Path string }
	if err := json.Unmarshal(input, &args); err != nil {
		return "error: " + err.Error(), true
	}
	var b strings.Builder
	fmt.Fprintf(&b, "// %s\npackage retry\n\n", args.Path)
	for i := 0; i < 100; i++ {
		fmt.Fprintf(&b, "// helper%d waits between attempts and reports whether to go on.\nfunc helper%d(attempt int) bool { return attempt < %d }\n", i, i, i+2)
	}
	if strings.HasSuffix(args.Path, "part9.go") {
		b.WriteString("\n// DefaultBudget is how many attempts a call gets.\nconst DefaultBudget = 3\n")
	}
	return b.String(), false
}
