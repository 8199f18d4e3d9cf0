// Command agentloop is an eino ChatModelAgent whose history compact keeps
// inside the model's window: the adapter's Middleware sits in the agent's
// Handlers, where eino's summarization or reduction middleware would. The
// model is a local server speaking the Chat Completions API that the
// program starts itself, so it runs offline:
//
//	go run ./examples/agentloop
//
// The same agent runs against a real model: swap the chat model for any
// eino model component (eino-ext's OpenAI, Claude, Gemini, Ark...).
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"log/slog"
	"os"
	"strings"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/schema"

	"github.com/contextkit/compact"
	adapt "github.com/contextkit/compact/adapt/eino"
)

func main() {
	if err := run(context.Background(), os.Stdout); err != nil {
		log.Fatal(err)
	}
}

// maxIterations bounds the agent's model calls, as a real agent bounds its
// steps.
const maxIterations = 40

// run drives the agent until it answers, and prints each compaction.
func run(ctx context.Context, w io.Writer) error {
	srv := newModelServer()
	defer srv.Close()

	// One engine per conversation. A 6,000-token window makes this short
	// run compact a few times; use the model's real window.
	engine := compact.New(compact.WithContextWindow(6000))
	logger := slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{ReplaceAttr: dropTime}))

	agent, err := adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{
		Name:          "coder",
		Description:   "reads a repository to answer questions about it",
		Instruction:   "You are a coding agent. Read the files you need with read_file, then answer.",
		Model:         newChatModel(srv.URL),
		ToolsConfig:   adk.ToolsConfig{ToolsNodeConfig: compose.ToolsNodeConfig{Tools: []tool.BaseTool{readFile{}}}},
		MaxIterations: maxIterations,
		Handlers:      []adk.ChatModelAgentMiddleware{adapt.NewMiddleware(engine, adapt.WithLogger(logger))},
	})
	if err != nil {
		return err
	}
	runner := adk.NewRunner(ctx, adk.RunnerConfig{Agent: agent})
	events := runner.Query(ctx, "Find where the retry budget is configured in this repository and tell me its default.")
	answer := ""
	for {
		ev, ok := events.Next()
		if !ok {
			break
		}
		if ev.Err != nil {
			return ev.Err
		}
		if out := ev.Output; out != nil && out.MessageOutput != nil && out.MessageOutput.Message != nil {
			if m := out.MessageOutput.Message; m.Role == schema.Assistant && len(m.ToolCalls) == 0 {
				answer = m.Content
			}
		}
	}
	if answer == "" {
		return fmt.Errorf("the agent stopped without an answer")
	}
	fmt.Fprintf(w, "answer: %s\n", answer)
	fmt.Fprintf(w, "%d compactions\n", engine.Status().Compressions)
	return nil
}

// dropTime leaves the time out of log lines, so the output reads the same
// on every run.
func dropTime(_ []string, a slog.Attr) slog.Attr {
	if a.Key == slog.TimeKey {
		return slog.Attr{}
	}
	return a
}

// readFile is the agent's one tool: it answers with a made-up Go file of a
// realistic size (about 500 tokens), or an error for a file that is not
// there.
type readFile struct{}

func (readFile) Info(context.Context) (*schema.ToolInfo, error) {
	return &schema.ToolInfo{Name: "read_file", Desc: "Read a file of the repository.",
		ParamsOneOf: schema.NewParamsOneOfByParams(map[string]*schema.ParameterInfo{
			"path": {Type: schema.String, Desc: "the file's path", Required: true}})}, nil
}

func (readFile) InvokableRun(_ context.Context, args string, _ ...tool.Option) (string, error) {
	var in struct{ Path string }
	if err := json.Unmarshal([]byte(args), &in); err != nil {
		return "error: " + err.Error(), nil
	}
	if strings.HasSuffix(in.Path, "_test.go") {
		return "open " + in.Path + ": no such file or directory", nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "// %s\npackage retry\n\n", in.Path)
	for i := 0; i < 20; i++ {
		fmt.Fprintf(&b, "// helper%d waits between attempts and reports whether to go on.\nfunc helper%d(attempt int) bool { return attempt < %d }\n", i, i, i+2)
	}
	if strings.HasSuffix(in.Path, "part6.go") {
		b.WriteString("\n// DefaultBudget is how many attempts a call gets.\nconst DefaultBudget = 3\n")
	}
	return b.String(), nil
}
