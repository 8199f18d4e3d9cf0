// Command agentloop is an agent loop that compacts its history before every
// model request. The model is a local OpenAI-compatible server the program
// starts itself, so it runs offline:
//
//	go run ./examples/agentloop
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

	openai "github.com/sashabaranov/go-openai"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/openaicompat"
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
	baseURL := srv.URL + "/v1"

	// The agent's client and the summarizer may share an endpoint or use
	// different ones (a cheaper model for summaries).
	cfg := openai.DefaultConfig("")
	cfg.BaseURL = baseURL
	client := openai.NewClientWithConfig(cfg)
	summarizer, err := openaicompat.New(modelName, openaicompat.WithBaseURL(baseURL))
	if err != nil {
		return err
	}
	// One Compressor per conversation. A 6,000-token window makes this
	// short run compact a few times; use the model's real window.
	c := compact.New(compact.WithContextWindow(6000), compact.WithModel("gpt-4o"), compact.WithSummarizer(summarizer))

	msgs := []compact.Message{
		{Role: compact.RoleSystem, Content: "You are a coding agent. Read the files you need with read_file, then answer."},
		{Role: compact.RoleUser, Content: "Find where the retry budget is configured in this repository and tell me its default."},
	}
	for turn := 1; turn <= maxTurns; turn++ {
		// Before every request: compact when the history nears the window.
		// On error the history is untouched and the agent carries on; a
		// pause, a backoff or nothing to gain is a normal state, not a failure.
		if c.ShouldCompressMessages(msgs) {
			res, err := c.Compress(ctx, msgs)
			switch {
			case errors.Is(err, compact.ErrPaused), errors.Is(err, compact.ErrBackoff),
				errors.Is(err, compact.ErrNoSavings), errors.Is(err, compact.ErrNothingToCompress):
				_, _ = fmt.Fprintf(w, "turn %d: not compacting now, a normal state: %v\n", turn, err)
			case err != nil:
				_, _ = fmt.Fprintf(w, "turn %d: compaction failed, sending the history as is: %v\n", turn, err)
			default:
				_, _ = fmt.Fprintf(w, "turn %d: compacted %d messages (%d tokens) into %d (%d tokens) with %s\n",
					turn, res.MessagesBefore, res.TokensBefore, res.MessagesAfter, res.TokensAfter, res.Summarizer)
				msgs = res.Messages
			}
		}
		resp, err := client.CreateChatCompletion(ctx, openai.ChatCompletionRequest{
			Model: modelName, Messages: msgs, Tools: []openai.Tool{readFileTool},
		})
		if err != nil {
			return fmt.Errorf("turn %d: %w", turn, err)
		}
		// The provider's usage keeps the Compressor's view of the window
		// exact.
		c.UpdateUsage(compact.UsageFrom(resp.Usage))
		reply := resp.Choices[0].Message
		msgs = append(msgs, reply)
		if len(reply.ToolCalls) == 0 {
			_, _ = fmt.Fprintf(w, "turn %d: answer: %s\n", turn, reply.Content)
			st := c.Status()
			_, _ = fmt.Fprintf(w, "%d compactions, last prompt %d of %d tokens\n", st.Compressions, st.LastPromptTokens, st.Threshold)
			return nil
		}
		for _, call := range reply.ToolCalls {
			msgs = append(msgs, compact.Message{Role: compact.RoleTool, ToolCallID: call.ID, Content: runTool(call)})
		}
	}
	return fmt.Errorf("no answer after %d turns", maxTurns)
}

var readFileTool = openai.Tool{Type: openai.ToolTypeFunction, Function: &openai.FunctionDefinition{
	Name:        "read_file",
	Description: "Read a file of the repository.",
	Parameters: map[string]any{
		"type":       "object",
		"properties": map[string]any{"path": map[string]any{"type": "string"}},
		"required":   []string{"path"},
	},
}}
