package anthropic

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// nativeAPI is a local server speaking POST /v1/messages with Anthropic's
// context management as its guides document it. It keeps every request,
// refuses a compaction block without the compaction beta (as the API
// does: the block type is unknown without it), and answers with reply, by
// default an honest one: it clears the oldest tool results and compacts
// once the request's input reaches the edits' triggers.
type nativeAPI struct {
	*httptest.Server
	mu       sync.Mutex
	requests []nativeRequest
	reply    func(w http.ResponseWriter, req nativeRequest)
}

// nativeRequest is a request as the server got it: its beta header and
// its body, read as JSON the way the API reads it.
type nativeRequest struct {
	betas string
	body  []byte
	req   struct {
		Messages []struct {
			Role    string            `json:"role"`
			Content []json.RawMessage `json:"content"`
		} `json:"messages"`
		ContextManagement *struct {
			Edits []map[string]any `json:"edits"`
		} `json:"context_management"`
	}
}

// inputTokens is the server's count of a request: a token per four bytes,
// from the newest compaction block on (the API ignores what comes before).
func (r nativeRequest) inputTokens() int {
	n := len(r.body)
	for i, m := range r.req.Messages {
		for _, b := range m.Content {
			var head struct{ Type string }
			if json.Unmarshal(b, &head) == nil && head.Type == "compaction" {
				before, _ := json.Marshal(r.req.Messages[:i])
				n = len(r.body) - len(before)
			}
		}
	}
	return n / 4
}

// edit returns the request's edit of type typ, or nil.
func (r nativeRequest) edit(typ string) map[string]any {
	if r.req.ContextManagement == nil {
		return nil
	}
	for _, e := range r.req.ContextManagement.Edits {
		if e["type"] == typ {
			return e
		}
	}
	return nil
}

// value reads e[key].value, a number.
func value(e map[string]any, key string) int {
	v, _ := e[key].(map[string]any)
	f, _ := v["value"].(float64)
	return int(f)
}

func newNativeAPI(t *testing.T) *nativeAPI {
	a := &nativeAPI{reply: honestNativeReply}
	a.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req nativeRequest
		req.body, _ = io.ReadAll(r.Body)
		req.betas = strings.Join(r.Header.Values("anthropic-beta"), ",")
		bad := json.Unmarshal(req.body, &req.req)
		a.mu.Lock()
		a.requests = append(a.requests, req)
		reply := a.reply
		a.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		if r.Method != http.MethodPost || r.URL.Path != "/v1/messages" {
			writeError(w, http.StatusNotFound, "not_found_error", "", r.Method+" "+r.URL.Path)
			return
		}
		if bad != nil {
			writeError(w, http.StatusBadRequest, "invalid_request_error", "", bad.Error())
			return
		}
		for i, m := range req.req.Messages {
			for j, b := range m.Content {
				if strings.Contains(string(b), `"type":"compaction"`) && !strings.Contains(req.betas, "compact-2026-01-12") {
					writeError(w, http.StatusBadRequest, "invalid_request_error", "",
						fmt.Sprintf("messages.%d.content.%d: 'compaction' is not one of the expected content block types", i, j))
					return
				}
			}
		}
		reply(w, req)
	}))
	t.Cleanup(a.Close)
	return a
}

func (a *nativeAPI) setReply(f func(w http.ResponseWriter, req nativeRequest)) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.reply = f
}

func (a *nativeAPI) last(t *testing.T) nativeRequest {
	t.Helper()
	a.mu.Lock()
	defer a.mu.Unlock()
	require.NotEmpty(t, a.requests, "the server got a request")
	return a.requests[len(a.requests)-1]
}

// writeError writes an API error; code, when set, is its
// error.details.error_code.
func writeError(w http.ResponseWriter, status int, typ, code, msg string) {
	e := map[string]any{"type": typ, "message": msg}
	if code != "" {
		e["details"] = map[string]any{"error_code": code}
	}
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{"type": "error", "error": e})
}

// clearedPerResult is the tokens the honest server says each cleared tool
// result took.
const clearedPerResult = 150

// answerText is what the honest server answers.
const answerText = "v2 removed the legacy flag."

// honestNativeReply answers as the API does under the request's edits:
// past the clearing trigger it clears every tool result but the last keep
// (reporting how many and a made-up token count), past the compaction
// trigger it opens its answer on a compaction block and reports the
// compaction iteration apart from the message iteration.
func honestNativeReply(w http.ResponseWriter, req nativeRequest) {
	input := req.inputTokens()
	var content []any
	var iterations []any
	var applied []any
	after := input
	if e := req.edit("clear_tool_uses_20250919"); e != nil && input >= value(e, "trigger") {
		results := strings.Count(string(req.body), `"type":"tool_result"`)
		if n := results - value(e, "keep"); n > 0 {
			applied = append(applied, map[string]any{"type": "clear_tool_uses_20250919", "cleared_tool_uses": n, "cleared_input_tokens": clearedPerResult * n})
			after -= clearedPerResult * n
		}
	}
	if e := req.edit("compact_20260112"); e != nil && input >= value(e, "trigger") {
		content = append(content, map[string]any{"type": "compaction", "content": providerSummary, "encrypted_content": "EncOpaque=="})
		iterations = append(iterations, map[string]any{"type": "compaction", "input_tokens": 20, "cache_read_input_tokens": input - 20,
			"cache_creation_input_tokens": 0, "output_tokens": 300})
		after = 400
	}
	stop := "end_turn"
	if e := req.edit("compact_20260112"); len(content) > 0 && e["pause_after_compaction"] == true {
		stop = "compaction"
	} else {
		content = append(content, map[string]any{"type": "text", "text": answerText})
	}
	usage := map[string]any{"input_tokens": after, "output_tokens": 12}
	if len(iterations) > 0 {
		if stop != "compaction" {
			iterations = append(iterations, map[string]any{"type": "message", "input_tokens": after, "output_tokens": 12})
		} else {
			usage = map[string]any{"input_tokens": 0, "output_tokens": 0}
		}
		usage["iterations"] = iterations
	}
	msg := map[string]any{"id": "msg_native", "type": "message", "role": "assistant", "model": "claude-test",
		"content": content, "stop_reason": stop, "stop_sequence": nil, "usage": usage}
	if req.req.ContextManagement != nil {
		if applied == nil {
			applied = []any{}
		}
		msg["context_management"] = map[string]any{"applied_edits": applied}
	}
	_ = json.NewEncoder(w).Encode(msg)
}
