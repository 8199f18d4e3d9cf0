// Command quickstart is the README's Quick start: an agent with one tool
// that compacts its history before every request. It talks to any
// OpenAI-compatible endpoint (OPENAI_BASE_URL, OPENAI_API_KEY).
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"os"

	openai "github.com/sashabaranov/go-openai"

	"github.com/contextkit/compact"
)

func main() {
	cfg := openai.DefaultConfig(os.Getenv("OPENAI_API_KEY"))
	if u := os.Getenv("OPENAI_BASE_URL"); u != "" {
		cfg.BaseURL = u
	}
	client := openai.NewClientWithConfig(cfg)
	// One Compressor per conversation; the model table gives gpt-4o's window.
	c := compact.New(compact.WithModel("gpt-4o"))

	tools := []openai.Tool{{Type: openai.ToolTypeFunction, Function: &openai.FunctionDefinition{
		Name: "read_file", Description: "Read a file of the repository",
		Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`),
	}}}
	msgs := []compact.Message{
		{Role: compact.RoleSystem, Content: "You are a coding agent. Use read_file, then answer."},
		{Role: compact.RoleUser, Content: "What does go.mod require?"},
	}
	ctx := context.Background()
	for turn := 0; turn < 20; turn++ {
		msgs = compress(ctx, c, msgs, tools) // before every request
		resp, err := client.CreateChatCompletion(ctx, openai.ChatCompletionRequest{
			Model: "gpt-4o", Messages: msgs, Tools: tools,
		})
		if err != nil {
			log.Fatal(err)
		}
		c.UpdateUsage(compact.UsageFrom(resp.Usage)) // keeps the trigger exact
		reply := resp.Choices[0].Message
		msgs = append(msgs, reply)
		if len(reply.ToolCalls) == 0 {
			fmt.Println(reply.Content)
			return
		}
		for _, call := range reply.ToolCalls { // answer every call
			msgs = append(msgs, compact.Message{Role: compact.RoleTool, ToolCallID: call.ID, Content: readFile(call)})
		}
	}
}

// compress returns msgs compacted, or as they are (under the threshold, or
// on an error). A pause, a backoff and nothing to gain are not failures.
func compress(ctx context.Context, c *compact.Compressor, msgs []compact.Message, tools []openai.Tool) []compact.Message {
	res, err := c.Compress(ctx, msgs, compact.WithTools(tools))
	switch {
	case err == nil:
		return res.Messages
	case errors.Is(err, compact.ErrPaused), errors.Is(err, compact.ErrBackoff),
		errors.Is(err, compact.ErrNoSavings), errors.Is(err, compact.ErrNothingToCompress):
		// normal states: c.Status() says why
	default:
		log.Printf("compaction failed, sending the history as is: %v", err)
	}
	return msgs
}

// readFile runs the tool: the file's text, or the error for the model to read.
func readFile(call openai.ToolCall) string {
	var args struct{ Path string }
	if err := json.Unmarshal([]byte(call.Function.Arguments), &args); err != nil {
		return "error: " + err.Error()
	}
	data, err := os.ReadFile(args.Path)
	if err != nil {
		return "error: " + err.Error()
	}
	return string(data)
}
