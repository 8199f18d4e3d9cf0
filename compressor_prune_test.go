package compact

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/contextkit/compact/handoff"
	"github.com/contextkit/compact/internal/msgtest"
	"github.com/contextkit/compact/prune"
	"github.com/contextkit/compact/tokens"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// chattyRun is an agent run whose assistant turns think aloud at length
// before each call, so pruning tool output alone cannot bring it under a
// small threshold.
func chattyRun(n int) []Message {
	msgs := []Message{sys("You are a coding agent."), user("Fix the failing test in pkg/store.")}
	for i := 0; i < n; i++ {
		id := fmt.Sprintf("call_%d", i)
		round := msgtest.BashRound(id, fmt.Sprintf("go test -run Test%d", i), msgtest.ShellOutput(id, 25, 1))
		round[0].Content = strings.Repeat(fmt.Sprintf("Thinking about step %d. ", i), 40)
		msgs = append(msgs, round...)
	}
	return append(msgs, asst("The test passes now."))
}

// When pruning alone brings the history under the threshold, no summarizer
// is called: the result is the pruned history, with every change reported.
func TestCompressPruningAloneAvoidsTheSummarizer(t *testing.T) {
	r := &recorder{}
	c := newTestCompressor(r, WithPruning(true), WithPruneOptions(prune.WithClearAtLeast(0)))
	in := msgtest.AgentRun(12)
	require.GreaterOrEqual(t, c.count(in), c.threshold(), "over the threshold before pruning")

	res, err := c.Compress(context.Background(), in)
	require.NoError(t, err)
	assert.Empty(t, r.Requests(), "the summarizer was not called")
	require.NoError(t, checkContracts(in, res))
	assert.Equal(t, -1, res.SummaryIndex)
	assert.Equal(t, "", res.Summarizer)
	assert.Less(t, res.TokensAfter, c.threshold())
	assert.Equal(t, len(in), len(res.Messages))
	assert.Equal(t, in[0], res.Messages[0], "no compaction note: nothing was summarised")
	require.NotEmpty(t, res.Pruned)
	saved := 0
	for _, ch := range res.Pruned {
		assert.Equal(t, prune.Masked, ch.Kind)
		assert.True(t, strings.HasPrefix(Text(res.Messages[ch.Index]), "[pruned]"))
		saved += (ch.TokensBefore - ch.TokensAfter)
	}
	assert.Equal(t, res.TokensBefore-res.TokensAfter, saved)
	assert.Equal(t, 1, c.Status().Compressions)
	assert.False(t, c.ShouldCompressMessages(res.Messages))
}

// When pruning is not enough the turns are summarised, and the summarizer
// reads them as they were, not their stand-ins.
func TestCompressSummarisesWhenPruningIsNotEnough(t *testing.T) {
	r := &recorder{}
	c := newTestCompressor(r, WithPruning(true), WithPruneOptions(prune.WithClearAtLeast(0)))
	in := chattyRun(10)
	pr := prune.Apply(in, prune.WithClearAtLeast(0), prune.WithTokenCounter(byteCounter{}))
	require.True(t, pr.Committed, "pruning finds something")
	require.Greater(t, pr.TokensAfter, c.threshold(), "but not enough")

	res, err := c.Compress(context.Background(), in)
	require.NoError(t, err)
	require.Len(t, r.Requests(), 1)
	require.NoError(t, checkContracts(in, res))
	assert.GreaterOrEqual(t, res.SummaryIndex, 0)
	assert.Empty(t, res.Pruned, "the tail was within budget")
	assert.Equal(t, in[res.SummarizedFrom:res.SummarizedTo+1], r.Last().Turns, "the original turns")
}

// A forced compaction always summarises; so does one with pruning off.
func TestCompressSummarisesWhenForcedOrWithoutPruning(t *testing.T) {
	for name, c := range map[string]struct {
		opts  []Option
		force bool
	}{
		"forced":          {[]Option{WithPruning(true)}, true},
		"without pruning": {[]Option{WithPruning(true), WithPruning(false)}, false},
	} {
		t.Run(name, func(t *testing.T) {
			r := &recorder{}
			var opts []CompressOption
			if c.force {
				opts = append(opts, Force())
			}
			res, err := newTestCompressor(r, c.opts...).Compress(context.Background(), msgtest.AgentRun(12), opts...)
			require.NoError(t, err)
			assert.Len(t, r.Requests(), 1)
			assert.GreaterOrEqual(t, res.SummaryIndex, 0)
		})
	}
}

// Pruning is on by default.
func TestCompressPrunesByDefault(t *testing.T) {
	r := &recorder{}
	c := New(WithContextWindow(16000), WithTokenCounter(byteCounter{}), WithSummarizer(r), WithThresholdBounds(0, 0))
	res, err := c.Compress(context.Background(), msgtest.AgentRun(40))
	require.NoError(t, err)
	assert.Empty(t, r.Requests())
	assert.NotEmpty(t, res.Pruned)
}

