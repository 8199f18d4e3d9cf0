package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"

	"github.com/openai/openai-go/v3/responses"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/adapt/openaigo"
	"github.com/contextkit/compact/internal/msg"
)

// modelName is what the local server calls its model.
const modelName = "local-test-model"

// rounds is how many turns of a read and a search the scripted model makes
// before it answers.
const rounds = 12

// failingCompaction is the compaction request the server fails (with a
// 500), so that the run shows the fallback.
const failingCompaction = 2

// newModelServer starts a scripted model speaking the Responses API on a
// local port. It checks every request the way the provider would (an
// output with no call, an unanswered call, or reasoning without what it
// led to is a 400), answers each with a reasoning item and a read and a
// search in parallel, or with the answer once it has read enough, and
// compacts as POST /responses/compact does: the user messages, then one
// compaction item.
func newModelServer() *httptest.Server {
	s := &server{}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/responses", s.respond)
	mux.HandleFunc("POST /v1/responses/compact", s.compact)
	return httptest.NewServer(mux)
}

type server struct {
	mu                 sync.Mutex
	steps, compactions int
}

// next counts one more request in counter, and returns the count.
func (s *server) next(counter *int) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	*counter++
	return *counter
}

// request reads a request's input and checks it as the provider would.
func request(w http.ResponseWriter, r *http.Request) ([]responses.ResponseInputItemUnionParam, bool) {
	body, _ := io.ReadAll(r.Body)
	var req struct {
		Input json.RawMessage `json:"input"`
	}
	err := json.Unmarshal(body, &req)
	var items []responses.ResponseInputItemUnionParam
	if err == nil {
		items, err = openaigo.DecodeItems(req.Input)
	}
	if err == nil {
		err = openaigo.ValidateItems(items)
	}
	w.Header().Set("Content-Type", "application/json")
	if err != nil {
		w.WriteHeader(http.StatusBadRequest)
		_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]string{"message": err.Error(), "type": "invalid_request_error"}})
		return nil, false
	}
	return items, true
}

// promptTokens estimates a prompt the way a provider's count runs: about
// four characters a token, and a few tokens an item.
func promptTokens(items []responses.ResponseInputItemUnionParam) int {
	conv, err := openaigo.ConvertItems(items)
	if err != nil {
		return 0
	}
	n := 0
	for _, m := range conv.Messages {
		n += (len(compact.Text(m))+len(msg.ToolCallText(m)))/4 + 4
	}
	return n
}

func (s *server) respond(w http.ResponseWriter, r *http.Request) {
	items, ok := request(w, r)
	if !ok {
		return
	}
	n := s.next(&s.steps)
	output := []map[string]any{{"type": "reasoning", "id": fmt.Sprintf("rs_%d", n), "summary": []any{},
		"encrypted_content": strings.Repeat("gAAAAB", 40)}}
	if n <= rounds {
		output = append(output,
			map[string]any{"type": "function_call", "id": fmt.Sprintf("fc_%d", n), "call_id": fmt.Sprintf("call_%da", n), "name": "read_file",
				"arguments": fmt.Sprintf(`{"path":"internal/retry/part%d.go"}`, n), "status": "completed"},
			map[string]any{"type": "custom_tool_call", "id": fmt.Sprintf("ctc_%d", n), "call_id": fmt.Sprintf("call_%db", n), "name": "grep",
				"input": fmt.Sprintf("Budget part%d", n)})
	} else {
		output = append(output, map[string]any{"type": "message", "id": fmt.Sprintf("msg_%d", n), "role": "assistant", "status": "completed",
			"content": []any{map[string]any{"type": "output_text", "annotations": []any{},
				"text": "The retry budget is set in internal/retry/part6.go: DefaultBudget = 3 attempts."}}})
	}
	prompt := promptTokens(items)
	_ = json.NewEncoder(w).Encode(map[string]any{
		"id": fmt.Sprintf("resp_%d", n), "object": "response", "created_at": 1767225600, "model": modelName, "status": "completed",
		"output": output, "parallel_tool_calls": true, "tool_choice": "auto", "tools": []any{},
		"usage": usage(prompt, 30),
	})
}

func (s *server) compact(w http.ResponseWriter, r *http.Request) {
	items, ok := request(w, r)
	if !ok {
		return
	}
	n := s.next(&s.compactions)
	if n == failingCompaction {
		w.WriteHeader(http.StatusInternalServerError)
		fmt.Fprint(w, `{"error":{"message":"The server had an error while processing your request.","type":"server_error"}}`)
		return
	}
	conv, _ := openaigo.ConvertItems(items)
	var output []any
	for _, m := range conv.Messages {
		if compact.IsRealUser(m) {
			output = append(output, map[string]any{"type": "message", "role": "user",
				"content": []any{map[string]any{"type": "input_text", "text": compact.Text(m)}}})
		}
	}
	output = append(output, map[string]any{"type": "compaction", "id": fmt.Sprintf("cmp_%d", n), "encrypted_content": strings.Repeat("gAAAAC", 60)})
	_ = json.NewEncoder(w).Encode(map[string]any{
		"id": fmt.Sprintf("resp_cmp_%d", n), "object": "response.compaction", "created_at": 1767225600,
		"output": output, "usage": usage(promptTokens(items), 400),
	})
}

func usage(prompt, completion int) map[string]any {
	return map[string]any{"input_tokens": prompt, "input_tokens_details": map[string]int{"cached_tokens": 0},
		"output_tokens": completion, "output_tokens_details": map[string]int{"reasoning_tokens": completion / 2},
		"total_tokens": prompt + completion}
}
