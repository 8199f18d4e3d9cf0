package session

import (
	"context"
	"errors"
	"testing"

	"github.com/contextkit/compact"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestNewSessionChecksTheID(t *testing.T) {
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
		s, err := New(tt.id, newTestCompressor(&recorder{}))
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
	s.Append(m)
	m.MultiContent[0].Text = "changed by the caller"
	got := s.Messages()
	assert.Equal(t, "look at this", got[0].MultiContent[0].Text, "Append copies")
	got[0].MultiContent[0].Text = "changed by a reader"
	assert.Equal(t, "look at this", s.Messages()[0].MultiContent[0].Text, "Messages copies")

	s.Append() // nothing
	assert.Equal(t, 1, s.Len())
	assert.Equal(t, compact.CountMessages(byteCounter{}, s.Messages()), s.Tokens())
	empty := newTestSession(t, "agent-2", &recorder{})
	assert.Zero(t, empty.Tokens(), "an empty history is no request")
	assert.Nil(t, empty.Messages())
}

func TestSessionCountsWithTheEnginesCounter(t *testing.T) {
	hist := chatHistory("agent-1", 10)
	s := newTestSession(t, "agent-1", &recorder{})
	s.Append(hist...)
	assert.Equal(t, compact.CountMessages(byteCounter{}, hist), s.Tokens())

	est, err := New("agent-2", nil, WithCounter(compact.EstimateCounter{}))
	require.NoError(t, err)
	est.Append(hist...)
	assert.Equal(t, compact.CountMessages(compact.EstimateCounter{}, hist), est.Tokens())
}

func TestSessionFailedCompactionKeepsEverything(t *testing.T) {
	ctx := context.Background()
	logs := &logSink{}
	store := NewMemoryStore()
	boom := errors.New("endpoint down")
	s, err := New("agent-1", newTestCompressor(&recorder{err: boom}, compact.WithFailurePolicy(compact.AbortOnFailure)),
		WithLogger(logs.logger()), WithStore(store))
	require.NoError(t, err)
	hist := chatHistory("agent-1", 200)
	s.Append(hist...)

	res, err := s.Compress(ctx)
	assert.Nil(t, res)
	assert.ErrorIs(t, err, compact.ErrSummarizer)
	assert.ErrorIs(t, err, boom)
	assert.True(t, equalHistory(hist, s.Messages()))
	assert.Equal(t, compact.CountMessages(byteCounter{}, hist), s.Tokens())
	snaps, err := store.Snapshots(ctx, "agent-1")
	require.NoError(t, err)
	assert.Empty(t, snaps, "no snapshot of a compaction that did not happen")
	failed := logs.lines("compaction failed")
	require.Len(t, failed, 1)
	assert.Equal(t, "agent-1", failed[0].attrs["session"])
	assert.Empty(t, logs.lines("compaction done"))
}

func TestSessionStoreFailureAbandonsTheCompaction(t *testing.T) {
	ctx := context.Background()
	full := errors.New("disk full")
	tests := []struct {
		name      string
		store     *failingStore
		snapshots int
	}{
		{"snapshot refused", &failingStore{MemoryStore: NewMemoryStore(), snapshotErr: full}, 0},
		{"live history refused", &failingStore{MemoryStore: NewMemoryStore(), saveErr: full}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newTestSession(t, "agent-1", &recorder{out: "summary"}, WithStore(tt.store))
			hist := chatHistory("agent-1", 200)
			s.Append(hist...)
			res, err := s.Compress(ctx)
			assert.Nil(t, res)
			assert.ErrorIs(t, err, full)
			assert.True(t, equalHistory(hist, s.Messages()), "the live history is unchanged")
			assert.Equal(t, compact.CountMessages(byteCounter{}, hist), s.Tokens())
			snaps, err := tt.store.Snapshots(ctx, "agent-1")
			require.NoError(t, err)
			assert.Len(t, snaps, tt.snapshots, "a saved snapshot is kept, never removed")
			assert.Zero(t, s.Status().Compactions)
		})
	}
}

func TestSessionPinsItsIDOnTheEngine(t *testing.T) {
	logs := &logSink{}
	e := &spyEngine{Compressor: newTestCompressor(&recorder{out: "summary"})}
	s, err := New("agent-1", e, WithLogger(logs.logger()))
	require.NoError(t, err)
	s.Append(chatHistory("agent-1", 200)...)
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
	s := newTestSession(t, "agent-1", &recorder{out: "summary"})
	s.Append(chatHistory("agent-1", 200)...)
	in := user("agent-1 incoming: and now the docs")
	res, err := s.Compress(context.Background(), compact.WithIncoming(in))
	require.NoError(t, err)
	msgs := s.Messages()
	assert.True(t, equalMessage(in, msgs[len(msgs)-1]), "the incoming message comes back last")
	assert.True(t, equalHistory(res.Messages, msgs))
	assert.Equal(t, compact.CountMessages(byteCounter{}, msgs), s.Tokens())
}

