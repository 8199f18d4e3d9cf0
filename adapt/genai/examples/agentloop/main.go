// Command agentloop is an agent loop on Google's Gen AI Go SDK that
// compacts its history before every request. The model is a local server
// speaking the Gemini API that the program starts itself, so it runs
// offline:
//
//	go run ./examples/agentloop
//
// The same code runs against the real API: drop the base URL and the
// scripted server, and give the client a key.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"strings"

	"google.golang.org/genai"

	"github.com/contextkit/compact"
	adapt "github.com/contextkit/compact/adapt/genai"
)

func main() {
	if err := run(context.Background(), os.Stdout); err != nil {
		log.Fatal(err)
	}
}

// maxTurns bounds the loop, as a real agent bounds its steps.
const maxTurns = 20

// run drives the agent until the model stops calling functions.
func run(ctx context.Context, w io.Writer) error {
	srv := newModelServer()
	defer srv.Close()
	client, err := genai.NewClient(ctx, &genai.ClientConfig{APIKey: "local", Backend: genai.BackendGeminiAPI,
		HTTPOptions: genai.HTTPOptions{BaseURL: srv.URL}})
	if err != nil {
		return err
	}

	// One engine per conversation. A 6,000-token window makes this short
	// run compact a few times; use the model's real window.
	engine := compact.New(compact.WithContextWindow(6000))

	h := adapt.History{
		System: genai.NewContentFromText("You are a coding agent. Read the files you need with read_file, then answer.", genai.RoleUser),
		Contents: []*genai.Content{genai.NewContentFromText(
			"Find where the retry budget is configured in this repository and tell me its default.", genai.RoleUser)},
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
				how := fmt.Sprintf("pruned %d old function responses", len(res.Pruned))
				if res.SummaryIndex >= 0 {
					how = "summarised the older turns"
				}
				_, _ = fmt.Fprintf(w, "turn %d: compacted %d contents (%d tokens) into %d (%d tokens): %s\n",
					turn, len(h.Contents), res.TokensBefore, len(out.Contents), res.TokensAfter, how)
				h = out
			}
		}
		resp, err := client.Models.GenerateContent(ctx, modelName, h.Contents, &genai.GenerateContentConfig{
			SystemInstruction: h.System,
			Tools:             []*genai.Tool{{FunctionDeclarations: []*genai.FunctionDeclaration{&readFile}}},
		})
		if err != nil {
			return fmt.Errorf("turn %d: %w", turn, err)
		}
		// The provider's usage keeps the engine's view of the window exact.
		engine.UpdateUsage(adapt.UsageFrom(resp.UsageMetadata))
		reply := resp.Candidates[0].Content
		h.Contents = append(h.Contents, reply)
		calls := resp.FunctionCalls()
		if len(calls) == 0 {
			_, _ = fmt.Fprintf(w, "turn %d: answer: %s\n", turn, resp.Text())
			_, _ = fmt.Fprintf(w, "%d compactions in %d turns\n", engine.Status().Compressions, turn)
			return nil
		}
		// Every call of the turn is answered in one user content, by name
		// and by id when the call has one.
		var results []*genai.Part
		for _, c := range calls {
			part := genai.NewPartFromFunctionResponse(c.Name, runTool(c.Args))
			part.FunctionResponse.ID = c.ID
			results = append(results, part)
		}
		h.Contents = append(h.Contents, genai.NewContentFromParts(results, genai.RoleUser))
	}
	return fmt.Errorf("no answer after %d turns", maxTurns)
}

var readFile = genai.FunctionDeclaration{
	Name:        "read_file",
	Description: "Read a file of the repository.",
	Parameters: &genai.Schema{Type: genai.TypeObject, Required: []string{"path"},
		Properties: map[string]*genai.Schema{"path": {Type: genai.TypeString}}},
}

// runTool answers a read_file call with a made-up Go file of a realistic
// size (about 500 tokens), or an error for a file that is not there.
func runTool(args map[string]any) map[string]any {
	path, _ := args["path"].(string)
	if strings.HasSuffix(path, "_test.go") {
		return map[string]any{"error": "open " + path + ": no such file or directory"}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "// %s\npackage retry\n\n", path)
	for i := 0; i < 20; i++ {
		fmt.Fprintf(&b, "// helper%d waits between attempts and reports whether to go on.\nfunc helper%d(attempt int) bool { return attempt < %d }\n", i, i, i+2)
	}
	if strings.HasSuffix(path, "part6.go") {
		b.WriteString("\n// DefaultBudget is how many attempts a call gets.\nconst DefaultBudget = 3\n")
	}
	return map[string]any{"output": b.String()}
}
