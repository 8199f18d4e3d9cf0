package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
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

// overThreshold is a conversation just over c's threshold, inside its
// usable window (over it, no pause holds).
func overThreshold(c *compact.Compressor) []compact.Message {
	msgs := []compact.Message{{Role: compact.RoleSystem, Content: "You are a coding agent."}}
	for i := 0; !c.ShouldCompressMessages(msgs); i++ {
		msgs = append(msgs,
			compact.Message{Role: compact.RoleUser, Content: fmt.Sprintf("Step %d: read the next part of the parser and say what it does.", i)},
			compact.Message{Role: compact.RoleAssistant, Content: strings.Repeat(fmt.Sprintf("Part %d parses one more token kind. ", i), 12)})
	}
	return msgs
}

// logged runs f with the standard logger writing to a buffer.
func logged(t *testing.T, f func()) string {
	var b bytes.Buffer
	log.SetOutput(&b)
	t.Cleanup(func() { log.SetOutput(os.Stderr) })
	f()
	return b.String()
}

// A paused Compressor is a normal state: the loop sends the history as it
// is and logs no failure. A summarizer that fails is one, and is logged.
func TestTheLoopLogsFailuresNotNormalStates(t *testing.T) {
	ctx := context.Background()
	c := compact.New(compact.WithContextWindow(4000))
	msgs := overThreshold(c)
	for range 2 { // two compactions that leave the next prompt over the threshold
		_, err := c.Compress(ctx, msgs)
		require.NoError(t, err)
		// The next request, counted and reported, is still over.
		c.ShouldCompress(c.Status().Threshold + 100)
		c.UpdateUsage(compact.Usage{PromptTokens: c.Status().Threshold + 100})
	}
	require.True(t, c.Status().Paused, "the anti-thrash pause holds")
	_, err := c.Compress(ctx, msgs)
	require.ErrorIs(t, err, compact.ErrPaused, "what the loop meets")
	var got []compact.Message
	out := logged(t, func() { got = compress(ctx, c, msgs, nil) })
	assert.Empty(t, out, "a pause is not logged as a failure")
	assert.Equal(t, msgs, got, "the history goes as it is")

	broken := compact.New(compact.WithContextWindow(4000), compact.WithFailurePolicy(compact.AbortOnFailure),
		compact.WithSummarizer(compact.SummarizerFunc(func(context.Context, compact.SummaryRequest) (string, error) {
			return "", errors.New("503 from the endpoint")
		})))
	out = logged(t, func() { got = compress(ctx, broken, msgs, nil) })
	assert.Contains(t, out, "compaction failed, sending the history as is: ")
	assert.Contains(t, out, "503 from the endpoint")
	assert.Equal(t, msgs, got)
}

// Every loop people copy (the README, the examples, the adapters'
// examples) that reports a failed compaction tells the normal states
// apart first: a pause or a backoff never reads as a failure.
func TestEveryLoopTellsNormalStatesFromFailures(t *testing.T) {
	var files []string
	for _, pattern := range []string{"../../README.md", "../*/main.go", "../../adapt/*/examples/*/main.go",
		"../../adapt/*/*/examples/*/main.go", "../../adapt/*/README.md"} {
		found, err := filepath.Glob(pattern)
		require.NoError(t, err)
		files = append(files, found...)
	}
	loops := 0
	for _, f := range files {
		src, err := os.ReadFile(f)
		require.NoError(t, err)
		if !strings.Contains(string(src), "compaction failed, sending the history as is") {
			continue
		}
		loops++
		for _, normal := range []string{"compact.ErrPaused", "compact.ErrBackoff"} {
			assert.Contains(t, string(src), normal, "%s logs failed compactions: it must tell %s apart", f, normal)
		}
	}
	assert.GreaterOrEqual(t, loops, 10, "the loops this test reads")
}

// The README's Quick start shows first a program that compacts offline,
// then this file, as printed: it compiles because this package does.
func TestTheReadmeShowsThisProgram(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	require.NoError(t, err)
	src, err := os.ReadFile("main.go")
	require.NoError(t, err)
	firstrun, err := os.ReadFile("../firstrun/main.go")
	require.NoError(t, err)
	_, after, ok := strings.Cut(string(readme), "## Quick start")
	require.True(t, ok, "README has a Quick start")
	blocks := strings.Split(after, "```go\n")
	require.GreaterOrEqual(t, len(blocks), 3)
	first, _, _ := strings.Cut(blocks[1], "```")
	second, _, _ := strings.Cut(blocks[2], "```")
	assert.Equal(t, string(firstrun), first, "the Quick start's first program is examples/firstrun/main.go: a compaction with no key")
	assert.Equal(t, string(src), second, "then examples/quickstart/main.go")
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
	assert.Equal(t, []string{"firstrun", "quickstart", "sessionloop"}, shown, "the README shows the Quick start's two programs and the Session loop")
}

// The README is read in ten minutes: the manual lives in docs/ and the
// package docs (issue 22 set 15 KB).
func TestTheReadmeStaysShort(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	require.NoError(t, err)
	assert.LessOrEqual(t, len(readme), 15_000, "README.md bytes; move detail to docs/ or a package doc")
}
