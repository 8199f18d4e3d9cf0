package openaigo

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/tokens"
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

// The usage a provider reports counts what the conversion cannot see (a
// file's contents, here): fed back with UsageFrom, a report over the
// threshold makes the next check compact, though the converted history
// counts under it.
func TestUsageCountsWhatTheConversionCannotSee(t *testing.T) {
	ctx := context.Background()
	engine := compact.New(compact.WithModel("gpt-4o"), compact.WithContextWindow(16_000))
	th := engine.Status().Threshold
	msgs := decode(t, `[{"role":"system","content":"You are a research assistant."},
		{"role":"user","content":[{"type":"text","text":"Summarise the attached report."},
			{"type":"file","file":{"file_data":"JVBERi0xLjQK","filename":"report.pdf"}}]}]`)
	for i := 0; ; i++ {
		conv, err := Convert(msgs)
		require.NoError(t, err)
		if tokens.CountMessages(engine.Counter(), conv.Messages) >= th/2 {
			break
		}
		msgs = append(msgs, openai.AssistantMessage(fmt.Sprintf("Section %d: %s", i, strings.Repeat("the findings hold ", 60))),
			openai.UserMessage(fmt.Sprintf("And section %d?", i+1)))
	}
	should, err := ShouldCompress(engine, msgs)
	require.NoError(t, err)
	require.False(t, should, "the converted history counts under the threshold")

	var u openai.CompletionUsage
	require.NoError(t, json.Unmarshal([]byte(fmt.Sprintf(`{"prompt_tokens":%d,"completion_tokens":40,"total_tokens":%d}`, th+500, th+540)), &u))
	engine.UpdateUsage(UsageFrom(u)) // the provider read the file
	msgs = append(msgs, openai.AssistantMessage("Here is the summary."), openai.UserMessage("Thanks. One more question."))
	should, err = ShouldCompress(engine, msgs)
	require.NoError(t, err)
	assert.True(t, should, "the report makes the next check compact")
	_, res, err := Compress(ctx, engine, msgs)
	require.NoError(t, err)
	assert.Empty(t, res.Skipped)
}
