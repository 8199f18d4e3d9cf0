package langchaingo

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tmc/langchaingo/llms"

	"github.com/contextkit/compact"
)

func TestCompressUnderTheThresholdReturnsTheHistoryItself(t *testing.T) {
	msgs := decode(t, everyPartJSON)
	out, res, err := Compress(context.Background(), compact.New(compact.WithContextWindow(200_000)), msgs)
	require.NoError(t, err)
	assert.NotEmpty(t, res.Skipped)
	assert.Same(t, &msgs[0], &out[0], "no copy, no conversion back")
}

func TestCompressNamesTheMessageBehindAnEngineError(t *testing.T) {
	msgs := []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "q"), llms.TextParts(llms.ChatMessageTypeAI, "a"),
		msg(llms.ChatMessageTypeTool, response("ghost", "f", "orphan"))}
	_, _, err := Compress(context.Background(), compact.New(), msgs, compact.Force())
	require.ErrorIs(t, err, compact.ErrInvalidHistory)
	assert.Contains(t, err.Error(), "langchaingo: message 2: ")
}

// brokenEngine is a Compressor whose Compress answers with an orphan tool
// result.
type brokenEngine struct{ *compact.Compressor }

func (brokenEngine) Compress(context.Context, []compact.Message, ...compact.CompressOption) (*compact.Result, error) {
	return &compact.Result{Messages: []compact.Message{
		{Role: compact.RoleUser, Content: "q"},
		{Role: compact.RoleTool, ToolCallID: "nobody", Content: "orphan"},
	}}, nil
}

func TestCompressRefusesToHandBackABrokenShape(t *testing.T) {
	msgs := []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "q")}
	_, _, err := Compress(context.Background(), brokenEngine{compact.New()}, msgs)
	require.ErrorIs(t, err, ErrShape, "a valid history never comes back invalid, whatever the engine does")
}

func TestShouldCompressCountsTheConvertedHistory(t *testing.T) {
	msgs := decode(t, everyPartJSON)
	for window, want := range map[int]bool{200_000: false, 300: true} {
		ok, err := ShouldCompress(compact.New(compact.WithContextWindow(window)), msgs)
		require.NoError(t, err)
		assert.Equal(t, want, ok, "window %d", window)
	}
	_, err := ShouldCompress(compact.New(), []llms.MessageContent{msg("critic")})
	require.ErrorIs(t, err, compact.ErrInvalidHistory)
}

func TestUsageFromReadsEveryProvidersKeys(t *testing.T) {
	tests := []struct {
		name string
		info map[string]any
		want compact.Usage
	}{
		{"OpenAI", map[string]any{"PromptTokens": 1200, "CompletionTokens": 300, "TotalTokens": 1500, "PromptCachedTokens": 1000},
			compact.Usage{PromptTokens: 1200, CompletionTokens: 300, TotalTokens: 1500, CachedTokens: 1000}},
		{"Anthropic, whose cache reads and writes are prompt too", map[string]any{"InputTokens": 200, "OutputTokens": 50,
			"CacheReadInputTokens": 1000, "CacheCreationInputTokens": 100},
			compact.Usage{PromptTokens: 1300, CompletionTokens: 50, TotalTokens: 1350, CachedTokens: 1000, CacheWriteTokens: 100}},
		{"numbers decoded from JSON", map[string]any{"PromptTokens": 10.0, "CompletionTokens": int64(2)},
			compact.Usage{PromptTokens: 10, CompletionTokens: 2, TotalTokens: 12}},
		{"nothing", nil, compact.Usage{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, UsageFrom(tt.info))
		})
	}
}
