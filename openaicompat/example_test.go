package openaicompat_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/openaicompat"
)

// ExampleNew points a summarizer at an OpenAI-compatible
// endpoint. Here a test server stands in for it; for a local model, use its
// base URL instead: "http://localhost:11434/v1" for Ollama,
// "http://localhost:8080/v1" for llama.cpp's server, "http://localhost:8000/v1"
// for vLLM. Local servers need no API key. The library reads no environment
// variables: pass the key and URL in (the compact command reads
// OPENAI_API_KEY and OPENAI_BASE_URL).
func ExampleNew() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// A real endpoint would read the system and user messages here.
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{
			"choices": []map[string]any{{
				"message":       map[string]any{"role": "assistant", "content": "The user asked for a deploy; v2 is live."},
				"finish_reason": "stop",
			}},
		})
	}))
	defer srv.Close()

	s, err := openaicompat.New("llama3.1:8b",
		openaicompat.WithBaseURL(srv.URL+"/v1"),
	)
	if err != nil {
		fmt.Println(err)
		return
	}
	summary, err := s.Summarize(context.Background(), compact.SummaryRequest{
		Turns: []compact.Message{
			{Role: compact.RoleUser, Content: "Deploy v2, please."},
			{Role: compact.RoleAssistant, Content: "Done: v2 is live."},
		},
		TargetTokens: 500,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(s.Name())
	fmt.Println(summary)
	// Output:
	// openai:llama3.1:8b
	// The user asked for a deploy; v2 is live.
}

// ExampleError tells a failure that retrying cannot fix from one
// it can: a rejected key wraps ErrSummarizerAuth, so a compaction aborts
// instead of falling back to another summary.
func ExampleError() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		_, _ = fmt.Fprint(w, `{"error":{"message":"Incorrect API key provided.","type":"invalid_request_error","code":"invalid_api_key"}}`)
	}))
	defer srv.Close()

	s, err := openaicompat.New("gpt-4o-mini",
		openaicompat.WithBaseURL(srv.URL+"/v1"),
		openaicompat.WithAPIKey("sk-not-a-real-key-0123456789"),
	)
	if err != nil {
		fmt.Println(err)
		return
	}
	_, err = s.Summarize(context.Background(), compact.SummaryRequest{
		Turns: []compact.Message{{Role: compact.RoleUser, Content: "hello"}},
	})
	var se *openaicompat.Error
	if errors.As(err, &se) {
		fmt.Println("status:", se.StatusCode, "code:", se.Code, "attempts:", se.Attempts)
	}
	fmt.Println("auth failure:", errors.Is(err, compact.ErrSummarizerAuth))
	fmt.Println(err)
	// Output:
	// status: 401 code: invalid_api_key attempts: 1
	// auth failure: true
	// compact: summarizer rejected the credentials: openai:gpt-4o-mini: HTTP 401 (invalid_api_key): Incorrect API key provided.
}

// A summarizer on the agent's own model shares the agent's prompt cache: a
// Compressor that knows the prices offers it the history as the agent sent
// it (compact.SummaryRequest.History), which it sends followed by one
// instruction. For another model, or an endpoint without a cache, it
// renders the turns.
func ExampleWithPrefixSharing() {
	same, _ := openaicompat.New("claude-sonnet-4-5")
	off, _ := openaicompat.New("claude-sonnet-4-5", openaicompat.WithPrefixSharing(false))
	fmt.Println(same.SharesPrefix("claude-sonnet-4-5"), same.SharesPrefix("gpt-5"), off.SharesPrefix("claude-sonnet-4-5"))
	// Output: true false false
}

// The message that follows a shared history names what to leave out.
func ExampleSharedInstruction() {
	text := openaicompat.SharedInstruction(compact.SummaryRequest{Prompt: "Write a handoff note.", Kept: 4, TargetTokens: 1500})
	fmt.Println(text)
	// Output:
	// Write a handoff note.
	//
	// Write that note now for the conversation above, as your whole reply. Do not call any tool and do not carry on with the task. Its last 4 messages stay in the context verbatim after your note: leave them out. Where the conversation holds an earlier context handoff, your note replaces it: carry forward what of it still matters. Aim for about 1500 tokens.
}
