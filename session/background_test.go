package session

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/session/store"
)

// finishBackground waits for the background compaction running, if any, to
// end and its outcome to be recorded.
func finishBackground(t testing.TB, s *Session) {
	t.Helper()
	if run := s.running(); run != nil {
		await(t, run.done, "the background compaction to end")
	}
}

// appendUntil appends msgs one by one until done reports true, and returns
// how many it appended; it fails the test if msgs run out first.
func appendUntil(t testing.TB, s *Session, msgs []compact.Message, done func() bool) int {
	t.Helper()
	for i, m := range msgs {
		mustAppend(t, s, m)
		if done() {
			return i + 1
		}
	}
	require.Failf(t, "the condition never held", "appended all %d messages", len(msgs))
	return 0
}

// started is how many background compactions s has started.
func started(s *Session) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.figures.bgStarted
}

// appendUntilStarted appends msgs to s one by one until a background
// compaction starts, and returns how many it appended.
func appendUntilStarted(t testing.TB, s *Session, msgs []compact.Message) int {
	t.Helper()
	before := started(s)
	return appendUntil(t, s, msgs, func() bool { return started(s) > before })
}

// runFirstBackground appends msgs to s until a background compaction
// starts, waits for it to end, and returns how many it appended and the
// Status after.
func runFirstBackground(t testing.TB, s *Session, msgs []compact.Message) (int, Status) {
	t.Helper()
	n := appendUntilStarted(t, s, msgs)
	finishBackground(t, s)
	return n, s.Status()
}

// startBackground appends msgs to s one by one until a background
// compaction starts, waits for its summarizer g to be called (so that it
// has read its input), and returns how many it appended.
func startBackground(t testing.TB, s *Session, g *gate, msgs []compact.Message) int {
	t.Helper()
	n := appendUntilStarted(t, s, msgs)
	await(t, g.entered, "the background compaction's summarizer")
	return n
}

// A background compaction starts past the soft mark, off the request path:
// Append returns while it runs, Messages is the live history as it is
// meanwhile, and once it commits the next request is the compacted history
// followed by everything appended since, verbatim and in order.
func TestBackgroundCompactsOffTheRequestPath(t *testing.T) {
	noLeaks(t)
	ctx := context.Background()
	g := newGate(4)
	logs := &logSink{}
	s := newTestSession(t, "bg", g, WithBackground(true), WithSoftMark(0.5), WithStore(store.NewMemory()),
		WithLogger(logs.logger()))
	defer func() { require.NoError(t, s.Close(ctx)) }()
	hist := chatHistory("bg", 400)
	n := startBackground(t, s, g, hist)

	st := s.Status()
	assert.True(t, st.InBackground, "the compaction runs in the background")
	assert.GreaterOrEqual(t, st.RequestTokens, st.SoftMark, "it started past the soft mark")
	assert.Less(t, st.RequestTokens, st.Threshold, "and before the threshold")
	assert.True(t, equalHistory(hist[:n], s.Messages()), "meanwhile the request is the live history")
	assert.False(t, s.ShouldCompress(), "the request path has nothing to do")

	during := hist[n : n+3]
	mustAppend(t, s, during...)
	close(g.release)
	finishBackground(t, s)

	next := s.Messages()
	require.NoError(t, compact.Validate(next))
	assert.Less(t, len(next), n+3)
	assert.True(t, equalHistory(during, next[len(next)-3:]), "what arrived during it follows, verbatim and in order")
	st = s.Status()
	assert.Equal(t, 1, st.Compactions)
	assert.Equal(t, 1, st.BackgroundCompactions)
	assert.Zero(t, st.ForegroundCompactions)
	assert.Zero(t, st.Waits.Count, "no request path waited")
	assert.False(t, st.InBackground)
	done := logs.lines("compaction done")
	require.Len(t, done, 1)
	assert.Equal(t, "background", done[0].attrs["in"])
	assert.EqualValues(t, 3, done[0].attrs["arrived_during"])
}

// historyOver appends to s, while its background compaction is held, until
// the request is over the hard limit.
func historyOver(t testing.TB, s *Session, g *gate, msgs []compact.Message) int {
	t.Helper()
	n := startBackground(t, s, g, msgs)
	return n + appendUntil(t, s, msgs[n:], func() bool { return s.ShouldCompress() })
}

