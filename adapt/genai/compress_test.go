package genai

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	sdk "google.golang.org/genai"

	"github.com/contextkit/compact"
)

func TestCompressUnderTheThresholdReturnsTheHistoryItself(t *testing.T) {
	h := longHistory(t, 2)
	out, res, err := Compress(context.Background(), compact.New(compact.WithContextWindow(200_000)), h)
	require.NoError(t, err)
	assert.NotEmpty(t, res.Skipped)
	assert.Same(t, &h.Contents[0], &out.Contents[0], "no copy, no conversion back")
}

func TestCompressNamesTheContentBehindAnEngineError(t *testing.T) {
	h := History{Contents: []*sdk.Content{user(text("q")), model(text("a")), user(fresp("", "ghost", "orphan"))}}
	_, _, err := Compress(context.Background(), compact.New(), h, compact.Force())
	require.ErrorIs(t, err, compact.ErrInvalidHistory)
	assert.Contains(t, err.Error(), "genai: History.Contents[2]: ")
}

// brokenEngine is a Compressor whose Compress answers with a history that
// breaks the API's shape.
type brokenEngine struct{ *compact.Compressor }

func (brokenEngine) Compress(context.Context, []compact.Message, ...compact.CompressOption) (*compact.Result, error) {
	return &compact.Result{Messages: []compact.Message{
		{Role: compact.RoleUser, Content: "q"},
		{Role: compact.RoleTool, ToolCallID: "nobody", Content: "orphan"},
	}}, nil
}

func TestCompressRefusesToHandBackABrokenShape(t *testing.T) {
	h := History{Contents: []*sdk.Content{user(text("q"))}}
	_, _, err := Compress(context.Background(), brokenEngine{compact.New()}, h)
	require.ErrorIs(t, err, ErrShape, "a valid history never comes back invalid, whatever the engine does")
}

// silentEngine is a Compressor that cannot preflight: it judges by the
// usage it last recorded.
type silentEngine struct{ compact.ContextEngine }

func TestShouldCompressAsksAnEngineThatCannotPreflightByItsUsage(t *testing.T) {
	engine := silentEngine{compact.New(compact.WithContextWindow(10_000))}
	h := History{Contents: []*sdk.Content{user(text("q"))}}
	ok, err := ShouldCompress(engine, h)
	require.NoError(t, err)
	assert.False(t, ok, "no usage recorded yet")
	engine.UpdateUsage(UsageFrom(&sdk.GenerateContentResponseUsageMetadata{PromptTokenCount: 9_000}))
	ok, err = ShouldCompress(engine, h)
	require.NoError(t, err)
	assert.True(t, ok, "the last prompt was over the threshold")

	_, err = ShouldCompress(engine, History{Contents: []*sdk.Content{nil}})
	require.ErrorIs(t, err, compact.ErrInvalidHistory)
}

func TestUsageFromCountsThoughtsAsOutput(t *testing.T) {
	u := UsageFrom(&sdk.GenerateContentResponseUsageMetadata{PromptTokenCount: 1200, CachedContentTokenCount: 1000,
		CandidatesTokenCount: 300, ThoughtsTokenCount: 500, ToolUsePromptTokenCount: 40})
	assert.Equal(t, compact.Usage{PromptTokens: 1200, CompletionTokens: 800, TotalTokens: 2040, CachedTokens: 1000}, u)
	u = UsageFrom(&sdk.GenerateContentResponseUsageMetadata{PromptTokenCount: 10, CandidatesTokenCount: 1, TotalTokenCount: 12})
	assert.Equal(t, 12, u.TotalTokens, "the API's total wins when it sends one")
	assert.Equal(t, compact.Usage{}, UsageFrom(nil))
}
