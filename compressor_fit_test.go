package compact

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/contextkit/compact/internal/msg"
	"github.com/contextkit/compact/internal/racetest"
	"github.com/contextkit/compact/tokens"
	openai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Compress before every request is safe: under the threshold the history
// comes back as it went in (the caller's own slice, byte-identical), with a
// Result that says nothing was done and why.
func TestCompressUnderTheThresholdReturnsTheHistoryUnchanged(t *testing.T) {
	c := New(WithTokenCounter(tokens.Estimator{}))
	in := longSession(20)
	before := Clone(in)
	for i := 0; i < 3; i++ {
		res, err := c.Compress(context.Background(), in)
		require.NoError(t, err)
		assert.Contains(t, res.Skipped, "under the threshold")
		assert.Equal(t, -1, res.SummaryIndex)
		assert.Equal(t, res.TokensBefore, res.TokensAfter)
		assert.True(t, &res.Messages[0] == &in[0], "no copy: the caller's slice itself")
		assert.True(t, reflect.DeepEqual(before, res.Messages))
	}
	assert.Zero(t, c.Status().Compressions)

	small := newTestCompressor(&recorder{})
	short := longSession(16)
	res, err := small.Compress(context.Background(), short)
	require.NoError(t, err)
	require.NotEmpty(t, res.Skipped)
	res, err = small.Compress(context.Background(), short, Force())
	require.NoError(t, err, "Force compacts anyway, as /compress asks")
	assert.Empty(t, res.Skipped)
	assert.GreaterOrEqual(t, res.SummaryIndex, 0)
}

// The check under the threshold allocates the same, whatever the history's
// length: a counter warm from the previous call recounts from its memo.
func TestCompressUnderTheThresholdAllocatesAlikeAtAnyLength(t *testing.T) {
	if racetest.Enabled {
		t.Skip("the race detector allocates on its own; counted without it")
	}
	tc := newCounter(t, tokens.EncodingO200KBase)
	allocs := func(n int) float64 {
		c := New(WithTokenCounter(tc), WithContextWindow(1_000_000))
		in := longSession(n)
		_, _ = c.Compress(context.Background(), in) // warm the memo
		return testing.AllocsPerRun(20, func() {
			// The assertion runs only on failure, so it allocates nothing
			// the count would see.
			if res, err := c.Compress(context.Background(), in); err != nil || res.Skipped == "" {
				require.Failf(t, "compacted", "err %v", err)
			}
		})
	}
	small, large := allocs(50), allocs(500)
	assert.Equal(t, small, large, "allocations grow with the history")
	assert.LessOrEqual(t, large, 10.0)
}

// A latest user message larger than the window: no compaction can make the
// request fit, and the result says by how much and which message.
func TestResultSaysWhenTheRequestStillDoesNotFit(t *testing.T) {
	c := newTestCompressor(&recorder{})
	huge := user(strings.Repeat("word ", 3400)) // about 4,250 tokens counted per byte
	in := append(longSession(10), huge)
	res, err := c.Compress(context.Background(), in, Force())
	require.NoError(t, err)
	assert.False(t, res.Fits)
	assert.Positive(t, res.Overflow)
	assert.Equal(t, res.TokensAfter-res.Usable, res.Overflow)
	// The summary opens the history merged in front of it (WithUserFirst).
	_, own, shared := msg.SplitMerged(res.Messages[res.TooLarge])
	assert.True(t, shared && res.TooLarge == res.SummaryIndex)
	assert.Equal(t, huge, own, "names the message compaction must keep")

	p := c.Preflight(longSession(10), WithIncoming(huge))
	assert.False(t, p.Fits, "preflight says so before the request is sent")
	assert.Equal(t, len(longSession(10)), p.TooLarge, "the incoming message")
	assert.Positive(t, p.Overflow)

	small, err := c.Compress(context.Background(), longSession(30), Force())
	require.NoError(t, err)
	assert.True(t, small.Fits)
	assert.Equal(t, -1, small.TooLarge)
	assert.Zero(t, small.Overflow)
}

