package genai

import (
	"context"
	"fmt"
	"strings"
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

// reusedIDHistory is issue 35's repro in the Gemini API's shape: an agent
// that numbers its calls afresh each turn calls c1 twice, and the first
// response, long enough that a compaction at an 8k window prunes it, has
// WillContinue and Scheduling set.
func reusedIDHistory() History {
	call := &sdk.Content{Role: sdk.RoleModel, Parts: []*sdk.Part{{FunctionCall: &sdk.FunctionCall{ID: "c1", Name: "search",
		Args: map[string]any{"q": "flags"}}}}}
	response := func(text string) *sdk.Content {
		return &sdk.Content{Role: sdk.RoleUser, Parts: []*sdk.Part{{FunctionResponse: &sdk.FunctionResponse{ID: "c1", Name: "search",
			Response: map[string]any{"output": text}, WillContinue: sdk.Ptr(false), Scheduling: sdk.FunctionResponseSchedulingWhenIdle}}}}
	}
	first := response(strings.Repeat("flags.go:12: parse the --legacy flag here\n", 300))
	first.Parts = append(first.Parts, &sdk.Part{Text: "And the defaults?"})
	return History{Contents: []*sdk.Content{
		sdk.NewContentFromText("Find where the flags are parsed.", sdk.RoleUser), call, first,
		call, response("defaults.go:3: var legacy = false"),
	}}
}

func TestCompressAPrunedResponseWhoseCallIDRepeatsKeepsItsFields(t *testing.T) {
	h := reusedIDHistory()
	require.NoError(t, Validate(h))
	out, res, err := Compress(context.Background(), compact.New(compact.WithContextWindow(8000)), h, compact.Force())
	require.NoError(t, err)
	require.NotEmpty(t, res.Pruned, "the long response is pruned")
	var pruned *sdk.FunctionResponse
	for _, c := range out.Contents {
		for _, p := range c.Parts {
			if fr := p.FunctionResponse; fr != nil && strings.HasPrefix(fmt.Sprint(fr.Response["output"]), "[pruned]") {
				pruned = fr
			}
		}
	}
	require.NotNil(t, pruned, "the pruned response is in the output")
	assert.Equal(t, "c1", pruned.ID)
	assert.Equal(t, "search", pruned.Name)
	assert.Equal(t, sdk.Ptr(false), pruned.WillContinue, "the pruned response keeps WillContinue though c1 is used twice")
	assert.Equal(t, sdk.FunctionResponseSchedulingWhenIdle, pruned.Scheduling, "and Scheduling")
	assert.Same(t, h.Contents[len(h.Contents)-1], out.Contents[len(out.Contents)-1])
}
