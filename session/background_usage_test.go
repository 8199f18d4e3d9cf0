package session

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/session/store"
)

// sent hands out the next request of s, as a host sends it, and returns
// its size by the session's own count: the messages and the tools.
func sent(s *Session) int {
	req := s.Messages()
	s.mu.Lock()
	tools := s.req.toolTokens
	s.mu.Unlock()
	return s.countAll(req) + tools
}

// A provider that counts every request 20% over the session's count: the
// background compaction starts once the request passes the soft mark by
// the provider's measure (at the latest on the report that shows it), not
// when the count alone does, and never before the provider's measure
// passes it.
func TestBackgroundStartsAtTheSoftMarkOfTheReportedSize(t *testing.T) {
	noLeaks(t)
	ctx := context.Background()
	g := newGate(4)
	s := newTestSession(t, "bg", g, WithBackground(true), WithSoftMark(0.5))
	defer func() { require.NoError(t, s.Close(ctx)) }()
	hist := chatHistory("bg", 400)
	mark := s.Status().SoftMark
	require.Positive(t, mark)

	reported, counted := 0, 0
	for _, m := range hist {
		mustAppend(t, s, m)
		if started(s) > 0 {
			break
		}
		counted = sent(s)
		reported = counted * 6 / 5
		s.UpdateUsage(compact.Usage{PromptTokens: reported})
		if reported >= mark {
			require.Equal(t, 1, started(s), "the report that shows the request past the soft mark starts the compaction")
			break
		}
	}
	require.Equal(t, 1, started(s))
	await(t, g.entered, "the background compaction's summarizer")
	st := s.Status()
	assert.GreaterOrEqual(t, st.RequestTokens, mark, "started past the soft mark, by the provider's measure")
	assert.Less(t, st.RequestTokens-st.Unseen, mark, "the count alone had not reached it")
	assert.Equal(t, reported-counted, st.Unseen, "what the last report found beyond the count")
	assert.GreaterOrEqual(t, (st.RequestTokens-st.Unseen)*6/5, mark, "not before the provider's measure passed it")
	close(g.release)
	finishBackground(t, s)
	assert.Equal(t, 1, s.Status().BackgroundCompactions)
}

// The hard limit judges the request as the provider's reports measure it:
// a request path prunes (or waits) once the count and what reports showed
// it misses are over the usable window, though the count alone fits, and
// no request handed out is over the window by the provider's measure.
func TestBackgroundHardLimitJudgesTheReportedSize(t *testing.T) {
	ctx := context.Background()
	// unnamedTools is what the provider counts of tool definitions the
	// host sends but never names to the session: the session's count
	// misses it. It is more than a turn adds, so that some request's count
	// fits where the provider's measure does not.
	var unnamedTools int
	// turn is a host's turn: messages appended, the check, Compress when
	// told, the request sent and its usage reported. It returns whether
	// ShouldCompress said the request was over the hard limit, and the
	// session's count of the request then.
	turn := func(t *testing.T, s *Session, msgs ...compact.Message) (bool, int) {
		t.Helper()
		mustAppend(t, s, msgs...)
		st := s.Status()
		over := s.ShouldCompress()
		if over {
			_, err := s.Compress(ctx)
			require.NoError(t, err)
		}
		reported := sent(s) + unnamedTools
		require.LessOrEqual(t, reported, st.HardLimit, "no request goes out over the usable window by the provider's measure")
		s.UpdateUsage(compact.Usage{PromptTokens: reported})
		return over, st.RequestTokens - st.Unseen
	}

	t.Run("prunes", func(t *testing.T) {
		noLeaks(t)
		unnamedTools = 1500
		g := newGate(4)
		s, err := Open(ctx, "bg", newTestCompressor(g, compact.WithContextWindow(12_000)),
			WithBackground(true), WithSoftMark(0.5), WithStore(store.NewMemory()), WithWait(false))
		require.NoError(t, err)
		defer func() { require.NoError(t, s.Close(ctx)) }()
		rounds := toolRounds(200)
		mustAppend(t, s, rounds[:2]...)
		firstOver := -1
		for i := 2; i+1 < len(rounds) && s.Status().AtLimit.Pruned < 3; i += 2 {
			over, count := turn(t, s, rounds[i], rounds[i+1])
			if over && firstOver < 0 {
				firstOver = count
			}
		}
		st := s.Status()
		require.Positive(t, firstOver, "the request reached the hard limit")
		assert.LessOrEqual(t, firstOver, st.HardLimit, "the count alone fitted: the reports said it did not")
		assert.Equal(t, unnamedTools, st.Unseen)
		assert.Equal(t, 3, st.AtLimit.Pruned)
		assert.Zero(t, st.Waits.Count)
		close(g.release)
		finishBackground(t, s)
	})

	t.Run("waits", func(t *testing.T) {
		noLeaks(t)
		unnamedTools = 300
		g := newGate(4)
		s := newTestSession(t, "bg", g, WithBackground(true), WithSoftMark(0.8))
		defer func() { require.NoError(t, s.Close(ctx)) }()
		waiting := make(chan struct{}, 1)
		s.onWait = func() {
			select {
			case waiting <- struct{}{}:
			default: // a later wait (Close's) is not the one the test awaits
			}
		}
		hist := chatHistory("bg", 400)
		mustAppend(t, s, hist[0])
		entered := false
		for _, m := range hist[1:] {
			mustAppend(t, s, m)
			if started(s) > 0 && !entered {
				// The compaction has read its input: what follows stays.
				await(t, g.entered, "the background compaction's summarizer")
				entered = true
			}
			if s.ShouldCompress() {
				break
			}
			reported := sent(s) + unnamedTools
			require.LessOrEqual(t, reported, s.Status().HardLimit, "no request goes out over the usable window by the provider's measure")
			s.UpdateUsage(compact.Usage{PromptTokens: reported})
		}
		require.True(t, entered)
		st := s.Status()
		require.Greater(t, st.RequestTokens, st.HardLimit, "over the hard limit by the provider's measure")
		assert.LessOrEqual(t, st.RequestTokens-st.Unseen, st.HardLimit, "the count alone fits")

		done := compactAsync(ctx, s)
		await(t, waiting, "the request path to wait")
		close(g.release)
		require.NoError(t, await(t, done, "Compress").err)
		assert.LessOrEqual(t, sent(s)+unnamedTools, st.HardLimit, "the request fits by the provider's measure")
		st = s.Status()
		assert.Equal(t, 1, st.AtLimit.Waited, "%+v", st.AtLimit)
		assert.Equal(t, 1, st.Waits.Count)
	})
}

