package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"testing"

	openai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeModel answers the first request with a read_file call and the second
// with the file's first line, as a model would.
func fakeModel(t *testing.T) *httptest.Server {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req openai.ChatCompletionRequest
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		reply := openai.ChatCompletionMessage{Role: openai.ChatMessageRoleAssistant}
		if calls.Add(1) == 1 {
			reply.ToolCalls = []openai.ToolCall{{ID: "c1", Type: openai.ToolTypeFunction,
				Function: openai.FunctionCall{Name: "read_file", Arguments: `{"path":"main.go"}`}}}
		} else {
			last := req.Messages[len(req.Messages)-1].Content
			reply.Content = "It starts: " + strings.SplitN(last, "\n", 2)[0]
		}
		_ = json.NewEncoder(w).Encode(openai.ChatCompletionResponse{
			Choices: []openai.ChatCompletionChoice{{Message: reply, FinishReason: openai.FinishReasonStop}},
			Usage:   openai.Usage{PromptTokens: 120, CompletionTokens: 10, TotalTokens: 130},
		})
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestQuickStartRuns(t *testing.T) {
	t.Setenv("OPENAI_BASE_URL", fakeModel(t).URL+"/v1")
	t.Setenv("OPENAI_API_KEY", "test-key")
	r, w, err := os.Pipe()
	require.NoError(t, err)
	stdout := os.Stdout
	os.Stdout = w
	main()
	os.Stdout = stdout
	require.NoError(t, w.Close())
	out, err := io.ReadAll(r)
	require.NoError(t, err)
	assert.Equal(t, "It starts: // Command quickstart is the README's Quick start: an agent with one tool\n", string(out))
}

// The README's Quick start is this file, as printed: it compiles because
// this package does.
func TestTheReadmeShowsThisProgram(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	require.NoError(t, err)
	src, err := os.ReadFile("main.go")
	require.NoError(t, err)
	_, after, ok := strings.Cut(string(readme), "## Quick start")
	require.True(t, ok, "README has a Quick start")
	_, block, ok := strings.Cut(after, "```go\n")
	require.True(t, ok)
	block, _, ok = strings.Cut(block, "```")
	require.True(t, ok)
	assert.Equal(t, string(src), block, "README's Quick start and examples/quickstart/main.go differ")
}
