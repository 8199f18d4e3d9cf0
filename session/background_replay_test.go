package session

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/session/store"
)

// replaySetup is one replay of a conversation on simulated time.
type replaySetup struct {
	background bool
	summarizer time.Duration // how long a summary takes
	step       time.Duration // model time per request
	engine     []compact.Option
	store      store.Store // nil: a store.Memory
	// provider, when set, reports the size of each request the session
	// counted at n (see simDriver.provider).
	provider func(n int) int
	session  []Option // the session's own options beside the store, background and clock
}

// replayFigures is what a replay measured.
type replayFigures struct {
	Status
	requests, over, peak, summaries int
	// inFlight, inFlightOver and inFlightStrikes are the driver's (see
	// simDriver).
	inFlight, inFlightOver, inFlightStrikes int
}

// runReplay plays msgs against a fresh session as setup says.
func runReplay(t testing.TB, msgs []compact.Message, setup replaySetup) replayFigures {
	t.Helper()
	ctx := context.Background()
	clock := newSimClock()
	slow := &slowSummarizer{clock: clock, took: setup.summarizer, tokens: 1500}
	opts := append([]compact.Option{compact.WithSummarizer(slow), compact.WithClock(clock.Now)}, setup.engine...)
	mem := setup.store
	if mem == nil {
		mem = store.NewMemory()
	}
	s, err := Open(ctx, "replay", compact.New(opts...), append([]Option{WithStore(mem),
		WithBackground(setup.background), WithClock(clock.Now)}, setup.session...)...)
	require.NoError(t, err)
	d := &simDriver{t: t, s: s, clock: clock, step: setup.step, usable: s.Status().Usable, provider: setup.provider}
	d.replay(ctx, msgs)
	st := s.Status()
	require.NoError(t, s.Close(ctx))
	t.Logf("%d requests (peak %d, %d over %d); compactions: %d foreground, %d background, %d summaries; waits %+v; at the limit %+v; soft mark %d of threshold %d; pace %+v",
		d.requests, d.peak, d.over, d.usable, st.ForegroundCompactions, st.BackgroundCompactions, slow.calls.Load(), st.Waits, st.AtLimit,
		st.SoftMark, st.Threshold, st.Pace)
	return replayFigures{Status: st, requests: d.requests, over: d.over, peak: d.peak, summaries: int(slow.calls.Load()),
		inFlight: d.inFlight, inFlightOver: d.inFlightOver, inFlightStrikes: d.inFlightStrikes}
}

// chatRun is a conversation of n exchanges, each a user turn and an
// assistant reply of about 150 tokens (byteCounter): talk, which pruning
// cannot shrink, so only a summary makes room.
func chatRun(n int) []compact.Message {
	msgs := []compact.Message{sys("You are a planning assistant.")}
	for i := 0; i < n; i++ {
		msgs = append(msgs,
			user(fmt.Sprintf("Question %d: %s", i, strings.Repeat(fmt.Sprintf("what about option %d? ", i), 28))),
			asst(fmt.Sprintf("Answer %d: %s", i, strings.Repeat(fmt.Sprintf("option %d works because ", i), 24))))
	}
	return msgs
}

// chatEngine is the engine of the chat replays: a 60,000-token window
// counted by byteCounter.
var chatEngine = []compact.Option{compact.WithContextWindow(60_000), compact.WithTokenCounter(byteCounter{}),
	compact.WithThresholdBounds(0, 0)}

// Issue 25's goal, on a conversation of the project's own: with a 20 s
// summarizer and 2 s between requests, background compaction leaves no
// request waiting, where compacting on the request path makes one wait per
// compaction; with a summarizer ten times slower the soft mark cannot start
// early enough, and request paths wait, each at most one summary long,
// every wait counted; and no request is ever over the window.
func TestBackgroundReplayOnSimulatedTime(t *testing.T) {
	msgs := chatRun(300)
	const step = 2 * time.Second
	t.Run("foreground, 20 s summaries: a wait per compaction", func(t *testing.T) {
		f := runReplay(t, msgs, replaySetup{summarizer: 20 * time.Second, step: step, engine: chatEngine})
		require.Positive(t, f.ForegroundCompactions)
		assert.Zero(t, f.BackgroundCompactions)
		assert.Equal(t, f.ForegroundCompactions, f.Waits.Count, "every compaction is waited for")
		assert.Equal(t, 20*time.Second, f.Waits.Longest)
		assert.Zero(t, f.over)
	})
	t.Run("background, 20 s summaries: no wait", func(t *testing.T) {
		f := runReplay(t, msgs, replaySetup{background: true, summarizer: 20 * time.Second, step: step, engine: chatEngine})
		require.Positive(t, f.BackgroundCompactions)
		assert.Zero(t, f.ForegroundCompactions)
		assert.Zero(t, f.Waits.Count, "no request path waited: %+v", f.AtLimit)
		assert.Zero(t, f.over)
		assert.Less(t, f.SoftMark, f.Threshold)
		assert.Equal(t, 20*time.Second, f.Pace.CompactionTime)
	})
	t.Run("background, 200 s summaries: waits bounded and counted", func(t *testing.T) {
		f := runReplay(t, msgs, replaySetup{background: true, summarizer: 200 * time.Second, step: step, engine: chatEngine})
		require.Positive(t, f.Waits.Count, "a summarizer this slow makes requests wait")
		assert.Equal(t, f.Waits.Count, f.AtLimit.Waited+f.AtLimit.Compacted, "each wait is a request at the hard limit")
		assert.LessOrEqual(t, f.Waits.Longest, 200*time.Second, "no request waits longer than a summary")
		assert.Zero(t, f.over, "no request is over the window")
		assert.Equal(t, int(minSoftMark*float64(f.Threshold)), f.SoftMark, "the soft mark is as low as it goes")
	})
}