// A replay on simulated time whose provider counts every request 20% over
// the session's count. With 20 s summaries the background compaction
// starts early enough that it commits before the request reaches the
// threshold by the provider's measure, and no request path waits; with
// summaries ten times slower, request paths wait at the hard limit, and no
// request goes out over the usable window by the provider's measure.
//
// What was appended since the last report is counted as the session
// counts it, so a provider that counts each appended token heavier can
// see a request pass the limit by that excess on one request's growth
// (here a fifth of about 330 tokens); none of this replay's requests do.
func TestBackgroundReplayWithReportsOverTheCount(t *testing.T) {
	msgs := chatRun(300)
	provider := func(n int) int { return n * 6 / 5 }
	t.Run("20 s summaries", func(t *testing.T) {
		f := runReplay(t, msgs, replaySetup{background: true, summarizer: 20 * time.Second, step: 2 * time.Second,
			engine: chatEngine, provider: provider})
		require.Positive(t, f.BackgroundCompactions)
		assert.Less(t, f.peak, f.Threshold, "every compaction commits before the provider's measure reaches the threshold")
		assert.Zero(t, f.Waits.Count, "no request path waited: %+v", f.AtLimit)
		assert.Zero(t, f.over)
	})
	t.Run("200 s summaries", func(t *testing.T) {
		f := runReplay(t, msgs, replaySetup{background: true, summarizer: 200 * time.Second, step: 2 * time.Second,
			engine: chatEngine, provider: provider})
		require.Positive(t, f.AtLimit.Waited, "a summarizer this slow makes requests wait")
		assert.Zero(t, f.over, "no request is over the window by the provider's measure (peak %d of %d)", f.peak, f.HardLimit)
	})
}

// In the background nothing of the host's loop counts each request for the
// engine, and a compaction may commit while a request is out: the session
// tells the engine which request each report describes, so a model
// counted by calibration keeps its factor when the provider agrees with
// the count, instead of taking the growth since the last compaction for
// a denser tokenizer.
func TestBackgroundReportsKeepTheCalibration(t *testing.T) {
	engine := []compact.Option{compact.WithModel("claude-sonnet-4-5"), compact.WithContextWindow(60_000),
		compact.WithThresholdBounds(0, 0)}
	want := compact.New(engine...).Status().Calibration
	require.NotEqual(t, 1.0, want, "a model counted by calibration")
	f := runReplay(t, chatRun(300), replaySetup{background: true, summarizer: 20 * time.Second, step: 2 * time.Second,
		engine: engine, provider: func(n int) int { return n }})
	require.Positive(t, f.BackgroundCompactions)
	assert.InDelta(t, want, f.Calibration, 0.01)
	assert.Zero(t, f.Unseen)
}

// A background compaction that commits while a request is out: the
// report of that request, over the engine's threshold, describes the
// history the compaction replaced, and is no anti-thrash strike (two
// would pause the background compaction).
func TestAReportOfARequestOutWhileTheBackgroundCompactionCommittedIsNoStrike(t *testing.T) {
	// A minute's summary from 60% of the threshold: the history passes
	// the threshold, not the usable window, before the compaction commits.
	f := runReplay(t, chatRun(300), replaySetup{background: true, summarizer: time.Minute, step: 2 * time.Second,
		engine: chatEngine, provider: func(n int) int { return n * 6 / 5 }, session: []Option{WithSoftMark(0.6)}})
	t.Logf("%d reports of requests out while a compaction committed, %d over the threshold, %d strikes then",
		f.inFlight, f.inFlightOver, f.inFlightStrikes)
	require.Positive(t, f.inFlightOver, "a request out while a compaction committed, over the threshold")
	assert.Zero(t, f.inFlightStrikes)
	assert.Zero(t, f.Waits.Count)
	assert.Zero(t, f.over)
}
