package anthropicv1

import (
	"encoding/json"
	"testing"

	sdk "github.com/anthropics/anthropic-sdk-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/contextkit/compact"
)

// UsageFrom reads the usage block of a Messages API response as the API
// sends it: the prompt is every input token, cache_read_input_tokens are
// the tokens read from the cache and cache_creation_input_tokens those
// written to it.
func TestUsageFromReadsTheCacheFieldsOfTheWireFormat(t *testing.T) {
	tests := []struct {
		name string
		wire string
		want compact.Usage
	}{
		{"a cold cache: the prefix is written",
			`{"input_tokens":12,"cache_creation_input_tokens":4000,"cache_read_input_tokens":0,"output_tokens":50}`,
			compact.Usage{PromptTokens: 4012, CompletionTokens: 50, TotalTokens: 4062, CacheWriteTokens: 4000}},
		{"a warm cache: the prefix is read, the new turn written",
			`{"input_tokens":3,"cache_creation_input_tokens":250,"cache_read_input_tokens":4000,"output_tokens":20,
			  "cache_creation":{"ephemeral_5m_input_tokens":250,"ephemeral_1h_input_tokens":0}}`,
			compact.Usage{PromptTokens: 4253, CompletionTokens: 20, TotalTokens: 4273, CachedTokens: 4000, CacheWriteTokens: 250}},
		{"no caching at all",
			`{"input_tokens":900,"output_tokens":10}`,
			compact.Usage{PromptTokens: 900, CompletionTokens: 10, TotalTokens: 910}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var u sdk.Usage
			require.NoError(t, json.Unmarshal([]byte(tt.wire), &u))
			assert.Equal(t, tt.want, UsageFrom(u))
		})
	}
}
