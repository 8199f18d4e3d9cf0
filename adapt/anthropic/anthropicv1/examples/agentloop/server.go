package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"

	"github.com/anthropics/anthropic-sdk-go"

	adapt "github.com/contextkit/compact/adapt/anthropic/anthropicv1"
)

// modelName is what the local server calls its model.
const modelName = "claude-local-test"

// rounds is how many turns of two parallel reads the scripted model makes
// before it answers.
const rounds = 12

// newModelServer starts a scripted model speaking the Messages API on a
// local port. It checks every request the way the API does: a history
// without the API's shape is a 400, and so is a tool-use loop whose last
// assistant turn lost the thinking block the model signed. It answers by
// reading two more files (with signed thinking, as extended thinking
// does), or with the answer once it has read enough.
func newModelServer() *httptest.Server {
	var mu sync.Mutex
	step := 0
	signed := map[string]bool{}
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var req struct {
			System   []anthropic.TextBlockParam `json:"system"`
			Messages []anthropic.MessageParam   `json:"messages"`
		}
		err := json.Unmarshal(body, &req)
		if err == nil {
			err = adapt.Validate(adapt.History{System: req.System, Messages: req.Messages})
		}
		mu.Lock()
		defer mu.Unlock()
		if err == nil {
			err = checkThinking(req.Messages, signed)
		}
		if err != nil {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			_ = json.NewEncoder(w).Encode(map[string]any{"type": "error",
				"error": map[string]string{"type": "invalid_request_error", "message": err.Error()}})
			return
		}
		step++
		var content []map[string]any
		stop := "tool_use"
		if step <= rounds {
			sig := fmt.Sprintf("sig-%d", step)
			signed[sig] = true
			content = []map[string]any{
				{"type": "thinking", "thinking": "Read the next two files of internal/retry.", "signature": sig},
				readCall(fmt.Sprintf("toolu_%da", step), fmt.Sprintf("internal/retry/part%d.go", step)),
				readCall(fmt.Sprintf("toolu_%db", step), fmt.Sprintf("internal/retry/part%d_test.go", step)),
			}
		} else {
			stop = "end_turn"
			content = []map[string]any{{"type": "text",
				"text": "The retry budget is set in internal/retry/part6.go: DefaultBudget = 3 attempts."}}
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{
			"id": fmt.Sprintf("msg_%d", step), "type": "message", "role": "assistant", "model": modelName,
			"content": content, "stop_reason": stop, "stop_sequence": nil,
			"usage": map[string]any{"input_tokens": len(body) / 4, "output_tokens": 40},
		})
	}))
}

func readCall(id, path string) map[string]any {
	return map[string]any{"type": "tool_use", "id": id, "name": "read_file", "input": map[string]string{"path": path}}
}

// checkThinking refuses a request that continues a tool-use loop (its
// last turn holds tool results) unless the assistant turn before starts
// with a thinking block this server signed.
func checkThinking(msgs []anthropic.MessageParam, signed map[string]bool) error {
	n := len(msgs)
	if n < 2 || len(msgs[n-1].Content) == 0 || msgs[n-1].Content[0].OfToolResult == nil {
		return nil
	}
	prev := msgs[n-2].Content
	if len(prev) == 0 || prev[0].OfThinking == nil || !signed[prev[0].OfThinking.Signature] {
		return fmt.Errorf("messages.%d.content.0: the thinking block of a tool-use loop is missing or altered", n-2)
	}
	return nil
}
