package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"

	"github.com/openai/openai-go/v3"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/adapt/openaigo"
	"github.com/contextkit/compact/internal/msg"
)

// modelName is what the local server calls its model.
const modelName = "local-test-model"

// rounds is how many turns of a read and a search the scripted model makes
// before it answers.
const rounds = 12

// newModelServer starts a scripted model speaking Chat Completions on a
// local port. It checks every request the way a provider would (an orphan
// tool result or an unanswered call is a 400) and answers by reading one
// more file and searching once more, in parallel, or with the answer once
// it has read enough.
func newModelServer() *httptest.Server {
	return httptest.NewServer(handler())
}

// promptTokens estimates a prompt the way a provider's count runs: about
// four characters a token, and a few tokens a message.
func promptTokens(msgs []openai.ChatCompletionMessageParamUnion) int {
	conv, err := openaigo.Convert(msgs)
	if err != nil {
		return 0
	}
	n := 0
	for _, m := range conv.Messages {
		n += (len(compact.Text(m))+len(msg.ToolCallText(m)))/4 + 4
	}
	return n
}

func handler() http.Handler {
	var mu sync.Mutex
	step := 0
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var req struct {
			Messages []openai.ChatCompletionMessageParamUnion `json:"messages"`
		}
		err := json.Unmarshal(body, &req)
		if err == nil {
			err = openaigo.Validate(req.Messages)
		}
		w.Header().Set("Content-Type", "application/json")
		if err != nil {
			w.WriteHeader(http.StatusBadRequest)
			_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]string{"message": err.Error(), "type": "invalid_request_error"}})
			return
		}
		mu.Lock()
		step++
		n := step
		mu.Unlock()
		message := map[string]any{"role": "assistant", "content": nil}
		finish := "tool_calls"
		if n <= rounds {
			message["tool_calls"] = []map[string]any{
				{"id": fmt.Sprintf("call_%da", n), "type": "function",
					"function": map[string]string{"name": "read_file", "arguments": fmt.Sprintf(`{"path":"internal/retry/part%d.go"}`, n)}},
				{"id": fmt.Sprintf("call_%db", n), "type": "custom",
					"custom": map[string]string{"name": "grep", "input": fmt.Sprintf("Budget part%d", n)}},
			}
		} else {
			finish = "stop"
			message["content"] = "The retry budget is set in internal/retry/part6.go: DefaultBudget = 3 attempts."
		}
		prompt := promptTokens(req.Messages)
		_ = json.NewEncoder(w).Encode(map[string]any{
			"id": fmt.Sprintf("chatcmpl-%d", n), "object": "chat.completion", "created": 1, "model": modelName,
			"choices": []map[string]any{{"index": 0, "finish_reason": finish, "message": message}},
			"usage":   map[string]int{"prompt_tokens": prompt, "completion_tokens": 30, "total_tokens": prompt + 30},
		})
	})
}
