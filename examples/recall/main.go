// Command recall is an agent loop whose history is compacted, and whose
// model then reads back, verbatim, an error the summary left out. The
// session offers the model the recall tools (context_search,
// context_expand, context_describe) over its archive, beside the agent's
// own tool. The model is a local OpenAI-compatible server the program
// starts itself, so it runs offline:
//
//	go run ./examples/recall
//
// The same code runs against any OpenAI-compatible endpoint: point the
// client and the summarizer at its base URL instead.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"strings"

	openai "github.com/sashabaranov/go-openai"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/openaicompat"
	"github.com/contextkit/compact/session"
)

func main() {
	if err := run(context.Background(), os.Stdout); err != nil {
		log.Fatal(err)
	}
}

// maxTurns bounds the loop, as a real agent bounds its steps.
const maxTurns = 40

// run drives the agent until the model answers without calling a tool.
func run(ctx context.Context, w io.Writer) error {
	srv := newModelServer()
	defer srv.Close()
	baseURL := srv.URL + "/v1"

	cfg := openai.DefaultConfig("")
	cfg.BaseURL = baseURL
	client := openai.NewClientWithConfig(cfg)
	summarizer, err := openaicompat.New(modelName, openaicompat.WithBaseURL(baseURL))
	if err != nil {
		return err
	}
	// A 6,000-token window makes this short run compact; use the model's
	// real window.
	engine := compact.New(compact.WithContextWindow(6000), compact.WithModel("gpt-4o"), compact.WithSummarizer(summarizer))
	// Recall on: the session archives every message (in memory here; give
	// it a durable store with session.WithStore) and offers the tools.
	s, err := session.Open(ctx, "agent-1", engine, session.WithRecall(true))
	if err != nil {
		return err
	}
	if err := s.Append(ctx,
		compact.Message{Role: compact.RoleSystem, Content: "You are a coding agent. Run the tests with run_tests, one package at a time."},
		compact.Message{Role: compact.RoleUser, Content: "Run every package's tests, then tell me exactly how the first failure failed."},
	); err != nil {
		return err
	}

	// The agent's own tool, then the session's: the host routes each call
	// by name.
	defs := []openai.Tool{runTestsTool}
	recall := map[string]compact.Tool{}
	for _, t := range s.Tools() {
		defs = append(defs, t.Definition)
		recall[t.Definition.Function.Name] = t
	}

	for turn := 1; turn <= maxTurns; turn++ {
		if s.ShouldCompress() {
			res, err := s.Compress(ctx)
			switch {
			case errors.Is(err, compact.ErrPaused), errors.Is(err, compact.ErrBackoff), errors.Is(err, session.ErrBusy),
				errors.Is(err, compact.ErrNoSavings), errors.Is(err, compact.ErrNothingToCompress):
				_, _ = fmt.Fprintf(w, "turn %d: not compacting now, a normal state: %v\n", turn, err)
			case err != nil:
				_, _ = fmt.Fprintf(w, "turn %d: compaction failed, sending the history as is: %v\n", turn, err)
			default:
				_, _ = fmt.Fprintf(w, "turn %d: compacted %d messages into %d with %s\n", turn, res.MessagesBefore, res.MessagesAfter, res.Summarizer)
				// The summary's message may be the user's request too, the
				// summary merged in front of it: the recall line ends the
				// summary, not the message.
				sum := compact.Text(res.Messages[res.SummaryIndex])
				line, _, _ := strings.Cut(sum[max(strings.Index(sum, "[Recall: "), 0):], "\n")
				_, _ = fmt.Fprintf(w, "  the summary's recall line: %s\n", line)
				_, _ = fmt.Fprintf(w, "  the summary quotes the panic: %v\n", strings.Contains(sum, "nil map"))
			}
		}
		resp, err := client.CreateChatCompletion(ctx, openai.ChatCompletionRequest{
			Model: modelName, Messages: s.Messages(), Tools: defs,
		})
		if err != nil {
			return fmt.Errorf("turn %d: %w", turn, err)
		}
		s.UpdateUsage(compact.UsageFrom(resp.Usage))
		reply := resp.Choices[0].Message
		if err := s.Append(ctx, reply); err != nil {
			return err
		}
		if len(reply.ToolCalls) == 0 {
			_, _ = fmt.Fprintf(w, "turn %d: answer:\n%s\n", turn, reply.Content)
			return nil
		}
		for _, call := range reply.ToolCalls {
			var out string
			if t, ok := recall[call.Function.Name]; ok {
				// A recall tool always answers with JSON the model can
				// read; an error is the store's, for the host's log.
				res, err := t.Handle(ctx, call.Function.Arguments)
				if err != nil {
					log.Printf("%s: %v", call.Function.Name, err)
				}
				out = string(res)
				_, _ = fmt.Fprintf(w, "turn %d: the model called %s(%s)\n", turn, call.Function.Name, call.Function.Arguments)
			} else {
				out = runTests(call)
			}
			if err := s.Append(ctx, compact.Message{Role: compact.RoleTool, ToolCallID: call.ID, Content: out}); err != nil {
				return err
			}
		}
	}
	return fmt.Errorf("no answer after %d turns", maxTurns)
}

var runTestsTool = openai.Tool{Type: openai.ToolTypeFunction, Function: &openai.FunctionDefinition{
	Name:        "run_tests",
	Description: "Run the tests of one package.",
	Parameters: map[string]any{
		"type":       "object",
		"properties": map[string]any{"package": map[string]any{"type": "string"}},
		"required":   []string{"package"},
	},
}}
