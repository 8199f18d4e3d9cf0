package main

import (
	"encoding/json"
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

// Every Go block of the README compiles as printed: each is, byte for byte,
// the main.go of one of the examples, which build and run as their tests.
// A snippet that is not a whole program cannot be checked, so the README
// has none; put it in an example and print that.
func TestEveryGoBlockOfTheReadmeIsAnExample(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	require.NoError(t, err)
	mains, err := filepath.Glob("../*/main.go")
	require.NoError(t, err)
	programs := map[string]string{} // source -> example
	for _, path := range mains {
		src, err := os.ReadFile(path)
		require.NoError(t, err)
		programs[string(src)] = filepath.Base(filepath.Dir(path))
	}
	var shown []string
	rest := string(readme)
	for n := 1; ; n++ {
		_, after, ok := strings.Cut(rest, "```go\n")
		if !ok {
			break
		}
		block, next, ok := strings.Cut(after, "```")
		require.True(t, ok, "Go block %d of the README is not closed", n)
		rest = next
		first, _, _ := strings.Cut(block, "\n")
		example, ok := programs[block]
		assert.True(t, ok, "Go block %d of the README (%q) is no example's main.go", n, first)
		shown = append(shown, example)
	}
	assert.Equal(t, []string{"quickstart", "sessionloop"}, shown, "the README shows the Quick start and the Session loop")
}

// The README is read in ten minutes: the manual lives in docs/ and the
// package docs (issue 22 set 15 KB).
func TestTheReadmeStaysShort(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	require.NoError(t, err)
	assert.LessOrEqual(t, len(readme), 15_000, "README.md bytes; move detail to docs/ or a package doc")
}
