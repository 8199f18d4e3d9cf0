package session

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/tokens"
)

// bigTools are n tool definitions of about 150 tokens each (byteCounter).
func bigTools(n int) []openai.Tool {
	out := make([]openai.Tool, n)
	for i := range out {
		out[i] = openai.Tool{Type: openai.ToolTypeFunction, Function: &openai.FunctionDefinition{
			Name:        fmt.Sprintf("tool_%d", i),
			Description: strings.Repeat(fmt.Sprintf("tool %d does one thing well. ", i), 20),
			Parameters:  json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`),
		}}
	}
	return out
}

// ShouldCompress counts the tool definitions the request carries, as the
// Compressor's WithTools does, and remembers them for later requests.
func TestShouldCompressCountsTheTools(t *testing.T) {
	s := newTestSession(t, "tools", &recorder{})
	hist := chatHistory("tools", 400)
	appendUntil(t, s, hist, func() bool { return s.Tokens() > 1500 })
	require.False(t, s.ShouldCompress(), "the messages alone are under the threshold")
	tools := bigTools(8)
	want := tokens.CountTools(byteCounter{}, tools)
	require.Greater(t, s.Tokens()+want, s.Status().Threshold)

	assert.True(t, s.ShouldCompress(compact.WithTools(tools)), "with the tools the request is over the threshold")
	assert.True(t, s.ShouldCompress(), "the tools named last are remembered")
	assert.Equal(t, s.Tokens()+want, s.Status().RequestTokens)
}

// optionsEngine is a Compressor that records the options each Compress is
// given.
type optionsEngine struct {
	*compact.Compressor
	mu   sync.Mutex
	seen []compact.CompressOptions
}

func (e *optionsEngine) Compress(ctx context.Context, msgs []compact.Message, opts ...compact.CompressOption) (*compact.Result, error) {
	e.mu.Lock()
	e.seen = append(e.seen, compact.ApplyCompressOptions(opts...))
	e.mu.Unlock()
	return e.Compressor.Compress(ctx, msgs, opts...)
}

func toolNames(tools []openai.Tool) []string {
	var out []string
	for _, t := range tools {
		out = append(out, t.Function.Name)
	}
	return out
}

// A session with recall counts its own recall tools in every request, once
// whether the host names them or not, and tells the engine about them.
func TestRecallToolsCountInTheRequest(t *testing.T) {
	ctx := context.Background()
	e := &optionsEngine{Compressor: newTestCompressor(&recorder{})}
	s, err := Open(ctx, "recall", e, WithRecall(true))
	require.NoError(t, err)
	mustAppend(t, s, chatHistory("recall", 40)...)
	recall := recallDefinitions()
	assert.Equal(t, s.Tokens()+tokens.CountTools(byteCounter{}, recall), s.Status().RequestTokens,
		"the recall tools count though the host named none")

	var defs []openai.Tool
	for _, tool := range s.Tools() {
		defs = append(defs, tool.Definition)
	}
	host := append(defs, bigTools(1)...)
	s.ShouldCompress(compact.WithTools(host))
	assert.Equal(t, s.Tokens()+tokens.CountTools(byteCounter{}, host), s.Status().RequestTokens,
		"named by the host, they count once")

	_, err = s.Compress(ctx, compact.Force())
	require.NoError(t, err)
	require.Len(t, e.seen, 1)
	assert.Equal(t, toolNames(host), toolNames(e.seen[0].Tools), "the engine is told what the request carries")
	assert.Equal(t, "recall", e.seen[0].SessionID)
}

// A Session's options given an invalid value keep their default, and
// Status().Adjusted names them.
func TestInvalidSessionOptionsAreReported(t *testing.T) {
	s := newTestSession(t, "opts", &recorder{}, WithBackground(true),
		WithSoftMark(1.5), WithSoftMark(-0.1), WithIdleAfter(-time.Second), WithClock(nil))
	st := s.Status()
	assert.Equal(t, []string{
		"WithSoftMark(1.5): invalid, the adaptive mark kept",
		"WithSoftMark(-0.1): invalid, the adaptive mark kept",
		"WithIdleAfter(-1s): invalid, the model's cache lifetime kept",
		"WithClock(nil): invalid, time.Now kept",
	}, st.Adjusted)
	assert.Equal(t, int(initialSoftMark*float64(st.Threshold)), st.SoftMark, "the adaptive mark is in force")
}

// Without background compaction, a Compress that compacts is a wait of the
// request path, counted with its compaction; one that finds nothing to do
// is not.
func TestForegroundCompactionsAreWaits(t *testing.T) {
	ctx := context.Background()
	clock := newSimClock()
	slow := &slowSummarizer{clock: clock, took: 12 * time.Second, tokens: 50}
	s := newTestSession(t, "fg", slow, WithClock(clock.Now))
	mustAppend(t, s, chatHistory("fg", 10)...)
	_, err := s.Compress(ctx)
	require.NoError(t, err)
	assert.Zero(t, s.Status().Waits.Count, "under the threshold: nothing done, no wait")

	mustAppend(t, s, chatHistory("fg", 200)[10:]...)
	require.True(t, s.ShouldCompress())
	done := compactAsync(ctx, s)
	for clock.Sleeping() == 0 {
		time.Sleep(pollEvery)
	}
	clock.AdvanceToNext()
	require.NoError(t, await(t, done, "Compress").err)
	st := s.Status()
	assert.Equal(t, 1, st.ForegroundCompactions)
	assert.Equal(t, Waits{Count: 1, Total: 12 * time.Second, Longest: 12 * time.Second}, st.Waits)
	assert.Equal(t, 12*time.Second, st.Pace.CompactionTime)
	assert.Zero(t, st.SoftMark, "no soft mark without background compaction")
}