// At the hard limit with a compaction running and nothing pruning can do
// (talk, no tool output), the request path waits for the compaction, and
// Status counts the wait.
func TestBackgroundAtTheHardLimitWaits(t *testing.T) {
	noLeaks(t)
	ctx := context.Background()
	g := newGate(4)
	s := newTestSession(t, "bg", g, WithBackground(true), WithSoftMark(0.5), WithStore(store.NewMemory()))
	defer func() { require.NoError(t, s.Close(ctx)) }()
	historyOver(t, s, g, chatHistory("bg", 400))
	st := s.Status()
	require.Greater(t, st.RequestTokens, st.HardLimit)
	require.Equal(t, st.Usable, st.HardLimit, "the hard limit is the usable window")

	waiting := make(chan struct{}, 1)
	s.onWait = func() {
		select {
		case waiting <- struct{}{}:
		default: // a later wait (Close's) is not the one the test awaits
		}
	}
	done := compactAsync(ctx, s)
	await(t, waiting, "the request path to wait")
	close(g.release)
	out := await(t, done, "Compress")
	require.NoError(t, out.err)
	assert.GreaterOrEqual(t, out.res.SummaryIndex, 0, "the Result is the compaction's waited for")

	st = s.Status()
	assert.LessOrEqual(t, st.RequestTokens, st.HardLimit, "the request fits")
	assert.False(t, s.ShouldCompress())
	assert.Equal(t, AtLimit{Waited: 1, Last: "waited"}, st.AtLimit)
	assert.Equal(t, 1, st.Waits.Count)
	assert.GreaterOrEqual(t, st.BackgroundCompactions, 1, "the history may still be past the soft mark: another may have started")
}

// The wait at the hard limit is bounded by ctx; the compaction goes on and
// commits.
func TestBackgroundWaitIsBoundedByContext(t *testing.T) {
	noLeaks(t)
	g := newGate(4)
	s := newTestSession(t, "bg", g, WithBackground(true), WithSoftMark(0.5), WithStore(store.NewMemory()))
	defer func() { require.NoError(t, s.Close(context.Background())) }()
	historyOver(t, s, g, chatHistory("bg", 400))

	ctx, cancel := context.WithCancel(context.Background())
	waiting := make(chan struct{}, 1)
	s.onWait = func() {
		select {
		case waiting <- struct{}{}:
		default: // a later wait (Close's) is not the one the test awaits
		}
	}
	done := compactAsync(ctx, s)
	await(t, waiting, "the request path to wait")
	cancel()
	out := await(t, done, "Compress")
	require.ErrorIs(t, out.err, context.Canceled)
	assert.Equal(t, 1, s.Status().Waits.Count, "a wait cut short is a wait")
	assert.True(t, s.Status().InBackground, "the compaction goes on")

	close(g.release)
	finishBackground(t, s)
	assert.Equal(t, 1, s.Status().BackgroundCompactions)
	assert.False(t, s.ShouldCompress(), "and brings the request under the limit")
}

// toolRounds is a coding agent's history: a task, then n rounds of a bash
// call and an output of about 300 tokens (byteCounter), each different.
func toolRounds(n int) []compact.Message {
	msgs := []compact.Message{sys("You are a coding agent."), user("Find out why the build is slow.")}
	for i := 0; i < n; i++ {
		id := "call_" + strings.Repeat("x", i%3) + string(rune('a'+i%26)) + strings.Repeat("0", i/26)
		out := strings.Repeat("step "+id+" took a while because the cache was cold; ", 24)
		msgs = append(msgs, call("checking step "+id, id, "bash"), result(id, out))
	}
	return msgs
}

// At the hard limit with a compaction running, a request that pruning
// alone makes fit is handed out pruned, with no wait; the live history and
// the log keep every message verbatim, and the compaction, once committed,
// replaces the pruned request.
func TestBackgroundAtTheHardLimitPrunesTheRequest(t *testing.T) {
	noLeaks(t)
	ctx := context.Background()
	g := newGate(4)
	mem := store.NewMemory()
	s, err := Open(ctx, "bg", newTestCompressor(g, compact.WithContextWindow(12_000)),
		WithBackground(true), WithSoftMark(0.5), WithStore(mem))
	require.NoError(t, err)
	defer func() { require.NoError(t, s.Close(ctx)) }()
	rounds := toolRounds(200)
	n := historyOver(t, s, g, rounds)
	live := s.Messages()

	res, err := s.Compress(ctx)
	require.NoError(t, err, "no wait")
	assert.Contains(t, res.Skipped, "pruned")
	assert.NotEmpty(t, res.Pruned)
	req := s.Messages()
	require.NoError(t, compact.Validate(req))
	assert.Len(t, req, len(live), "pruning replaces, never drops")
	assert.Contains(t, compact.Text(req[3]), "[pruned]", "old tool output is a stand-in")
	assert.LessOrEqual(t, s.countAll(req), s.Status().HardLimit)
	assert.False(t, s.ShouldCompress(), "the pruned request fits")
	st := s.Status()
	assert.Equal(t, AtLimit{Pruned: 1, Last: "pruned"}, st.AtLimit)
	assert.Zero(t, st.Waits.Count)
	assert.Greater(t, st.Tokens, st.HardLimit, "the live history is unchanged")
	recs, err := mem.Read(ctx, "bg", 1, 0)
	require.NoError(t, err)
	assert.True(t, equalHistory(rounds[:n], messagesOf(recs)), "the log keeps every message verbatim")

	mustAppend(t, s, user("And now?"))
	assert.True(t, equalHistory(append(live, user("And now?")), s.Messages()),
		"once the history changes the request is the live history again")

	close(g.release)
	finishBackground(t, s)
	after := s.Messages()
	assert.Less(t, len(after), len(live))
	assert.Equal(t, "And now?", compact.Text(after[len(after)-1]))
}

