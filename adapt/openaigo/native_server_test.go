package openaigo

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/stretchr/testify/require"

	"github.com/contextkit/compact"
)

// compactAPI is a local server speaking POST /v1/responses/compact as the
// API reference documents it: it keeps every request, and answers with
// reply (by default the honest one: every user message of the input, then
// one compaction item, and the usage).
type compactAPI struct {
	*httptest.Server
	mu       sync.Mutex
	requests []capturedRequest
	reply    func(w http.ResponseWriter, r *http.Request, req compactRequest)
}

type capturedRequest struct {
	method, path, auth, trace string
	body                      []byte
}

// compactRequest is a compaction request's body.
type compactRequest struct {
	Model        string            `json:"model"`
	Instructions string            `json:"instructions"`
	Input        []json.RawMessage `json:"input"`
}

func newCompactAPI(t *testing.T) *compactAPI {
	a := &compactAPI{reply: honestReply}
	a.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		a.mu.Lock()
		a.requests = append(a.requests, capturedRequest{r.Method, r.URL.Path, r.Header.Get("Authorization"), r.Header.Get("X-Trace"), body})
		reply := a.reply
		a.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		if r.Method != http.MethodPost || r.URL.Path != "/v1/responses/compact" {
			w.WriteHeader(http.StatusNotFound)
			fmt.Fprintf(w, `{"error":{"message":"%s %s","type":"invalid_request_error"}}`, r.Method, r.URL.Path)
			return
		}
		var req compactRequest
		if err := json.Unmarshal(body, &req); err != nil || req.Model == "" {
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprint(w, `{"error":{"message":"model and input are required","type":"invalid_request_error"}}`)
			return
		}
		reply(w, r, req)
	}))
	t.Cleanup(a.Close)
	return a
}

func (a *compactAPI) setReply(f func(w http.ResponseWriter, r *http.Request, req compactRequest)) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.reply = f
}

func (a *compactAPI) calls() []capturedRequest {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]capturedRequest(nil), a.requests...)
}

// compactionBlob is the encrypted content the server's compaction items
// carry.
const compactionBlob = "gAAAAABopaque-compaction-state"

// honestReply answers as the API does: the user messages of the input, as
// output items with ids, then one compaction item.
func honestReply(w http.ResponseWriter, _ *http.Request, req compactRequest) {
	var output []any
	for i, raw := range req.Input {
		var m struct {
			Type    string          `json:"type"`
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		}
		_ = json.Unmarshal(raw, &m)
		if (m.Type == "" || m.Type == "message") && m.Role == "user" {
			text, parts, _ := messageContent(wire{Content: m.Content})
			if text == "" {
				text = compact.Text(compact.Message{MultiContent: parts})
			}
			output = append(output, map[string]any{"type": "message", "role": "user", "id": fmt.Sprintf("msg_%d", i),
				"status": "completed", "content": []any{map[string]any{"type": "input_text", "text": text}}})
		}
	}
	output = append(output, map[string]any{"type": "compaction", "id": "cmp_1", "encrypted_content": compactionBlob})
	writeCompacted(w, output)
}

// writeCompacted writes a compaction reply holding output.
func writeCompacted(w http.ResponseWriter, output []any) {
	_ = json.NewEncoder(w).Encode(map[string]any{
		"id": "resp_cmp_1", "object": "response.compaction", "created_at": 1767225600,
		"output": output,
		"usage": map[string]any{"input_tokens": 12000, "input_tokens_details": map[string]any{"cached_tokens": 8000, "cache_write_tokens": 0},
			"output_tokens": 900, "output_tokens_details": map[string]any{"reasoning_tokens": 600}, "total_tokens": 12900},
	})
}

// newResponsesClient is an SDK client for url that never retries, so that
// every failure reaches the engine at once.
func newResponsesClient(url string) openai.Client {
	return openai.NewClient(option.WithAPIKey("test-key"), option.WithBaseURL(url+"/v1/"), option.WithMaxRetries(0))
}

func requireRequest(t *testing.T, r capturedRequest) compactRequest {
	t.Helper()
	require.Equal(t, http.MethodPost, r.method)
	require.Equal(t, "/v1/responses/compact", r.path)
	require.Equal(t, "Bearer test-key", r.auth)
	var req compactRequest
	require.NoError(t, json.Unmarshal(r.body, &req))
	return req
}
