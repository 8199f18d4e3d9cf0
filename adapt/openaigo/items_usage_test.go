package openaigo

import (
	"encoding/json"
	"testing"

	"github.com/openai/openai-go/v3/responses"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/contextkit/compact"
)

// UsageFromResponse reads the usage block of a response as the API sends
// it: input_tokens_details holds the tokens read from the cache and those
// written to it.
func TestUsageFromResponseReadsTheCacheOfTheWireFormat(t *testing.T) {
	var u responses.ResponseUsage
	require.NoError(t, json.Unmarshal([]byte(`{"input_tokens":5000,"input_tokens_details":{"cached_tokens":4096,"cache_write_tokens":512},
		"output_tokens":40,"output_tokens_details":{"reasoning_tokens":30},"total_tokens":5040}`), &u))
	assert.Equal(t, compact.Usage{PromptTokens: 5000, CompletionTokens: 40, TotalTokens: 5040, CachedTokens: 4096, CacheWriteTokens: 512},
		UsageFromResponse(u))
}