// failing is a summarizer failing as told, counting its calls.
func newFailing() *recorder { return &recorder{Err: errors.New("boom: the model is overloaded")} }

// A failed background compaction loses nothing and is not retried in a
// loop: none starts for a second after the first failure, two after the
// second, and a success clears the count.
func TestBackgroundFailureBacksOff(t *testing.T) {
	noLeaks(t)
	ctx := context.Background()
	clock := newSimClock()
	r := newFailing()
	s, err := Open(ctx, "bg", newTestCompressor(r, compact.WithFailurePolicy(compact.AbortOnFailure), compact.WithBackoff()),
		WithBackground(true), WithSoftMark(0.5), WithStore(store.NewMemory()), WithClock(clock.Now))
	require.NoError(t, err)
	defer func() { require.NoError(t, s.Close(ctx)) }()
	hist := chatHistory("bg", 400)
	n, st := runFirstBackground(t, s, hist)
	assert.Equal(t, 1, st.BackgroundFailures)
	assert.Contains(t, st.BackgroundError, "boom")
	assert.Equal(t, clock.Now().Add(time.Second), st.RetryAt)
	mustAppend(t, s, hist[n:n+4]...)
	n += 4
	assert.Equal(t, 1, started(s), "no retry before RetryAt")
	assert.Equal(t, 1, r.Calls())

	clock.Advance(time.Second)
	mustAppend(t, s, hist[n])
	n++
	finishBackground(t, s)
	st = s.Status()
	assert.Equal(t, 2, r.Calls(), "one retry once the wait is over")
	assert.Equal(t, 2, st.BackgroundFailures)
	assert.Equal(t, clock.Now().Add(2*time.Second), st.RetryAt, "the wait doubles")
	assert.True(t, equalHistory(hist[:n], s.Messages()), "nothing is lost")

	r.SetErr(nil)
	clock.Advance(2 * time.Second)
	mustAppend(t, s, hist[n])
	finishBackground(t, s)
	st = s.Status()
	assert.Equal(t, 1, st.BackgroundCompactions)
	assert.Empty(t, st.BackgroundError)
	assert.True(t, st.RetryAt.IsZero())
}

// The engine's backoff applies: while it backs off after a summarizer
// failure, no background compaction starts, whatever the session's own
// wait says.
func TestBackgroundKeepsTheEnginesBackoff(t *testing.T) {
	noLeaks(t)
	ctx := context.Background()
	clock := newSimClock()
	r := newFailing()
	engine := newTestCompressor(r, compact.WithFailurePolicy(compact.AbortOnFailure), compact.WithClock(clock.Now))
	s, err := Open(ctx, "bg", engine, WithBackground(true), WithSoftMark(0.5), WithClock(clock.Now))
	require.NoError(t, err)
	defer func() { require.NoError(t, s.Close(ctx)) }()
	hist := chatHistory("bg", 400)
	n := appendUntilStarted(t, s, hist)
	finishBackground(t, s)
	require.False(t, engine.Status().BackoffUntil.IsZero(), "the engine backs off")

	clock.Advance(30 * time.Second)
	mustAppend(t, s, hist[n])
	assert.Equal(t, 1, started(s), "none starts while the engine backs off")
	clock.Advance(31 * time.Second)
	r.SetErr(nil)
	mustAppend(t, s, hist[n+1])
	finishBackground(t, s)
	assert.Equal(t, 2, r.Calls())
	assert.Equal(t, 1, s.Status().BackgroundCompactions)
}