// A tail that alone is over budget has its largest results demoted, on
// either path, and the result reports them.
func TestCompressDemotesResultsOfAnOversizedTail(t *testing.T) {
	in := chattyRun(6)
	in = append(in[:len(in)-1], msgtest.BashRound("big", "cat build.log", msgtest.ShellOutput("log", 500, 2))...)
	in = append(in, asst("The build failed; the log says why."), user("Fix it."))

	r := &recorder{}
	c := newTestCompressor(r, WithPruning(true))
	res, err := c.Compress(context.Background(), in, Force())
	require.NoError(t, err)
	require.Len(t, r.Requests(), 1)
	require.NoError(t, checkContracts(in, res))
	require.Len(t, res.Pruned, 1)
	ch := res.Pruned[0]
	assert.Equal(t, prune.Demoted, ch.Kind)
	assert.Equal(t, len(in)-3, ch.Index)
	assert.Equal(t, "big", ch.ToolCallID)
	got := res.Messages[len(res.Messages)-3]
	assert.True(t, strings.HasPrefix(Text(got), "[pruned]"))
	assert.Contains(t, got.Content, "exit status 2")
	for _, turn := range r.Last().Turns {
		assert.NotEqual(t, "big", turn.ToolCallID, "the demoted result is in the tail, not summarised")
	}

	off, err := newTestCompressor(&recorder{}, WithPruning(true), WithPruneOptions(prune.WithPressure(0))).Compress(context.Background(), in, Force())
	require.NoError(t, err)
	assert.Empty(t, off.Pruned, "WithPressure(0) turns the pass off")
}

// With nothing to summarise, pruning is all a compaction can do: it does
// it, rather than reporting nothing to compress.
func TestCompressPrunesWhenNothingCanBeSummarised(t *testing.T) {
	in := []Message{sys("s"), user("Why does the build fail?")}
	in = append(in, msgtest.BashRound("big", "cat build.log", msgtest.ShellOutput("log", 500, 2))...)
	in = append(in, asst("Looking."), user("And?"))
	r := &recorder{}
	protectAll := []Option{WithHeadMessages(1), WithTail(0.2, 8)}
	c := newTestCompressor(r, append(protectAll, WithPruning(true))...)
	require.False(t, c.HasContentToCompress(in))

	res, err := c.Compress(context.Background(), in, Force())
	require.NoError(t, err)
	assert.Empty(t, r.Requests())
	require.NoError(t, checkContracts(in, res))
	require.Len(t, res.Pruned, 1)
	assert.Equal(t, prune.Demoted, res.Pruned[0].Kind)

	fits := []Message{sys("s"), user("Why does the build fail?"), asst("Looking."), user("And?")}
	_, err = newTestCompressor(r, protectAll...).Compress(context.Background(), fits, Force())
	assert.True(t, errors.Is(err, ErrNothingToCompress), "without pruning nothing protected is folded while the history fits")

	// Over the usable window, the window guard folds what the tail would
	// keep rather than hand the history back as it is.
	res, err = newTestCompressor(r, protectAll...).Compress(context.Background(), in, Force())
	require.NoError(t, err)
	require.NoError(t, checkContracts(in, res))
	assert.True(t, res.Fits)
}

// The incoming message comes back last after a pruning too.
func TestCompressPruningKeepsTheIncomingMessageLast(t *testing.T) {
	r := &recorder{}
	in := msgtest.AgentRun(12)
	incoming := user("Now also check pkg/cache.")
	res, err := newTestCompressor(r, WithPruning(true), WithPruneOptions(prune.WithClearAtLeast(0))).Compress(context.Background(), in, WithIncoming(incoming))
	require.NoError(t, err)
	assert.Empty(t, r.Requests())
	assert.Equal(t, len(in)+1, len(res.Messages))
	assert.Equal(t, incoming, res.Messages[len(res.Messages)-1])
	assert.Equal(t, tokens.CountMessages(byteCounter{}, res.Messages), res.TokensAfter)
}

// A compaction that pruning alone achieved writes no handoff packet and
// does not count toward one: it wrote no summary.
func TestPruneOnlyCompactionsDoNotCountTowardAHandoff(t *testing.T) {
	c := newHandoffCompressor(handoff.Policy{Enabled: true, Root: t.TempDir(), AfterCompactions: 2},
		WithPruning(true), WithPruneOptions(prune.WithClearAtLeast(0)))
	res, err := c.Compress(context.Background(), msgtest.AgentRun(12))
	require.NoError(t, err)
	require.Equal(t, -1, res.SummaryIndex, "pruning alone")
	assert.Nil(t, res.Handoff)

	res, err = c.Compress(context.Background(), chattyRun(10))
	require.NoError(t, err)
	require.GreaterOrEqual(t, res.SummaryIndex, 0)
	assert.Nil(t, res.Handoff, "the first summarised compaction")
	assert.Equal(t, 2, c.Status().Compressions)

	res, err = c.Compress(context.Background(), chattyRun(10))
	require.NoError(t, err)
	assert.NotNil(t, res.Handoff, "the second summarised compaction")
}
