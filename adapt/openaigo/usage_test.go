package openaigo

import (
	"encoding/json"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/contextkit/compact"
)

// UsageFrom reads the usage block of a chat completion as the API sends
// it: prompt_tokens_details.cached_tokens are the tokens read from the
// cache; OpenAI reports no writes, so none are recorded.
func TestUsageFromReadsTheCachedTokensOfTheWireFormat(t *testing.T) {
	tests := []struct {
		name string
		wire string
		want compact.Usage
	}{
		{"a warm cache",
			`{"prompt_tokens":5000,"completion_tokens":40,"total_tokens":5040,"prompt_tokens_details":{"cached_tokens":4864}}`,
			compact.Usage{PromptTokens: 5000, CompletionTokens: 40, TotalTokens: 5040, CachedTokens: 4864}},
		{"no details",
			`{"prompt_tokens":700,"completion_tokens":5,"total_tokens":705}`,
			compact.Usage{PromptTokens: 700, CompletionTokens: 5, TotalTokens: 705}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var u openai.CompletionUsage
			require.NoError(t, json.Unmarshal([]byte(tt.wire), &u))
			assert.Equal(t, tt.want, UsageFrom(u))
		})
	}
}
