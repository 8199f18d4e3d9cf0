package session

import (
	"context"
	"errors"
	"testing"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/session/store"
	"github.com/contextkit/compact/tokens"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestOpenChecksTheID(t *testing.T) {
	tests := []struct {
		id string
		ok bool
	}{
		{"agent-1", true},
		{"team/alpha:7", true},
		{"a~b", true},
		{"a~snapshot", true},
		{"用户-7", true},
		{"", false},
		{"agent-1~snapshot-1", false},
		{"x~snapshot-", false},
		{"a\nb", false},
		{"tab\there", false},
		{"bad\xffutf8", false},
	}
	for _, tt := range tests {
		s, err := Open(context.Background(), tt.id, newTestCompressor(&recorder{}))
		if tt.ok {
			require.NoError(t, err, "%q", tt.id)
			assert.Equal(t, tt.id, s.ID())
			continue
		}
		assert.ErrorIs(t, err, ErrInvalidID, "%q", tt.id)
		assert.Nil(t, s)
	}
}

func TestSessionAppendAndMessagesCopy(t *testing.T) {
	s := newTestSession(t, "agent-1", &recorder{})
	m := partsMsg(compact.RoleUser, "look at this", "img:https://example.com/a.png")
	mustAppend(t, s, m)
	m.MultiContent[0].Text = "changed by the caller"
	got := s.Messages()
	assert.Equal(t, "look at this", got[0].MultiContent[0].Text, "Append copies")
	got[0].MultiContent[0].Text = "changed by a reader"
	assert.Equal(t, "look at this", s.Messages()[0].MultiContent[0].Text, "Messages copies")

	mustAppend(t, s) // nothing
	assert.Equal(t, 1, s.Len())
	assert.Equal(t, tokens.CountMessages(byteCounter{}, s.Messages()), s.Tokens())
	empty := newTestSession(t, "agent-2", &recorder{})
	assert.Zero(t, empty.Tokens(), "an empty history is no request")
	assert.Nil(t, empty.Messages())
}

func TestSessionCountsWithTheEnginesCounter(t *testing.T) {
	hist := chatHistory("agent-1", 10)
	s := newTestSession(t, "agent-1", &recorder{})
	mustAppend(t, s, hist...)
	assert.Equal(t, tokens.CountMessages(byteCounter{}, hist), s.Tokens())

	est, err := Open(context.Background(), "agent-2", nil, WithTokenCounter(tokens.Estimator{}))
	require.NoError(t, err)
	mustAppend(t, est, hist...)
	assert.Equal(t, tokens.CountMessages(tokens.Estimator{}, hist), est.Tokens())
}

func TestSessionFailedCompactionKeepsEverything(t *testing.T) {
	ctx := context.Background()
	logs := &logSink{}
	st := store.NewMemory()
	boom := errors.New("endpoint down")
	s, err := Open(context.Background(), "agent-1", newTestCompressor(&recorder{Err: boom}, compact.WithFailurePolicy(compact.AbortOnFailure)),
		WithLogger(logs.logger()), WithStore(st))
	require.NoError(t, err)
	hist := chatHistory("agent-1", 200)
	mustAppend(t, s, hist...)

	res, err := s.Compress(ctx)
	assert.Nil(t, res)
	assert.ErrorIs(t, err, compact.ErrSummarizer)
	assert.ErrorIs(t, err, boom)
	assert.True(t, equalHistory(hist, s.Messages()))
	assert.Equal(t, tokens.CountMessages(byteCounter{}, hist), s.Tokens())
	comps, err := st.Compactions(ctx, "agent-1")
	require.NoError(t, err)
	assert.Empty(t, comps, "no record of a compaction that did not happen")
	failed := logs.lines("compaction failed")
	require.Len(t, failed, 1)
	assert.Equal(t, "agent-1", failed[0].attrs["session"])
	assert.Empty(t, logs.lines("compaction done"))
}

func TestSessionStoreFailureAbandonsTheCompaction(t *testing.T) {
	ctx := context.Background()
	full := errors.New("disk full")
	st := &failingStore{Memory: store.NewMemory(), commitErr: full}
	s := newTestSession(t, "agent-1", &recorder{Out: "summary"}, WithStore(st))
	hist := chatHistory("agent-1", 200)
	mustAppend(t, s, hist...)
	res, err := s.Compress(ctx)
	assert.Nil(t, res)
	assert.ErrorIs(t, err, full)
	assert.True(t, equalHistory(hist, s.Messages()), "the live history is unchanged")
	assert.Equal(t, tokens.CountMessages(byteCounter{}, hist), s.Tokens())
	live, _, _, err := st.Live(ctx, "agent-1")
	require.NoError(t, err)
	assert.True(t, equalHistory(hist, live), "the store's live history is unchanged")
	assert.Zero(t, s.Status().Compactions)
}

func TestSessionAppendFailsWhenTheStoreRefuses(t *testing.T) {
	ctx := context.Background()
	full := errors.New("disk full")
	st := &failingStore{Memory: store.NewMemory()}
	s := newTestSession(t, "agent-1", &recorder{Out: "summary"}, WithStore(st))
	mustAppend(t, s, user("agent-1 kept"))
	st.appendErr = full
	assert.ErrorIs(t, s.Append(ctx, user("agent-1 refused")), full)
	assert.Equal(t, 1, s.Len(), "a refused message is not recorded")
	st.appendErr = nil
	mustAppend(t, s, user("agent-1 retried"))
	logged, err := st.Read(ctx, "agent-1", 1, 0)
	require.NoError(t, err)
	assert.Equal(t, []string{"agent-1 kept", "agent-1 retried"}, []string{logged[0].Message.Content, logged[1].Message.Content})
	assert.Len(t, logged, 2)
}

func TestSessionPinsItsIDOnTheEngine(t *testing.T) {
	logs := &logSink{}
	e := &spyEngine{Compressor: newTestCompressor(&recorder{Out: "summary"})}
	s, err := Open(context.Background(), "agent-1", e, WithLogger(logs.logger()))
	require.NoError(t, err)
	mustAppend(t, s, chatHistory("agent-1", 200)...)
	_, err = s.Compress(context.Background(), compact.WithSessionID("agent-2"))
	require.NoError(t, err)
	ids, events := e.seen()
	assert.Equal(t, []string{"agent-1"}, ids, "a caller cannot compact under another session's id")
	assert.Equal(t, []string{"start agent-1"}, events)
	for _, l := range logs.all() {
		assert.Equal(t, "agent-1", l.attrs["session"], "line %v", l)
	}
}

func TestSessionIncomingBecomesPartOfTheHistory(t *testing.T) {
	s := newTestSession(t, "agent-1", &recorder{Out: "summary"})
	mustAppend(t, s, chatHistory("agent-1", 200)...)
	in := user("agent-1 incoming: and now the docs")
	res, err := s.Compress(context.Background(), compact.WithIncoming(in))
	require.NoError(t, err)
	msgs := s.Messages()
	assert.True(t, equalMessage(in, msgs[len(msgs)-1]), "the incoming message comes back last")
	assert.True(t, equalHistory(res.Messages, msgs))
	assert.Equal(t, tokens.CountMessages(byteCounter{}, msgs), s.Tokens())
}

func TestSessionReset(t *testing.T) {
	noLeaks(t)
	ctx := context.Background()
	st := store.NewMemory()
	g := newGate(1)
	e := &spyEngine{Compressor: newTestCompressor(g)}
	s, err := Open(context.Background(), "agent-1", e, WithStore(st))
	require.NoError(t, err)
	mustAppend(t, s, chatHistory("agent-1", 200)...)

	// Reset waits for a running compaction; a Reset that gives up clears
	// nothing.
	done := compactAsync(ctx, s)
	await(t, g.entered, "the summarizer")
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	assert.ErrorIs(t, s.Reset(cancelled), context.Canceled)
	g.release <- struct{}{}
	require.NoError(t, await(t, done, "the compaction").err)
	assert.NotZero(t, s.Len())
	assert.Equal(t, 1, s.Status().Status.Compressions)

	require.NoError(t, s.Reset(ctx))
	assert.Zero(t, s.Len())
	assert.Zero(t, s.Tokens())
	assert.Zero(t, s.Status().Status.Compressions, "the engine forgot the conversation")
	assert.Equal(t, "agent-1", s.ID())
	_, events := e.seen()
	assert.Equal(t, []string{"start agent-1", "reset agent-1"}, events)
	live, _, _, err := st.Live(ctx, "agent-1")
	require.NoError(t, err)
	assert.Empty(t, live)
	comps, err := st.Compactions(ctx, "agent-1")
	require.NoError(t, err)
	require.Len(t, comps, 2, "a reset is recorded as a compaction to nothing")
	assert.Equal(t, store.ResetSummarizer, comps[1].Summarizer)
	before, err := st.Snapshot(ctx, store.SnapshotID("agent-1", 2))
	require.NoError(t, err)
	assert.NotEmpty(t, before, "the history before the reset stays addressable")
	logged, err := st.Read(ctx, "agent-1", 1, 0)
	require.NoError(t, err)
	assert.Len(t, logged, 200, "the log keeps every message")

	mustAppend(t, s, user("agent-1 starts over"))
	assert.Equal(t, 1, s.Len())
}

func TestSessionClose(t *testing.T) {
	ctx := context.Background()
	st := store.NewMemory()
	e := &spyEngine{Compressor: newTestCompressor(&recorder{Out: "summary"})}
	s, err := Open(context.Background(), "agent-1", e, WithStore(st))
	require.NoError(t, err)
	hist := chatHistory("agent-1", 6)
	mustAppend(t, s, hist[:3]...)
	saved, _, _, err := st.Live(ctx, "agent-1")
	require.NoError(t, err)
	assert.True(t, equalHistory(hist[:3], saved), "Append writes through")

	mustAppend(t, s, hist[3:]...)
	require.NoError(t, s.Close(ctx))
	require.NoError(t, s.Close(ctx), "closing twice does nothing")
	_, events := e.seen()
	assert.Equal(t, []string{"start agent-1", "end agent-1"}, events)

	assert.True(t, s.Status().Closed)
	assert.False(t, s.ShouldCompress())
	_, err = s.Compress(ctx, compact.Force())
	assert.ErrorIs(t, err, ErrClosed)
	assert.ErrorIs(t, s.Reset(ctx), ErrClosed)
	mustAppend(t, s, user("after close"))
	assert.Equal(t, 7, s.Len(), "Append never drops a message")
	saved, _, _, err = st.Live(ctx, "agent-1")
	require.NoError(t, err)
	assert.Len(t, saved, 7)
}

func TestSessionCarriesOnFromItsStore(t *testing.T) {
	ctx := context.Background()
	st := store.NewMemory()
	first := newTestSession(t, "agent-1", &recorder{Out: "summary"}, WithStore(st))
	mustAppend(t, first, chatHistory("agent-1", 200)...)
	_, err := first.Compress(ctx)
	require.NoError(t, err)
	mustAppend(t, first, user("agent-1 after the compaction"))

	// A second process (here a second Session on the same store) carries on:
	// Open reads the history before anything else can.
	second := newTestSession(t, "agent-1", &recorder{Out: "summary"}, WithStore(st))
	assert.True(t, equalHistory(first.Messages(), second.Messages()))
	assert.Equal(t, first.Tokens(), second.Tokens())

	// Each sees the other's appends on its next append.
	mustAppend(t, second, user("agent-1 from the second"))
	mustAppend(t, first, user("agent-1 from the first"))
	want, _, _, err := st.Live(ctx, "agent-1")
	require.NoError(t, err)
	assert.True(t, equalHistory(want, first.Messages()), "the first re-read the log when it found it had grown")
	require.NoError(t, second.Sync(ctx))
	assert.True(t, equalHistory(want, second.Messages()))
}

func TestSessionUpdateUsageReachesTheEngine(t *testing.T) {
	s := newTestSession(t, "agent-1", &recorder{})
	s.UpdateUsage(compact.Usage{PromptTokens: 1234})
	assert.Equal(t, 1234, s.Status().LastPromptTokens)
}

// engineWithoutResult breaks the ContextEngine contract: no result, no
// error.
type engineWithoutResult struct{ *compact.Compressor }

func (engineWithoutResult) Compress(context.Context, []compact.Message, ...compact.CompressOption) (*compact.Result, error) {
	return nil, nil
}

func TestSessionSurvivesAnEngineThatReturnsNothing(t *testing.T) {
	s, err := Open(context.Background(), "agent-1", engineWithoutResult{newTestCompressor(&recorder{})})
	require.NoError(t, err)
	hist := chatHistory("agent-1", 20)
	mustAppend(t, s, hist...)
	_, err = s.Compress(context.Background())
	assert.ErrorIs(t, err, compact.ErrInvalidHistory)
	assert.True(t, equalHistory(hist, s.Messages()))
}

// The engine hears what the host knows as the session starts, and gets the
// final messages when it ends; a Compressor moves to the model it is told.
func TestSessionHooksCarryMetadataAndTheFinalMessages(t *testing.T) {
	e := &spyEngine{Compressor: newTestCompressor(&recorder{})}
	meta := compact.SessionMeta{Model: "gpt-4.1", Window: 6000, Platform: "cli", Extra: map[string]string{"user": "u1"}}
	s, err := Open(context.Background(), "agent-1", e, WithMeta(meta))
	require.NoError(t, err)
	assert.Equal(t, meta, e.meta)
	assert.Equal(t, "gpt-4.1", e.Status().Model)
	assert.Equal(t, 6000, e.Status().Window)
	mustAppend(t, s, user("hello"), asst("hi"))
	require.NoError(t, s.Close(context.Background()))
	assert.Equal(t, []compact.Message{user("hello"), asst("hi")}, e.final)
}
