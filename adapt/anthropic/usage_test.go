package anthropic

import (
	"encoding/json"
	"testing"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
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

// A response that took several sampling iterations reports each in
// usage.iterations: the window is the last message iteration's context,
// and the total counts every token billed, the compaction pass's too,
// which the top-level fields leave out.
func TestUsageFromReadsTheIterations(t *testing.T) {
	tests := []struct {
		name       string
		wire       string
		want       compact.Usage
		compaction compact.Usage
		compacted  bool
	}{
		{"a compaction, then the answer",
			`{"input_tokens":2000,"cache_read_input_tokens":1000,"cache_creation_input_tokens":500,"output_tokens":80,
			  "iterations":[
			   {"type":"compaction","input_tokens":400,"cache_read_input_tokens":150000,"cache_creation_input_tokens":0,"output_tokens":3000},
			   {"type":"message","input_tokens":2000,"cache_read_input_tokens":1000,"cache_creation_input_tokens":500,"output_tokens":80}]}`,
			compact.Usage{PromptTokens: 3500, CompletionTokens: 80, TotalTokens: 3580 + 153400, CachedTokens: 1000, CacheWriteTokens: 500},
			compact.Usage{PromptTokens: 150400, CompletionTokens: 3000, TotalTokens: 153400, CachedTokens: 150000}, true},
		{"a server tool loop: the top level adds the message iterations up",
			`{"input_tokens":9000,"output_tokens":300,
			  "iterations":[{"type":"message","input_tokens":4000,"output_tokens":100},{"type":"message","input_tokens":5000,"output_tokens":200}]}`,
			compact.Usage{PromptTokens: 5000, CompletionTokens: 300, TotalTokens: 9300},
			compact.Usage{}, false},
		{"a paused compaction: no message iteration",
			`{"input_tokens":0,"output_tokens":0,"iterations":[{"type":"compaction","input_tokens":60000,"output_tokens":900}]}`,
			compact.Usage{PromptTokens: 0, CompletionTokens: 0, TotalTokens: 60900},
			compact.Usage{PromptTokens: 60000, CompletionTokens: 900, TotalTokens: 60900}, true},
		{"an advisor's iteration is not the window",
			`{"input_tokens":700,"output_tokens":50,
			  "iterations":[{"type":"message","input_tokens":600,"output_tokens":30},{"type":"advisor_message","input_tokens":100,"output_tokens":20,"model":"claude-x"}]}`,
			compact.Usage{PromptTokens: 600, CompletionTokens: 50, TotalTokens: 750},
			compact.Usage{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var u sdk.Usage
			require.NoError(t, json.Unmarshal([]byte(tt.wire), &u))
			assert.Equal(t, tt.want, UsageFrom(u))
			got, ok := CompactionUsage(u)
			assert.Equal(t, tt.compacted, ok)
			assert.Equal(t, tt.compaction, got)
		})
	}
}
