package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"

	"google.golang.org/genai"

	adapt "github.com/contextkit/compact/adapt/genai"
)

// modelName is what the local server calls its model.
const modelName = "gemini-local-test"

// rounds is how many turns of two parallel reads the scripted model makes
// before it answers.
const rounds = 12

// newModelServer starts a scripted model speaking the Gemini API on a
// local port. It checks every request the way the API does: a history
// without the API's shape is a 400 INVALID_ARGUMENT, and so is one whose
// latest function calls lost the thought signature the model put on the
// first of them (Gemini 3 refuses those). It answers by reading two more
// files (a signed thought, then two calls without ids, as Gemini sends
// them), or with the answer once it has read enough.
func newModelServer() *httptest.Server {
	var mu sync.Mutex
	step := 0
	signed := map[string]bool{}
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var req struct {
			SystemInstruction *genai.Content   `json:"systemInstruction"`
			Contents          []*genai.Content `json:"contents"`
		}
		err := json.Unmarshal(body, &req)
		if err == nil && r.URL.Path != "/v1beta/models/"+modelName+":generateContent" {
			err = fmt.Errorf("no such method: %s", r.URL.Path)
		}
		if err == nil {
			err = adapt.Validate(adapt.History{System: req.SystemInstruction, Contents: req.Contents})
		}
		mu.Lock()
		defer mu.Unlock()
		if err == nil {
			err = checkSignature(req.Contents, signed)
		}
		w.Header().Set("Content-Type", "application/json")
		if err != nil {
			w.WriteHeader(http.StatusBadRequest)
			_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{
				"code": http.StatusBadRequest, "message": err.Error(), "status": "INVALID_ARGUMENT"}})
			return
		}
		step++
		var parts []map[string]any
		if step <= rounds {
			sig := fmt.Sprintf("sig-%d", step)
			signed[sig] = true
			parts = []map[string]any{
				{"text": "Read the next two files of internal/retry.", "thought": true},
				readCall(fmt.Sprintf("internal/retry/part%d.go", step), sig),
				readCall(fmt.Sprintf("internal/retry/part%d_test.go", step), ""),
			}
		} else {
			parts = []map[string]any{{"text": "The retry budget is set in internal/retry/part6.go: DefaultBudget = 3 attempts."}}
		}
		_ = json.NewEncoder(w).Encode(map[string]any{
			"candidates": []any{map[string]any{"content": map[string]any{"role": "model", "parts": parts}, "finishReason": "STOP"}},
			"usageMetadata": map[string]any{"promptTokenCount": len(body) / 4, "candidatesTokenCount": 40,
				"totalTokenCount": len(body)/4 + 40},
		})
	}))
}

// readCall is a read_file call part, signed when sig is not empty.
func readCall(path, sig string) map[string]any {
	p := map[string]any{"functionCall": map[string]any{"name": "read_file", "args": map[string]string{"path": path}}}
	if sig != "" {
		p["thoughtSignature"] = []byte(sig)
	}
	return p
}

// checkSignature refuses a request that continues a function call loop
// (its last content holds function responses) unless the first call of
// the model content before carries a signature this server gave.
func checkSignature(contents []*genai.Content, signed map[string]bool) error {
	n := len(contents)
	if n < 2 || len(contents[n-1].Parts) == 0 || contents[n-1].Parts[0].FunctionResponse == nil {
		return nil
	}
	for i, p := range contents[n-2].Parts {
		if p.FunctionCall != nil {
			if !signed[string(p.ThoughtSignature)] {
				return fmt.Errorf("function call is missing a thought_signature in functionCall parts: content %d, part %d", n-2, i)
			}
			return nil
		}
	}
	return nil
}
