package openaicompat_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/compacttest"
	"github.com/contextkit/compact/openaicompat"
	"github.com/contextkit/compact/tokens"
	openai "github.com/sashabaranov/go-openai"
)

// fakeModel serves the Chat Completions API with a deterministic "model"
// that writes a short handoff note and carries its previous summary
// forward, as the summary prompt asks.
func fakeModel(t *testing.T) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req openai.ChatCompletionRequest
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		material := req.Messages[len(req.Messages)-1].Content
		note := "## Current state\nThe agent was fixing the store's compaction test."
		if i := strings.Index(material, "<previous-summary>"); i >= 0 {
			if j := strings.Index(material[i:], "</previous-summary>"); j >= 0 {
				note += "\n## Earlier\n" + strings.TrimSpace(material[i+len("<previous-summary>"):i+j])
			}
		}
		_ = json.NewEncoder(w).Encode(openai.ChatCompletionResponse{
			Model: req.Model,
			Choices: []openai.ChatCompletionChoice{{
				Message:      openai.ChatCompletionMessage{Role: openai.ChatMessageRoleAssistant, Content: note},
				FinishReason: openai.FinishReasonStop,
			}},
		})
	}))
	t.Cleanup(srv.Close)
	return srv
}

func openAISummarizer(t *testing.T) *openaicompat.Summarizer {
	t.Helper()
	s, err := openaicompat.New("test-model",
		openaicompat.WithBaseURL(fakeModel(t).URL+"/v1"), openaicompat.WithAPIKey("test-key"))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// A Compressor summarising through this package keeps every contract, and
// so does the summarizer itself.
func TestConformance(t *testing.T) {
	t.Run("compressor", func(t *testing.T) {
		s := openAISummarizer(t)
		compacttest.Run(t, func() compact.ContextEngine {
			return compact.New(compact.WithContextWindow(4000),
				compact.WithTokenCounter(tokens.Estimator{}), compact.WithSummarizer(s))
		})
	})
	t.Run("summarizer", func(t *testing.T) { compacttest.RunSummarizer(t, openAISummarizer(t)) })
}