// Tool definitions count toward the threshold: the same history compacts
// once forty schemas ride along.
func TestToolsCountTowardTheThreshold(t *testing.T) {
	weather := openai.Tool{Type: openai.ToolTypeFunction, Function: &openai.FunctionDefinition{
		Name: "get_current_weather", Description: "Get the current weather in a given location",
		Parameters: json.RawMessage(`{"type": "object", "properties": {
			"location": {"type": "string", "description": "The city and state, e.g. San Francisco, CA"},
			"unit": {"type": "string", "enum": ["celsius", "fahrenheit"]}}}`)}}
	var tools []openai.Tool
	for i := 0; i < 40; i++ {
		tools = append(tools, weather)
	}
	tc := newCounter(t, tokens.EncodingO200KBase)
	in := longSession(12)
	n, extra := tokens.CountMessages(tc, in), tokens.CountTools(tc, tools)
	// A window whose threshold (0.5625 of it, with the default reserve of
	// a quarter) falls between the messages alone and the whole request.
	c := New(WithTokenCounter(tc), WithContextWindow(int(float64(n+extra/2)/0.5625)), WithThresholdBounds(0, 0))
	require.Less(t, n, c.Status().Threshold, "the messages alone are under the threshold")
	assert.False(t, c.ShouldCompressMessages(in))
	assert.True(t, c.ShouldCompressMessages(in, WithTools(tools)))
	p := c.Preflight(in, WithTools(tools))
	assert.Equal(t, n+extra, p.Tokens)
	assert.True(t, p.Compress)
	res, err := c.Compress(context.Background(), in, WithTools(tools))
	require.NoError(t, err)
	assert.Empty(t, res.Skipped, "compacted because of the tools")
}

// WithTrimOversized (opt-in) cuts the middle of a latest user message too
// large for the window until the request fits, and says which it cut.
func TestTrimOversizedShortensTheLatestUserMessageUntilItFits(t *testing.T) {
	huge := user("START " + strings.Repeat("word ", 3400) + " END")
	in := append(longSession(10), huge)
	res, err := newTestCompressor(&recorder{}, WithTrimOversized(true)).Compress(context.Background(), in, Force())
	require.NoError(t, err)
	assert.True(t, res.Fits, "overflow %d", res.Overflow)
	require.GreaterOrEqual(t, res.Shortened, 0)
	summary, own, _ := msg.SplitMerged(res.Messages[res.Shortened])
	assert.Equal(t, res.Summary, summary, "the summary merged in front of it stays whole")
	got := Text(own)
	assert.True(t, strings.HasPrefix(got, "START") && strings.HasSuffix(got, "END"), "head and tail kept")
	assert.Contains(t, got, "characters cut")
	assert.Equal(t, tokens.CountMessages(byteCounter{}, res.Messages), res.TokensAfter)

	off, err := newTestCompressor(&recorder{}).Compress(context.Background(), in, Force())
	require.NoError(t, err)
	assert.Equal(t, -1, off.Shortened, "off by default: the message stays verbatim")
	assert.True(t, containsEqual(off.Messages, huge))
}

// The summary prompt option reaches the summarizer's request.
func TestWithSummaryPromptReachesTheRequest(t *testing.T) {
	r := &recorder{}
	_, err := newTestCompressor(r, WithSummaryPrompt("Summarise for a billing agent.")).Compress(context.Background(), longSession(30), Force())
	require.NoError(t, err)
	assert.Equal(t, "Summarise for a billing agent.", r.Last().Prompt)
}

// The host's open tasks ride in the summary under their own heading; the
// next compaction lists the host's current tasks, never the old ones.
func TestOpenTasksAreCarriedIntoTheSummary(t *testing.T) {
	r := &recorder{}
	c := newTestCompressor(r)
	res, err := c.Compress(context.Background(), longSession(30), Force(), WithOpenTasks([]string{"fix the flaky test", "update the changelog"}))
	require.NoError(t, err)
	assert.Contains(t, res.Summary, "## Open tasks\n- fix the flaky test\n- update the changelog")
	assert.Contains(t, Text(res.Messages[res.SummaryIndex]), "- update the changelog")

	next := append(res.Messages, longSession(30)[1:]...)
	res2, err := c.Compress(context.Background(), next, Force(), WithOpenTasks([]string{"update the changelog"}))
	require.NoError(t, err)
	assert.NotContains(t, r.Last().PreviousSummary, "fix the flaky test", "the old list is not summarised again")
	assert.Contains(t, res2.Summary, "## Open tasks\n- update the changelog")
	assert.NotContains(t, res2.Summary, "fix the flaky test")
	assert.Equal(t, 1, countSummaries(res2.Messages))
}
