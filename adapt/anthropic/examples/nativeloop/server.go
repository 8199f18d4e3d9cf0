package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
)

// modelName is what the local server calls its model.
const modelName = "claude-local-test"

// rounds is how many turns of two parallel reads the scripted model makes
// before it answers.
const rounds = 24

// failAt is the compaction the server fails, as the API does when
// compaction is unavailable (529, compaction_unavailable).
const failAt = 2

// block is a Messages API content block as the server reads it.
type block struct {
	Type      string          `json:"type"`
	ID        string          `json:"id"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
}

// request is what the server reads of a request body.
type request struct {
	Messages []struct {
		Role    string            `json:"role"`
		Content []json.RawMessage `json:"content"`
	} `json:"messages"`
	ContextManagement *struct {
		Edits []struct {
			Type    string `json:"type"`
			Trigger struct {
				Value int `json:"value"`
			} `json:"trigger"`
		} `json:"edits"`
	} `json:"context_management"`
}

// newModelServer starts a scripted model speaking the Messages API on a
// local port, with Anthropic's threshold compaction: it reads a history
// from its newest compaction block on (the API ignores what comes before),
// refuses a block it did not write or one sent without the beta header,
// and a tool result that answers no call of the turn before; it counts a
// token for every four bytes, and once a request with the compact_20260112
// edit reaches its trigger it opens its answer on a compaction block
// (failing the failAt-th time). It answers by reading two more files, or
// with the answer once it has read enough.
func newModelServer() *httptest.Server {
	var mu sync.Mutex
	step, compactions := 0, 0
	var issued []string // the summaries the server wrote
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		beta := r.Header.Get("anthropic-beta")
		var req request
		if err := json.Unmarshal(body, &req); err != nil {
			writeError(w, http.StatusBadRequest, "", err.Error())
			return
		}
		mu.Lock()
		defer mu.Unlock()
		from, err := check(req, beta, issued)
		if err != nil {
			writeError(w, http.StatusBadRequest, "", err.Error())
			return
		}
		seen, _ := json.Marshal(req.Messages[from:])
		input := len(seen) / 4

		var content []map[string]any
		var iterations []map[string]any
		if trigger, ok := compactionTrigger(req); ok && input >= trigger {
			compactions++
			if compactions == failAt {
				writeError(w, 529, "compaction_unavailable", "Compaction is temporarily unavailable.")
				return
			}
			summary := fmt.Sprintf("The user wants the retry budget's default. The agent read internal/retry parts 1-%d: helpers only so far.", step)
			issued = append(issued, summary)
			content = append(content, map[string]any{"type": "compaction", "content": summary, "encrypted_content": "Eq=="})
			iterations = append(iterations, map[string]any{"type": "compaction", "input_tokens": input, "output_tokens": 200})
			input = 300
		}
		step++
		stop := "tool_use"
		if step <= rounds {
			content = append(content,
				readCall(fmt.Sprintf("toolu_%da", step), fmt.Sprintf("internal/retry/part%d.go", step)),
				readCall(fmt.Sprintf("toolu_%db", step), fmt.Sprintf("internal/retry/part%d_extra.go", step)))
		} else {
			stop = "end_turn"
			content = append(content, map[string]any{"type": "text",
				"text": "The retry budget is set in internal/retry/part9.go: DefaultBudget = 3 attempts."})
		}
		usage := map[string]any{"input_tokens": input, "output_tokens": 40}
		if iterations != nil {
			usage["iterations"] = append(iterations, map[string]any{"type": "message", "input_tokens": input, "output_tokens": 40})
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{
			"id": fmt.Sprintf("msg_%d", step), "type": "message", "role": "assistant", "model": modelName,
			"content": content, "stop_reason": stop, "stop_sequence": nil, "usage": usage,
			"context_management": map[string]any{"applied_edits": []any{}},
		})
	}))
}

// check refuses what the API refuses, and returns the index of the turn
// the API reads the history from: the one holding the newest compaction
// block, or 0.
func check(req request, beta string, issued []string) (from int, err error) {
	open := map[string]bool{}
	for i, m := range req.Messages {
		results := map[string]bool{}
		for j, raw := range m.Content {
			var b block
			if err := json.Unmarshal(raw, &b); err != nil {
				return 0, fmt.Errorf("messages.%d.content.%d: %v", i, j, err)
			}
			switch b.Type {
			case "compaction":
				if !strings.Contains(beta, "compact-2026-01-12") {
					return 0, fmt.Errorf("messages.%d.content.%d: 'compaction' is not one of the expected content block types", i, j)
				}
				var summary string
				if json.Unmarshal(b.Content, &summary) != nil || !slices.Contains(issued, summary) {
					return 0, fmt.Errorf("messages.%d.content.%d: the compaction block is not one this API wrote", i, j)
				}
				from, open = i, map[string]bool{}
			case "tool_result":
				if !open[b.ToolUseID] {
					return 0, fmt.Errorf("messages.%d.content.%d: tool_result %q answers no tool_use of the turn before", i, j, b.ToolUseID)
				}
				results[b.ToolUseID] = true
			}
		}
		if m.Role == "assistant" {
			open = map[string]bool{}
			for _, raw := range m.Content {
				var b block
				_ = json.Unmarshal(raw, &b)
				if b.Type == "tool_use" {
					open[b.ID] = true
				}
			}
		}
	}
	return from, nil
}

// compactionTrigger is the trigger of the request's compact_20260112 edit.
func compactionTrigger(req request) (int, bool) {
	if req.ContextManagement == nil {
		return 0, false
	}
	for _, e := range req.ContextManagement.Edits {
		if e.Type == "compact_20260112" {
			return e.Trigger.Value, true
		}
	}
	return 0, false
}

func readCall(id, path string) map[string]any {
	return map[string]any{"type": "tool_use", "id": id, "name": "read_file", "input": map[string]string{"path": path}}
}

// writeError writes an API error; code, when set, is its error_code.
func writeError(w http.ResponseWriter, status int, code, msg string) {
	e := map[string]any{"type": "invalid_request_error", "message": msg}
	if status == 529 {
		e["type"] = "overloaded_error"
	}
	if code != "" {
		e["details"] = map[string]any{"error_code": code}
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{"type": "error", "error": e})
}
