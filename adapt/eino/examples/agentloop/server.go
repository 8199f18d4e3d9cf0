package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"

	openai "github.com/sashabaranov/go-openai"

	"github.com/contextkit/compact"
)

// modelName is what the local server calls its model.
const modelName = "gpt-local-test"

// rounds is how many turns of two parallel reads the scripted model makes
// before it answers.
const rounds = 12

// newModelServer starts a scripted model speaking the Chat Completions API
// on a local port. It checks every request the way the API does: a history
// where a tool result answers no call, or a call goes unanswered, is a 400.
// It answers by reading two more files, or with the answer once it has
// read enough.
func newModelServer() *httptest.Server {
	var mu sync.Mutex
	step := 0
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var req openai.ChatCompletionRequest
		err := json.Unmarshal(body, &req)
		if err == nil {
			err = compact.Validate(req.Messages)
		}
		if err == nil && len(req.Tools) == 0 {
			err = fmt.Errorf("no tools sent")
		}
		if err != nil {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]string{
				"type": "invalid_request_error", "message": err.Error()}})
			return
		}
		mu.Lock()
		step++
		n := step
		mu.Unlock()
		msg := openai.ChatCompletionMessage{Role: openai.ChatMessageRoleAssistant}
		finish := openai.FinishReasonToolCalls
		if n <= rounds {
			msg.ToolCalls = []openai.ToolCall{
				readCall(fmt.Sprintf("call_%da", n), fmt.Sprintf("internal/retry/part%d.go", n)),
				readCall(fmt.Sprintf("call_%db", n), fmt.Sprintf("internal/retry/part%d_test.go", n)),
			}
		} else {
			finish = openai.FinishReasonStop
			msg.Content = "The retry budget is set in internal/retry/part6.go: DefaultBudget = 3 attempts."
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(openai.ChatCompletionResponse{
			ID: fmt.Sprintf("chatcmpl-%d", n), Object: "chat.completion", Model: modelName,
			Choices: []openai.ChatCompletionChoice{{Message: msg, FinishReason: finish}},
			Usage:   openai.Usage{PromptTokens: len(body) / 4, CompletionTokens: 40, TotalTokens: len(body)/4 + 40},
		})
	}))
}

func readCall(id, path string) openai.ToolCall {
	args, _ := json.Marshal(map[string]string{"path": path})
	return openai.ToolCall{ID: id, Type: openai.ToolTypeFunction,
		Function: openai.FunctionCall{Name: "read_file", Arguments: string(args)}}
}