// Close cancels a background compaction: it returns with no goroutine of
// the session left, the history as it was, and no failure counted.
func TestBackgroundCloseCancels(t *testing.T) {
	noLeaks(t)
	ctx := context.Background()
	g := newGate(4)
	mem := store.NewMemory()
	s := newTestSession(t, "bg", g, WithBackground(true), WithSoftMark(0.5), WithStore(mem))
	hist := chatHistory("bg", 400)
	n := startBackground(t, s, g, hist)
	require.NoError(t, s.Close(ctx))
	st := s.Status()
	assert.True(t, st.Closed)
	assert.False(t, st.InBackground)
	assert.Zero(t, st.BackgroundFailures)
	assert.Zero(t, st.Compactions)
	live, _, _, err := mem.Live(ctx, "bg")
	require.NoError(t, err)
	assert.True(t, equalHistory(hist[:n], live))
}

// A background compaction never waits for the lease another process
// holds: it gives up, and tries again once the retry wait is over.
func TestBackgroundGivesWayToAnotherHolder(t *testing.T) {
	noLeaks(t)
	ctx := context.Background()
	clock := newSimClock()
	mem := store.NewMemory()
	other, err := mem.Acquire(ctx, "bg", time.Minute)
	require.NoError(t, err)
	s := newTestSession(t, "bg", &recorder{}, WithBackground(true), WithSoftMark(0.5), WithStore(mem), WithClock(clock.Now))
	defer func() { require.NoError(t, s.Close(ctx)) }()
	hist := chatHistory("bg", 400)
	n, st := runFirstBackground(t, s, hist)
	assert.Equal(t, 1, st.BackgroundFailures)
	assert.Contains(t, st.BackgroundError, "lease held")

	require.NoError(t, mem.Release(ctx, "bg", other))
	clock.Advance(time.Second)
	mustAppend(t, s, hist[n])
	finishBackground(t, s)
	assert.Equal(t, 1, s.Status().BackgroundCompactions)
}

// An engine that will not compact early (it ignores
// CompressOptions.Early) is not asked again at every append.
func TestBackgroundEngineThatDeclinesIsNotAskedInALoop(t *testing.T) {
	noLeaks(t)
	ctx := context.Background()
	clock := newSimClock()
	e := &lateEngine{Compressor: newTestCompressor(&recorder{})}
	s, err := Open(ctx, "bg", e, WithBackground(true), WithSoftMark(0.5), WithClock(clock.Now))
	require.NoError(t, err)
	defer func() { require.NoError(t, s.Close(ctx)) }()
	hist := chatHistory("bg", 400)
	n := appendUntilStarted(t, s, hist)
	finishBackground(t, s)
	mustAppend(t, s, hist[n:n+5]...)
	assert.Equal(t, 1, e.calls, "asked once")
	st := s.Status()
	assert.Zero(t, st.BackgroundFailures, "declining is no failure")
	assert.Equal(t, clock.Now().Add(time.Second), st.RetryAt)
}

// lateEngine compacts only at its threshold, whatever it is told.
type lateEngine struct {
	*compact.Compressor
	calls int // guarded by the session's slot
}

func (e *lateEngine) Compress(ctx context.Context, msgs []compact.Message, opts ...compact.CompressOption) (*compact.Result, error) {
	e.calls++
	opts = append(opts, func(o *compact.CompressOptions) { o.Early = false })
	return e.Compressor.Compress(ctx, msgs, opts...)
}

// An engine that finds a compaction would not pay (ErrNoSavings, as a
// priced Compressor says when the summary would not pay back its cache
// rewrite) is declining, not failing: it waits before asking again, and
// Status counts no failure.
func TestBackgroundNoSavingsIsNoFailure(t *testing.T) {
	noLeaks(t)
	ctx := context.Background()
	clock := newSimClock()
	e := &unprofitableEngine{Compressor: newTestCompressor(&recorder{})}
	s, err := Open(ctx, "bg", e, WithBackground(true), WithSoftMark(0.5), WithClock(clock.Now))
	require.NoError(t, err)
	defer func() { require.NoError(t, s.Close(ctx)) }()
	hist := chatHistory("bg", 400)
	n := appendUntilStarted(t, s, hist)
	finishBackground(t, s)
	mustAppend(t, s, hist[n:n+5]...)
	assert.Equal(t, 1, e.calls, "asked once")
	st := s.Status()
	assert.Zero(t, st.BackgroundFailures, "a fold that would not pay is no failure")
	assert.Empty(t, st.BackgroundError)
	assert.Equal(t, clock.Now().Add(time.Second), st.RetryAt)
	assert.True(t, equalHistory(hist[:n+5], s.Messages()), "nothing is lost")
}

// unprofitableEngine answers every compaction with ErrNoSavings.
type unprofitableEngine struct {
	*compact.Compressor
	calls int // guarded by the session's slot
}

func (e *unprofitableEngine) Compress(context.Context, []compact.Message, ...compact.CompressOption) (*compact.Result, error) {
	e.calls++
	return nil, fmt.Errorf("%w: the summary would not pay back writing the cached history again", compact.ErrNoSavings)
}