func TestSessionReset(t *testing.T) {
	noLeaks(t)
	ctx := context.Background()
	store := NewMemoryStore()
	g := newGate(1)
	e := &spyEngine{Compressor: newTestCompressor(g)}
	s, err := New("agent-1", e, WithStore(store))
	require.NoError(t, err)
	s.Append(chatHistory("agent-1", 200)...)

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
	live, err := store.Load(ctx, "agent-1")
	require.NoError(t, err)
	assert.Empty(t, live)
	snaps, err := store.Snapshots(ctx, "agent-1")
	require.NoError(t, err)
	assert.Len(t, snaps, 1, "snapshots outlive a reset")

	s.Append(user("agent-1 starts over"))
	assert.Equal(t, 1, s.Len())
}

func TestSessionCloseAndFlush(t *testing.T) {
	ctx := context.Background()
	store := NewMemoryStore()
	e := &spyEngine{Compressor: newTestCompressor(&recorder{out: "summary"})}
	s, err := New("agent-1", e, WithStore(store))
	require.NoError(t, err)
	hist := chatHistory("agent-1", 6)
	s.Append(hist[:3]...)
	require.NoError(t, s.Flush(ctx))
	saved, err := store.Load(ctx, "agent-1")
	require.NoError(t, err)
	assert.True(t, equalHistory(hist[:3], saved))

	s.Append(hist[3:]...)
	require.NoError(t, s.Close(ctx))
	saved, err = store.Load(ctx, "agent-1")
	require.NoError(t, err)
	assert.True(t, equalHistory(hist, saved), "Close flushes")
	require.NoError(t, s.Close(ctx), "closing twice does nothing")
	_, events := e.seen()
	assert.Equal(t, []string{"start agent-1", "end agent-1"}, events)

	assert.True(t, s.Status().Closed)
	assert.False(t, s.ShouldCompress())
	_, err = s.Compress(ctx, compact.Force())
	assert.ErrorIs(t, err, ErrClosed)
	assert.ErrorIs(t, s.Reset(ctx), ErrClosed)
	s.Append(user("after close"))
	assert.Equal(t, 7, s.Len(), "Append never drops a message")

	noStore := newTestSession(t, "agent-2", &recorder{})
	assert.NoError(t, noStore.Flush(ctx), "without a store Flush does nothing")
}

func TestSessionCloseFailsWhenTheFlushFails(t *testing.T) {
	ctx := context.Background()
	full := errors.New("disk full")
	st := &failingStore{MemoryStore: NewMemoryStore(), saveErr: full}
	s := newTestSession(t, "agent-1", &recorder{}, WithStore(st))
	s.Append(user("keep me"))
	assert.ErrorIs(t, s.Close(ctx), full)
	assert.False(t, s.Status().Closed, "the session stays open so Close can be retried")
	st.saveErr = nil
	require.NoError(t, s.Close(ctx))
	assert.True(t, s.Status().Closed)
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
	s, err := New("agent-1", engineWithoutResult{newTestCompressor(&recorder{})})
	require.NoError(t, err)
	hist := chatHistory("agent-1", 20)
	s.Append(hist...)
	_, err = s.Compress(context.Background())
	assert.ErrorIs(t, err, compact.ErrInvalidHistory)
	assert.True(t, equalHistory(hist, s.Messages()))
}

// The engine hears what the host knows as the session starts, and gets the
// final messages when it ends; a Compressor moves to the model it is told.
func TestSessionHooksCarryMetadataAndTheFinalMessages(t *testing.T) {
	e := &spyEngine{Compressor: newTestCompressor(&recorder{})}
	meta := compact.SessionMeta{Model: "gpt-4.1", Window: 6000, Platform: "cli", Extra: map[string]string{"user": "u1"}}
	s, err := New("agent-1", e, WithMeta(meta))
	require.NoError(t, err)
	assert.Equal(t, meta, e.meta)
	assert.Equal(t, "gpt-4.1", e.Status().Model)
	assert.Equal(t, 6000, e.Status().Window)
	s.Append(user("hello"), asst("hi"))
	require.NoError(t, s.Close(context.Background()))
	assert.Equal(t, []compact.Message{user("hello"), asst("hi")}, e.final)
}
