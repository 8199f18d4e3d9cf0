package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	openai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/contextkit/compact"
)

// fakeModel plays both models: gpt-4o asks for main.go, then answers with
// its first line; gpt-4o-mini writes summaries, which it counts.
func fakeModel(t *testing.T, summaries *atomic.Int32) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req openai.ChatCompletionRequest
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		prompt := 0
		for _, m := range req.Messages {
			prompt += len(m.Content)/4 + 4
		}
		reply := openai.ChatCompletionMessage{Role: openai.ChatMessageRoleAssistant}
		last := req.Messages[len(req.Messages)-1]
		switch {
		case req.Model == "gpt-4o-mini":
			summaries.Add(1)
			reply.Content = "The user asked about main.go; the agent read it and answered."
		case last.Role == openai.ChatMessageRoleUser:
			reply.ToolCalls = []openai.ToolCall{{ID: fmt.Sprintf("call_%d", len(req.Messages)), Type: openai.ToolTypeFunction,
				Function: openai.FunctionCall{Name: "read_file", Arguments: `{"path":"main.go"}`}}}
		default:
			reply.Content = "It starts: " + strings.SplitN(last.Content, "\n", 2)[0]
		}
		_ = json.NewEncoder(w).Encode(openai.ChatCompletionResponse{
			Choices: []openai.ChatCompletionChoice{{Message: reply, FinishReason: openai.FinishReasonStop}},
			Usage:   openai.Usage{PromptTokens: prompt, CompletionTokens: 20, TotalTokens: prompt + 20},
		})
	}))
	t.Cleanup(srv.Close)
	return srv
}

// stdout runs f and returns what it printed.
func stdout(t *testing.T, f func() error) string {
	t.Helper()
	r, w, err := os.Pipe()
	require.NoError(t, err)
	saved := os.Stdout
	os.Stdout = w
	runErr := f()
	os.Stdout = saved
	require.NoError(t, w.Close())
	out, err := io.ReadAll(r)
	require.NoError(t, err)
	require.NoError(t, runErr, "output: %s", out)
	return string(out)
}

// Two runs are two processes: the second opens the session from the file,
// compacts it with the model's summary and answers.
func TestTheSessionCarriesOnAfterARestart(t *testing.T) {
	var summaries atomic.Int32
	t.Setenv("OPENAI_BASE_URL", fakeModel(t, &summaries).URL+"/v1")
	t.Setenv("OPENAI_API_KEY", "test-key")
	db := filepath.Join(t.TempDir(), "sessions.db")
	ctx := context.Background()
	small := compact.WithContextWindow(4000) // so that a short run compacts

	first := stdout(t, func() error { return run(ctx, db, "What does main.go say first?", small) })
	assert.Equal(t, "session agent-7: 0 messages\nIt starts: // Command sessionloop is the README's Session loop: an agent whose\n", first)
	assert.Zero(t, summaries.Load())

	second := stdout(t, func() error { return run(ctx, db, "Read it again, please.", small) })
	assert.Equal(t, "session agent-7: 5 messages\ncompacted 8 messages into 6\n"+
		"It starts: // Command sessionloop is the README's Session loop: an agent whose\n", second,
		"the second run reads the first's history, compacts it and answers")
	assert.Equal(t, int32(1), summaries.Load())
}
