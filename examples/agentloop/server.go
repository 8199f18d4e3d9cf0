package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"

	openai "github.com/sashabaranov/go-openai"

	"github.com/contextkit/compact"
)

// modelName is what the local server calls its model.
const modelName = "local-test-model"

// filesToRead is how many files the scripted model reads before it
// answers.
const filesToRead = 12

// newModelServer starts a scripted OpenAI-compatible model on a local port.
// It checks every request the way a provider would (an orphan tool result
// or an unanswered call is a 400), answers summary requests (those without
// tools) with a summary, and answers agent requests by reading one more
// file, or with the answer once it has read enough.
func newModelServer() *httptest.Server {
	var mu sync.Mutex
	reads := 0
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req openai.ChatCompletionRequest
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		if err := compact.Validate(req.Messages); err != nil {
			w.WriteHeader(http.StatusBadRequest)
			_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"message": err.Error(), "type": "invalid_request_error"}})
			return
		}
		var reply openai.ChatCompletionMessage
		switch {
		case len(req.Tools) == 0:
			reply = openai.ChatCompletionMessage{Role: "assistant", Content: "The user asked where the retry budget is configured. " +
				"The agent has been reading internal/retry/*.go one file at a time; none so far set the budget."}
		default:
			mu.Lock()
			reads++
			n := reads
			mu.Unlock()
			if n <= filesToRead {
				reply = openai.ChatCompletionMessage{Role: "assistant", ToolCalls: []openai.ToolCall{{
					ID: fmt.Sprintf("call_%d", n), Type: openai.ToolTypeFunction,
					Function: openai.FunctionCall{Name: "read_file", Arguments: fmt.Sprintf(`{"path":"internal/retry/part%d.go"}`, n)},
				}}}
			} else {
				reply = openai.ChatCompletionMessage{Role: "assistant",
					Content: "The retry budget is set in internal/retry/part12.go: DefaultBudget = 3 attempts."}
			}
		}
		prompt := 0
		for _, m := range req.Messages {
			prompt += len(m.Content)/4 + 4
		}
		_ = json.NewEncoder(w).Encode(openai.ChatCompletionResponse{
			ID: "chatcmpl-local", Object: "chat.completion", Model: req.Model,
			Choices: []openai.ChatCompletionChoice{{Message: reply, FinishReason: openai.FinishReasonStop}},
			Usage:   openai.Usage{PromptTokens: prompt, CompletionTokens: 20, TotalTokens: prompt + 20},
		})
	}))
}

// runTool answers a read_file call with a made-up Go file of a realistic
// size (about 500 tokens).
func runTool(call openai.ToolCall) string {
	var args struct{ Path string }
	if err := json.Unmarshal([]byte(call.Function.Arguments), &args); err != nil {
		return "error: " + err.Error()
	}
	var b strings.Builder
	fmt.Fprintf(&b, "// %s\npackage retry\n\n", args.Path)
	for i := 0; i < 20; i++ {
		fmt.Fprintf(&b, "// helper%d waits between attempts and reports whether to go on.\nfunc helper%d(attempt int) bool { return attempt < %d }\n", i, i, i+2)
	}
	if strings.HasSuffix(args.Path, "part12.go") {
		b.WriteString("\n// DefaultBudget is how many attempts a call gets.\nconst DefaultBudget = 3\n")
	}
	return b.String()
}
