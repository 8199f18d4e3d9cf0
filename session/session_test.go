package session

import (
	"context"
	"testing"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/session/store"
	"github.com/contextkit/compact/tokens"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Scenario 1: a 200-message session over the threshold compacts; its id is
// unchanged; the done log line names the same id as the started one; the
// next request sees the compacted history.
func TestSessionCompactionKeepsTheSessionID(t *testing.T) {
	ctx := context.Background()
	logs := &logSink{}
	mem := store.NewMemory()
	s := newTestSession(t, "agent-1", &recorder{Out: "The agent fixed the build."},
		WithLogger(logs.logger()), WithStore(mem))
	hist := chatHistory("agent-1", 200)
	mustAppend(t, s, hist...)
	require.Equal(t, 200, s.Len())
	require.Equal(t, tokens.CountMessages(byteCounter{}, hist), s.Tokens())
	require.True(t, s.ShouldCompress(), "200 messages are over the threshold")

	res, err := s.Compress(ctx)
	require.NoError(t, err)

	assert.Equal(t, "agent-1", s.ID(), "compaction never changes the id")
	started, done := logs.lines("compaction started"), logs.lines("compaction done")
	require.Len(t, started, 1)
	require.Len(t, done, 1)
	assert.Equal(t, "agent-1", started[0].attrs["session"])
	assert.Equal(t, started[0].attrs["session"], done[0].attrs["session"], "done names the id started named")
	assert.EqualValues(t, 200, done[0].attrs["messages_before"])
	assert.EqualValues(t, len(res.Messages), done[0].attrs["messages_after"])
	assert.EqualValues(t, tokens.CountMessages(byteCounter{}, hist), done[0].attrs["tokens_before"])
	assert.EqualValues(t, tokens.CountMessages(byteCounter{}, res.Messages), done[0].attrs["tokens_after"])

	next := s.Messages()
	assert.True(t, equalHistory(res.Messages, next), "the next request is the compacted history")
	assert.Less(t, len(next), 200)
	require.NoError(t, compact.Validate(next))
	assert.Equal(t, tokens.CountMessages(byteCounter{}, next), s.Tokens(), "the running count was reset")
	assert.False(t, s.ShouldCompress(), "the compacted history is under the threshold")

	// The full history was kept under a derived id, never the live one.
	comps, err := mem.Compactions(ctx, "agent-1")
	require.NoError(t, err)
	require.Len(t, comps, 1)
	assert.Equal(t, 1, comps[0].N)
	assert.EqualValues(t, 1, comps[0].From)
	assert.EqualValues(t, 200, comps[0].Through)
	assert.True(t, equalHistory(res.Messages, comps[0].Live))
	saved, err := mem.Snapshot(ctx, "agent-1~snapshot-1")
	require.NoError(t, err)
	assert.True(t, equalHistory(hist, saved), "the snapshot is the whole pre-compaction history")
	live, through, n, err := mem.Live(ctx, "agent-1")
	require.NoError(t, err)
	assert.True(t, equalHistory(next, live), "the store's live history is the compacted one")
	assert.EqualValues(t, 200, through)
	assert.Equal(t, 1, n)
	logged, err := mem.Read(ctx, "agent-1", 1, 0)
	require.NoError(t, err)
	require.Len(t, logged, 200, "the log keeps every message")
	assert.True(t, equalHistory(hist, messagesOf(logged)))

	st := s.Status()
	assert.Equal(t, "agent-1", st.ID)
	assert.Equal(t, 1, st.Compactions)
	assert.Equal(t, 1, st.Status.Compressions, "the engine counted it too")
	assert.Equal(t, "agent-1~snapshot-1", st.LastSnapshot)
}

// Scenario 2: two sessions compact; no log line of one names the other; a
// second compaction of the same session does not start until the first
// ends.
func TestSessionsCompactOneAtATimeAndLogOnlyTheirOwnID(t *testing.T) {
	noLeaks(t)
	ctx := context.Background()
	logs := &logSink{}
	gateA, gateB := newGate(1), newGate(1)
	a := newTestSession(t, "agent-a", gateA, WithLogger(logs.logger()))
	b := newTestSession(t, "agent-b", gateB, WithLogger(logs.logger()))
	waiting := make(chan struct{})
	a.onWait = func() { close(waiting) }
	mustAppend(t, a, chatHistory("agent-a", 200)...)
	mustAppend(t, b, chatHistory("agent-b", 120)...)

	first := compactAsync(ctx, a)
	await(t, gateA.entered, "the summarizer")
	other := compactAsync(ctx, b)
	await(t, gateB.entered, "the summarizer")       // b compacts while a does: sessions never wait for each other
	second := compactAsync(ctx, a, compact.Force()) // a /compress: the first leaves a under the threshold
	await(t, waiting, "a compaction to wait")       // the second compaction of a is waiting for the first

	assert.Len(t, logs.lines("compaction started"), 2, "a's second compaction has not started")
	gateA.release <- struct{}{}
	r1 := await(t, first, "the compaction")
	require.NoError(t, r1.err)
	await(t, gateA.entered, "the summarizer") // now it starts, on the history the first one left
	gateA.release <- struct{}{}
	r2 := await(t, second, "the compaction")
	require.NoError(t, r2.err)
	gateB.release <- struct{}{}
	rb := await(t, other, "the compaction")
	require.NoError(t, rb.err)

	assert.Equal(t, len(r1.res.Messages), r2.res.MessagesBefore,
		"the second compaction saw the first one's result, not the history it replaced")
	assert.Equal(t, "agent-a", a.ID())
	assert.Equal(t, "agent-b", b.ID())

	// Every line names the session whose sizes it reports.
	sizes := map[string][]any{
		"agent-a": {int64(200), int64(len(r1.res.Messages))},
		"agent-b": {int64(120)},
	}
	count := map[string]int{}
	order := []string{}
	for _, l := range logs.all() {
		id, _ := l.attrs["session"].(string)
		require.Contains(t, sizes, id, "line %v names no known session", l)
		n, ok := l.attrs["messages"]
		if !ok {
			n, ok = l.attrs["messages_before"]
		}
		if ok {
			assert.Contains(t, sizes[id], n, "line %v reports another session's history", l)
		}
		count[id+" "+l.msg]++
		if id == "agent-a" {
			order = append(order, l.msg)
		}
	}
	assert.Equal(t, map[string]int{
		"agent-a compaction started": 2, "agent-a compaction waiting": 1, "agent-a compaction done": 2,
		"agent-b compaction started": 1, "agent-b compaction done": 1,
	}, count)
	assert.Equal(t, []string{"compaction started", "compaction waiting", "compaction done",
		"compaction started", "compaction done"}, order,
		"a's second compaction started after its first was done")
}

// Scenario 3: a message appended mid-compaction is in the next request,
// after the summary, in order; several such messages keep their order.
func TestSessionKeepsMessagesAppendedDuringCompaction(t *testing.T) {
	noLeaks(t)
	ctx := context.Background()
	g := newGate(1)
	s := newTestSession(t, "agent-1", g)
	mustAppend(t, s, chatHistory("agent-1", 200)...)

	done := compactAsync(ctx, s)
	await(t, g.entered, "the summarizer") // the summarizer is running and holds the compaction open
	late := []compact.Message{
		asst("agent-1 late 1: the build is green"),
		user("agent-1 late 2: now run the linters"),
		call("agent-1 late 3", "c9", "bash"),
		result("c9", "agent-1 late 4: lint clean"),
		partsMsg(compact.RoleUser, "agent-1 late 5", "img:https://example.com/shot.png"),
	}
	want := compact.Clone(late)
	mustAppend(t, s, late[0])
	mustAppend(t, s, late[1])
	mustAppend(t, s, late[2:]...)
	late[1].Content = "changed by the caller after Append"
	late[4].MultiContent[0].Text = "changed through a shared slice"
	late = want

	during := s.Messages()
	assert.Len(t, during, 205, "a request made mid-compaction sees the old history and the new messages")
	assert.True(t, equalHistory(late, during[200:]))

	g.release <- struct{}{}
	out := await(t, done, "the compaction")
	require.NoError(t, out.err)
	next := s.Messages()
	k := len(out.res.Messages)
	require.Equal(t, k+len(late), len(next))
	assert.True(t, equalHistory(out.res.Messages, next[:k]), "the compacted history comes first")
	assert.True(t, equalHistory(late, next[k:]), "then every late message, verbatim and in order")
	assert.Less(t, out.res.SummaryIndex, k, "so the late messages follow the summary")
	assert.True(t, compact.IsSummary(next[out.res.SummaryIndex]))
	require.NoError(t, compact.Validate(next))
	assert.Equal(t, tokens.CountMessages(byteCounter{}, next), s.Tokens(), "late messages are counted once")
	assert.Equal(t, "agent-1", s.ID())
}

func TestSessionWaitingCompressionHonoursItsContext(t *testing.T) {
	noLeaks(t)
	g := newGate(1)
	s := newTestSession(t, "agent-1", g)
	waiting := make(chan struct{})
	s.onWait = func() { close(waiting) }
	mustAppend(t, s, chatHistory("agent-1", 200)...)

	first := compactAsync(context.Background(), s)
	await(t, g.entered, "the summarizer")
	ctx, cancel := context.WithCancel(context.Background())
	second := compactAsync(ctx, s)
	await(t, waiting, "a compaction to wait")
	cancel()
	r := await(t, second, "the compaction")
	assert.ErrorIs(t, r.err, context.Canceled)
	assert.Nil(t, r.res)

	g.release <- struct{}{}
	require.NoError(t, await(t, first, "the compaction").err)
}

func TestSessionNoWaitRefusesASecondCompression(t *testing.T) {
	noLeaks(t)
	g := newGate(1)
	s := newTestSession(t, "agent-1", g, WithWait(false))
	mustAppend(t, s, chatHistory("agent-1", 200)...)

	first := compactAsync(context.Background(), s)
	await(t, g.entered, "the summarizer")
	assert.False(t, s.ShouldCompress(), "no second compaction is asked for while one runs")
	assert.True(t, s.Status().Compacting)
	res, err := s.Compress(context.Background())
	assert.ErrorIs(t, err, ErrBusy)
	assert.Nil(t, res)

	g.release <- struct{}{}
	require.NoError(t, await(t, first, "the compaction").err)
	assert.False(t, s.Status().Compacting)
}
