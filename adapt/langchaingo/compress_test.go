package langchaingo

import (
	"context"
	"strings"
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

// reusedIDHistory is issue 35's repro in langchaingo's types: an agent that
// numbers its calls afresh each turn calls c1 twice; the first response,
// long enough that a compaction at an 8k window prunes it, shares its tool
// message with a second response and is held by pointer.
func reusedIDHistory() []llms.MessageContent {
	first := response("c1", "search", strings.Repeat("flags.go:12: parse the --legacy flag here\n", 300))
	return []llms.MessageContent{
		llms.TextParts(llms.ChatMessageTypeHuman, "Find where the flags are parsed."),
		msg(llms.ChatMessageTypeAI, call("c1", "search", `{"q":"flags"}`), call("c2", "grep", `{"q":"legacy"}`)),
		msg(llms.ChatMessageTypeTool, &first, response("c2", "grep", "cmd/flags.go:12: legacy")),
		llms.TextParts(llms.ChatMessageTypeHuman, "And the defaults?"),
		msg(llms.ChatMessageTypeAI, call("c1", "search", `{"q":"defaults"}`)),
		msg(llms.ChatMessageTypeTool, response("c1", "search", "defaults.go:3: var legacy = false")),
	}
}

func TestCompressAPrunedResponseWhoseCallIDRepeatsKeepsItsMessage(t *testing.T) {
	in := reusedIDHistory()
	out, res, err := Compress(context.Background(), compact.New(compact.WithContextWindow(8000)), in, compact.Force())
	require.NoError(t, err)
	require.NotEmpty(t, res.Pruned, "the long response is pruned")
	require.Len(t, out, len(in), "the pruned response stays in the tool message it shared")
	require.Len(t, out[2].Parts, 2)
	pruned, ok := out[2].Parts[0].(*llms.ToolCallResponse)
	require.True(t, ok, "the pruned response is still held by pointer, not %T", out[2].Parts[0])
	assert.Equal(t, "c1", pruned.ToolCallID)
	assert.Equal(t, "search", pruned.Name)
	assert.True(t, strings.HasPrefix(pruned.Content, "[pruned]"), "%.40q", pruned.Content)
	assert.Equal(t, in[2].Parts[1], out[2].Parts[1])
	assert.Equal(t, in[len(in)-1], out[len(out)-1])
}

func TestCompressMergesTheSummaryIntoABlankLastTurn(t *testing.T) {
	tests := []struct {
		name string
		last llms.MessageContent
	}{
		{"whitespace", llms.TextParts(llms.ChatMessageTypeHuman, " ")},
		{"an empty text", llms.TextParts(llms.ChatMessageTypeHuman, "")},
		{"no part", msg(llms.ChatMessageTypeHuman)},
		{"an image and whitespace", msg(llms.ChatMessageTypeHuman, llms.ImageURLContent{URL: "https://example.com/a.png"}, llms.TextContent{Text: "\n"})},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			msgs := []llms.MessageContent{
				llms.TextParts(llms.ChatMessageTypeHuman, strings.Repeat("Read the spec. ", 80)),
				llms.TextParts(llms.ChatMessageTypeAI, strings.Repeat("It says a lot. ", 80)),
				tt.last,
			}
			out, _, err := Compress(context.Background(), compact.New(compact.WithContextWindow(400), compact.WithHeadMessages(0)), msgs, compact.Force())
			require.NoError(t, err)
			require.NoError(t, Validate(out))
			last := out[len(out)-1]
			require.Equal(t, llms.ChatMessageTypeHuman, last.Role)
			require.NotEmpty(t, last.Parts)
			lead, ok := last.Parts[0].(llms.TextContent)
			require.True(t, ok, "the summary is a text part of its own")
			assert.True(t, strings.HasPrefix(lead.Text, "[Context handoff]"))
			if len(tt.last.Parts) == 0 {
				assert.Len(t, last.Parts, 1, "the summary alone")
			} else {
				assert.Equal(t, tt.last.Parts, last.Parts[1:], "the turn's own parts, as they were")
			}
		})
	}
}
