package compact_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/compacttest"
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

func openAISummarizer(t *testing.T) *compact.OpenAISummarizer {
	t.Helper()
	s, err := compact.NewOpenAISummarizer("test-model",
		compact.WithOpenAIBaseURL(fakeModel(t).URL+"/v1"), compact.WithOpenAIAPIKey("test-key"))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// The Compressor keeps every contract with each summarizer this package
// ships.
func TestCompressorConformance(t *testing.T) {
	cheap := compact.WithTokenCounter(compact.EstimateCounter{})
	t.Run("extractive", func(t *testing.T) {
		compacttest.Run(t, func() compact.ContextEngine {
			return compact.New(compact.WithContextWindow(4000), cheap)
		})
	})
	t.Run("openai", func(t *testing.T) {
		s := openAISummarizer(t)
		compacttest.Run(t, func() compact.ContextEngine {
			return compact.New(compact.WithContextWindow(4000), cheap, compact.WithSummarizer(s))
		})
	})
	t.Run("exact token counts", func(t *testing.T) {
		compacttest.Run(t, func() compact.ContextEngine { return compact.New(compact.WithContextWindow(4000)) })
	})
}

// Each summarizer this package ships keeps the Summarizer contract.
func TestSummarizerConformance(t *testing.T) {
	t.Run("extractive", func(t *testing.T) { compacttest.RunSummarizer(t, compact.NewExtractiveSummarizer()) })
	t.Run("openai", func(t *testing.T) { compacttest.RunSummarizer(t, openAISummarizer(t)) })
}
