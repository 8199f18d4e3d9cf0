package session

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/contextkit/compact"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The README's session loop: a usage report over the threshold makes the
// session's next check compact, though its running count is under it
// (the provider counted tool schemas the host did not name), and after
// the compaction the old report triggers nothing.
func TestASessionCompactsOnTheTurnAfterAReportOverTheThreshold(t *testing.T) {
	ctx := context.Background()
	engine := compact.New(compact.WithModel("gpt-4o"), compact.WithContextWindow(16_000))
	s, err := Open(ctx, "usage", engine)
	require.NoError(t, err)
	defer s.Close(ctx)
	th := engine.Status().Threshold
	require.NoError(t, s.Append(ctx, sys("You are a coding agent."), user("Fix the flaky test.")))
	for i := 0; s.Tokens() < th/2; i++ {
		id := fmt.Sprintf("c%d", i)
		require.NoError(t, s.Append(ctx, call("step", id, "bash"), result(id, strings.Repeat("output line\n", 30))))
	}
	require.False(t, s.ShouldCompress())
	s.UpdateUsage(compact.Usage{PromptTokens: th + 1})
	require.NoError(t, s.Append(ctx, call("step", "last", "bash"), result("last", "ok")))
	require.True(t, s.ShouldCompress(), "the next check after a report over the threshold")
	res, err := s.Compress(ctx)
	require.NoError(t, err)
	require.Empty(t, res.Skipped)
	assert.False(t, s.ShouldCompress(), "the compaction made the report stale")
}

// A usage report is compared with the session's count of the request
// Messages handed out: the difference is what the count misses, and
// Status().RequestTokens adds it. A report with no request handed out
// since the last is the least the next request takes until a compaction;
// a Reset, or the engine moving to another model, forgets what reports
// taught.
func TestUsageReportsJudgeTheSessionsRequests(t *testing.T) {
	ctx := context.Background()
	engine := newTestCompressor(&recorder{})
	s, err := Open(ctx, "usage", engine)
	require.NoError(t, err)
	defer s.Close(ctx)
	hist := chatHistory("usage", 200)
	mustAppend(t, s, hist[:100]...)

	n := sent(s)
	s.UpdateUsage(compact.Usage{PromptTokens: n + 100})
	st := s.Status()
	assert.Equal(t, 100, st.Unseen)
	assert.Equal(t, st.Tokens+100, st.RequestTokens)
	mustAppend(t, s, hist[100:104]...)
	assert.Equal(t, s.Tokens()+100, s.Status().RequestTokens, "every later request carries it")

	s.UpdateUsage(compact.Usage{PromptTokens: n + 1000})
	st = s.Status()
	assert.Equal(t, n+1000, st.RequestTokens, "no request was handed out since the last report: this one is the least")
	assert.Equal(t, 100, st.Unseen)
	_, err = s.Compress(ctx, compact.Force())
	require.NoError(t, err)
	assert.Equal(t, s.Tokens()+100, s.Status().RequestTokens, "a compaction makes the report stale")

	require.NoError(t, s.Reset(ctx))
	mustAppend(t, s, hist[:100]...)
	assert.Zero(t, s.Status().Unseen, "a Reset forgets it")

	s.UpdateUsage(compact.Usage{PromptTokens: sent(s) + 100})
	require.Equal(t, 100, s.Status().Unseen)
	engine.SwitchModel("gpt-4o", 4000)
	assert.Zero(t, s.Status().Unseen, "another model counts differently")
}

// usageSpy is a Compressor that records the usage reports it is given.
type usageSpy struct {
	*compact.Compressor
	mu      sync.Mutex
	reports []compact.Usage
}

func (e *usageSpy) UpdateUsage(u compact.Usage) {
	e.mu.Lock()
	e.reports = append(e.reports, u)
	e.mu.Unlock()
	e.Compressor.UpdateUsage(u)
}

func (e *usageSpy) last() compact.Usage {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.reports[len(e.reports)-1]
}

// A report with no Usage.At reaches the engine as sent when Messages
// handed its request out (a host's At is kept), so the engine knows a
// request that was out while a compaction committed. A report nobody
// handed out the request of, sent before the last compaction was
// installed, is no least size for the next request.
func TestAReportIsOfTheRequestWhenItWasHandedOut(t *testing.T) {
	ctx := context.Background()
	clock := newSimClock()
	engine := &usageSpy{Compressor: newTestCompressor(&recorder{}, compact.WithClock(clock.Now))}
	s, err := Open(ctx, "usage", engine, WithClock(clock.Now))
	require.NoError(t, err)
	defer s.Close(ctx)
	mustAppend(t, s, chatHistory("usage", 100)...)

	handedOut := clock.Now()
	n := sent(s)
	clock.Advance(30 * time.Second)
	s.UpdateUsage(compact.Usage{PromptTokens: n})
	assert.Equal(t, handedOut, engine.last().At, "sent when Messages handed it out")
	sent(s)
	mine := clock.Now().Add(-time.Second)
	s.UpdateUsage(compact.Usage{PromptTokens: n, At: mine})
	assert.Equal(t, mine, engine.last().At, "the host's own time")
	s.UpdateUsage(compact.Usage{PromptTokens: n})
	assert.True(t, engine.last().At.IsZero(), "no request handed out: the engine's clock says when")

	before := clock.Now()
	clock.Advance(time.Second)
	_, err = s.Compress(ctx, compact.Force())
	require.NoError(t, err)
	s.UpdateUsage(compact.Usage{PromptTokens: n + 5000, At: before})
	assert.Equal(t, s.Tokens(), s.Status().RequestTokens, "sent before the compaction: no least size")
	s.UpdateUsage(compact.Usage{PromptTokens: n + 5000})
	assert.Equal(t, n+5000, s.Status().RequestTokens, "sent after it: the least the next request takes")
}
