package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"

	"github.com/contextkit/compact"
)

// modelName is what the local server calls its model.
const modelName = "gpt-local-test"

// newModelServer starts a scripted model speaking OpenAI's Chat
// Completions on a local port. It refuses (400) a request that is not a
// valid chat history, and answers each question at some length, as a
// support model does, repeating what it was told last.
func newModelServer() *httptest.Server {
	var mu sync.Mutex
	turn := 0
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var req struct {
			Messages []compact.Message `json:"messages"`
		}
		err := json.Unmarshal(body, &req)
		if err == nil && r.URL.Path != "/chat/completions" {
			err = fmt.Errorf("no such path %s", r.URL.Path)
		}
		if err == nil {
			err = compact.Validate(req.Messages)
		}
		w.Header().Set("Content-Type", "application/json")
		if err != nil {
			w.WriteHeader(http.StatusBadRequest)
			_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"message": err.Error(), "type": "invalid_request_error"}})
			return
		}
		mu.Lock()
		turn++
		n := turn
		mu.Unlock()
		prompt := compact.Text(req.Messages[len(req.Messages)-1])
		question := prompt[strings.LastIndex(prompt, "Human: ")+len("Human: "):]
		question, _, _ = strings.Cut(question, "\nAI:")
		answer := fmt.Sprintf("Answer %d. You asked: %q. ", n, question) +
			strings.Repeat("Check the runner's known_hosts, the key's fingerprint and the deploy user's permissions. ", 6)
		_ = json.NewEncoder(w).Encode(map[string]any{
			"id": fmt.Sprintf("chatcmpl-%d", n), "object": "chat.completion", "created": 1, "model": modelName,
			"choices": []any{map[string]any{"index": 0, "message": map[string]any{"role": "assistant", "content": answer},
				"finish_reason": "stop"}},
			"usage": map[string]any{"prompt_tokens": len(body) / 4, "completion_tokens": len(answer) / 4,
				"total_tokens": (len(body) + len(answer)) / 4},
		})
	}))
}
