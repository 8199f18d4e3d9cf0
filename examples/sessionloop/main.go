// Command sessionloop is the README's Session loop: an agent whose
// conversation lives in a SQLite file, compacted by a model's summaries.
// Run it twice: the second run carries on where the first left off. It
// talks to any OpenAI-compatible endpoint (OPENAI_BASE_URL, OPENAI_API_KEY).
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"

	openai "github.com/sashabaranov/go-openai"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/openaicompat"
	"github.com/contextkit/compact/session"
	"github.com/contextkit/compact/session/sqlitestore"
)

func main() {
	ask := "What does go.mod require?"
	if len(os.Args) > 1 {
		ask = strings.Join(os.Args[1:], " ")
	}
	db := filepath.Join(os.TempDir(), "sessionloop.db")
	if err := run(context.Background(), db, ask, compact.WithModel("gpt-4o")); err != nil {
		log.Fatal(err)
	}
}

// run answers one ask in the session kept at db; opts configure the engine.
func run(ctx context.Context, db, ask string, opts ...compact.Option) (err error) {
	cfg := openai.DefaultConfig(os.Getenv("OPENAI_API_KEY"))
	if u := os.Getenv("OPENAI_BASE_URL"); u != "" {
		cfg.BaseURL = u
	}
	client := openai.NewClientWithConfig(cfg)
	tools := []openai.Tool{{Type: openai.ToolTypeFunction, Function: &openai.FunctionDefinition{
		Name: "read_file", Description: "Read a file of the repository",
		Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`),
	}}}
	// A model writes the summaries; without WithSummarizer the offline
	// extractive summarizer does.
	summarizer, err := openaicompat.New("gpt-4o-mini", openaicompat.WithClientConfig(cfg))
	if err != nil {
		return err
	}
	engine := compact.New(append([]compact.Option{compact.WithSummarizer(summarizer)}, opts...)...)

	st, err := sqlitestore.Open(ctx, db)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, st.Close()) }()
	// Open reads the session's history from the file: after a restart the
	// conversation carries on. Every Append is in the file when it returns.
	s, err := session.Open(ctx, "agent-7", engine,
		session.WithStore(st),
		session.WithBackground(false), // true: compact on the session's goroutine; no request waits
	)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, s.Close(ctx)) }()
	fmt.Printf("session %s: %d messages\n", s.ID(), s.Len())
	if s.Len() == 0 {
		if err := s.Append(ctx, compact.Message{Role: compact.RoleSystem, Content: "You are a coding agent. Use read_file, then answer."}); err != nil {
			return err
		}
	}
	if err := s.Append(ctx, compact.Message{Role: compact.RoleUser, Content: ask}); err != nil {
		return err
	}
	for turn := 0; turn < 20; turn++ {
		// Before every request; on error the history is untouched. A pause,
		// a backoff, another process compacting or nothing to gain is a
		// normal state, not a failure.
		if s.ShouldCompress(compact.WithTools(tools)) {
			res, err := s.Compress(ctx, compact.WithTools(tools))
			switch {
			case err == nil:
				fmt.Printf("compacted %d messages into %d\n", res.MessagesBefore, res.MessagesAfter)
			case errors.Is(err, compact.ErrPaused), errors.Is(err, compact.ErrBackoff), errors.Is(err, session.ErrBusy),
				errors.Is(err, compact.ErrNoSavings), errors.Is(err, compact.ErrNothingToCompress):
				// not a failure: s.Status() says why
			default:
				log.Printf("compaction failed, sending the history as is: %v", err)
			}
		}
		resp, err := client.CreateChatCompletion(ctx, openai.ChatCompletionRequest{
			Model: "gpt-4o", Messages: s.Messages(), Tools: tools,
		})
		if err != nil {
			return err
		}
		s.UpdateUsage(compact.UsageFrom(resp.Usage)) // keeps the trigger exact
		reply := resp.Choices[0].Message
		if err := s.Append(ctx, reply); err != nil {
			return err
		}
		if len(reply.ToolCalls) == 0 {
			fmt.Println(reply.Content)
			return nil
		}
		for _, call := range reply.ToolCalls { // answer every call
			result := compact.Message{Role: compact.RoleTool, ToolCallID: call.ID, Content: readFile(call)}
			if err := s.Append(ctx, result); err != nil {
				return err
			}
		}
	}
	return errors.New("no answer after 20 turns")
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
