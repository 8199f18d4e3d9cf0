package session

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/session/store"
	"github.com/contextkit/compact/tokens"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Scenario 4: thirteen sessions on one Manager cross the threshold within
// the same moment and compact concurrently while other goroutines append to
// them: no id changes, no message lost, none delivered to the wrong session,
// no goroutine leak.
func TestManagerCompactsThirteenSessionsAtOnceWhileAppendsArrive(t *testing.T) {
	noLeaks(t)
	const (
		sessions = 13
		writers  = 3  // goroutines appending to each session
		perWrite = 20 // messages each writer appends, half mid-compaction
	)
	ctx := context.Background()
	logs := &logSink{}
	st := store.NewMemory()
	g := newGate(sessions)
	m := NewManager(func(string) compact.ContextEngine { return newTestCompressor(g) },
		WithLogger(logs.logger()), WithStore(st))

	ids := make([]string, sessions)
	for i := range ids {
		ids[i] = fmt.Sprintf("agent-%02d", i)
		s, err := m.Get(context.Background(), ids[i])
		require.NoError(t, err)
		mustAppend(t, s, chatHistory(ids[i], 200)...)
		require.True(t, s.ShouldCompress())
	}

	start := make(chan struct{})
	results := make([]outcome, sessions)
	var compactions sync.WaitGroup
	for i, id := range ids {
		compactions.Add(1)
		go func(i int, id string) {
			defer compactions.Done()
			<-start
			s, err := m.Get(context.Background(), id)
			if err != nil {
				results[i] = outcome{err: err}
				return
			}
			res, err := s.Compress(ctx)
			results[i] = outcome{res, err}
		}(i, id)
	}
	close(start)
	for range ids {
		await(t, g.entered, "the summarizer") // all thirteen are compacting at the same time
	}

	// Writers append while every compaction is held open, then go on while
	// the compactions finish and install their results.
	halfway := make(chan struct{}, sessions*writers)
	var appends sync.WaitGroup
	for _, id := range ids {
		for w := 0; w < writers; w++ {
			appends.Add(1)
			go func(id string, w int) {
				defer appends.Done()
				for k := 0; k < perWrite; k++ {
					if k == perWrite/2 {
						halfway <- struct{}{}
					}
					s, err := m.Get(context.Background(), id)
					if err != nil {
						return
					}
					assert.NoError(t, s.Append(ctx, user(fmt.Sprintf("%s writer %d message %d", id, w, k))))
				}
			}(id, w)
		}
	}
	for i := 0; i < sessions*writers; i++ {
		await(t, halfway, "the writers")
	}
	close(g.release)
	compactions.Wait()
	appends.Wait()

	assert.Equal(t, ids, m.Sessions())
	engines := map[compact.ContextEngine]string{}
	for i, id := range ids {
		require.NoError(t, results[i].err, id)
		s, ok := m.Lookup(id)
		require.True(t, ok)
		assert.Equal(t, id, s.ID(), "the id never changes")
		other, dup := engines[s.Engine()]
		assert.False(t, dup, "%s and %s share an engine", id, other)
		engines[s.Engine()] = id

		msgs := s.Messages()
		require.NoError(t, compact.Validate(msgs))
		k := len(results[i].res.Messages)
		assert.True(t, equalHistory(results[i].res.Messages, msgs[:k]), "%s: the compacted history comes first", id)
		next := make([]int, writers)
		for _, msg := range msgs[k:] {
			var w, n int
			var owner string
			_, err := fmt.Sscanf(msg.Content, "%s writer %d message %d", &owner, &w, &n)
			require.NoError(t, err, "%s: unexpected message %q after the compacted history", id, msg.Content)
			require.Equal(t, id, owner, "a message for %s was delivered to %s", owner, id)
			require.Equal(t, next[w], n, "%s: writer %d's messages out of order", id, w)
			next[w]++
		}
		for w := range next {
			assert.Equal(t, perWrite, next[w], "%s: writer %d lost messages", id, w)
		}
		for _, msg := range msgs {
			if owner, _, found := strings.Cut(compact.Text(msg), " "); found && strings.HasPrefix(owner, "agent-") {
				assert.Equal(t, id, owner, "%s holds another session's message", id)
			}
		}
		assert.Equal(t, tokens.CountMessages(byteCounter{}, msgs), s.Tokens(), id)

		comps, err := st.Compactions(ctx, id)
		require.NoError(t, err)
		require.Len(t, comps, 1)
		saved, err := st.Snapshot(ctx, store.SnapshotID(id, 1))
		require.NoError(t, err)
		assert.True(t, equalHistory(chatHistory(id, 200), saved), "%s: the snapshot is its own history", id)
	}
	for _, l := range logs.lines("compaction done") {
		assert.EqualValues(t, 200, l.attrs["messages_before"], "line %v", l)
	}
	assert.Len(t, logs.lines("compaction started"), sessions)
	assert.Len(t, logs.lines("compaction done"), sessions)
}

func TestManagerGetReturnsOneSessionPerID(t *testing.T) {
	var mu sync.Mutex
	built := 0
	m := NewManager(func(string) compact.ContextEngine {
		mu.Lock()
		built++
		mu.Unlock()
		return newTestCompressor(&recorder{})
	})
	const callers = 16
	got := make([]*Session, callers)
	var wg sync.WaitGroup
	for i := range got {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			s, err := m.Get(context.Background(), "agent-1")
			assert.NoError(t, err)
			got[i] = s
		}(i)
	}
	wg.Wait()
	for _, s := range got {
		assert.Same(t, got[0], s, "every caller gets the same session")
	}
	assert.Equal(t, []string{"agent-1"}, m.Sessions())
	assert.GreaterOrEqual(t, built, 1)
}

func TestManagerSessionsShareNothing(t *testing.T) {
	m := NewManager(nil)
	a, err := m.Get(context.Background(), "a")
	require.NoError(t, err)
	b, err := m.Get(context.Background(), "b")
	require.NoError(t, err)
	assert.NotSame(t, a, b)
	assert.NotSame(t, a.Engine().(*compact.Compressor), b.Engine().(*compact.Compressor), "each session has its own engine")

	msg := partsMsg(compact.RoleUser, "shared part")
	mustAppend(t, a, msg)
	mustAppend(t, b, msg)
	ma := a.Messages()
	ma[0].MultiContent[0].Text = "edited in a's copy"
	assert.Equal(t, "shared part", b.Messages()[0].MultiContent[0].Text)
	assert.Equal(t, "shared part", a.Messages()[0].MultiContent[0].Text)
	mustAppend(t, a, user("only a"))
	assert.Equal(t, 2, a.Len())
	assert.Equal(t, 1, b.Len())
}

func TestManagerRefusesAnEngineThatServesAnotherSession(t *testing.T) {
	shared := newTestCompressor(&recorder{})
	m := NewManager(func(string) compact.ContextEngine { return shared })
	_, err := m.Get(context.Background(), "a")
	require.NoError(t, err)
	_, err = m.Get(context.Background(), "b")
	assert.ErrorIs(t, err, ErrSharedEngine)
	assert.Equal(t, []string{"a"}, m.Sessions())

	// Once a is removed its engine is free again.
	require.NoError(t, m.Remove(context.Background(), "a"))
	_, err = m.Get(context.Background(), "b")
	assert.NoError(t, err)
}

func TestManagerRejectsInvalidIDs(t *testing.T) {
	m := NewManager(nil)
	for _, id := range []string{"", "a~snapshot-1", "a\nb"} {
		_, err := m.Get(context.Background(), id)
		assert.ErrorIs(t, err, ErrInvalidID, "%q", id)
	}
	assert.Empty(t, m.Sessions())
}

func TestManagerRemoveAndClose(t *testing.T) {
	ctx := context.Background()
	st := store.NewMemory()
	var spies []*spyEngine
	m := NewManager(func(string) compact.ContextEngine {
		e := &spyEngine{Compressor: newTestCompressor(&recorder{})}
		spies = append(spies, e) // Gets below are sequential
		return e
	}, WithStore(st))

	a, err := m.Get(context.Background(), "a")
	require.NoError(t, err)
	mustAppend(t, a, user("hello from a"))
	require.NoError(t, m.Remove(ctx, "a"))
	assert.Empty(t, m.Sessions())
	_, events := spies[0].seen()
	assert.Equal(t, []string{"start a", "end a"}, events)
	saved, _, _, err := st.Live(ctx, "a")
	require.NoError(t, err)
	assert.Len(t, saved, 1, "the store keeps what was appended")
	_, err = a.Compress(ctx)
	assert.ErrorIs(t, err, ErrClosed)
	require.NoError(t, m.Remove(ctx, "a"), "removing an unknown id does nothing")

	a2, err := m.Get(context.Background(), "a")
	require.NoError(t, err)
	assert.NotSame(t, a, a2)
	require.NoError(t, a2.Sync(ctx))
	assert.Equal(t, 1, a2.Len(), "a new Session on the same store carries on")

	_, err = m.Get(context.Background(), "b")
	require.NoError(t, err)
	require.NoError(t, m.Close(ctx))
	assert.Empty(t, m.Sessions())
	_, err = m.Get(context.Background(), "c")
	assert.ErrorIs(t, err, ErrClosed)
}

// slowOpenStore is a store.Memory whose Live waits for release, counting calls.
type slowOpenStore struct {
	*store.Memory
	entered chan struct{}
	release chan struct{}
	lives   atomic.Int32
}

func (s *slowOpenStore) Live(ctx context.Context, id string) ([]compact.Message, int64, int, error) {
	s.lives.Add(1)
	s.entered <- struct{}{}
	select {
	case <-s.release:
	case <-ctx.Done():
		return nil, 0, 0, ctx.Err()
	}
	return s.Memory.Live(ctx, id)
}

// Get opens a session once however many callers ask for it at once; each
// gets the same Session, with its history read from the store.
func TestManagerOpensEachSessionOnce(t *testing.T) {
	ctx := context.Background()
	st := &slowOpenStore{Memory: store.NewMemory(), entered: make(chan struct{}, 1), release: make(chan struct{})}
	_, _, err := st.Memory.Append(ctx, "agent-1", chatHistory("agent-1", 5)...)
	require.NoError(t, err)
	m := NewManager(func(string) compact.ContextEngine { return newTestCompressor(&recorder{}) }, WithStore(st))

	const callers = 8
	got := make(chan *Session, callers)
	for range callers {
		go func() {
			s, err := m.Get(ctx, "agent-1")
			assert.NoError(t, err)
			got <- s
		}()
	}
	await(t, st.entered, "the store read")
	// A caller in a hurry gives up waiting for the open under way.
	hurried, cancel := context.WithCancel(ctx)
	cancel()
	_, err = m.Get(hurried, "agent-1")
	require.ErrorIs(t, err, context.Canceled)

	close(st.release)
	first := await(t, got, "a Get")
	for range callers - 1 {
		assert.Same(t, first, await(t, got, "a Get"))
	}
	assert.EqualValues(t, 1, st.lives.Load(), "the history was read once")
	assert.Equal(t, 5, first.Len(), "and is there before the first Append")
}

// A session that could not be opened is not held: the next Get tries
// again.
func TestManagerRetriesASessionThatFailedToOpen(t *testing.T) {
	ctx := context.Background()
	st := &hookedStore{Memory: store.NewMemory()}
	m := NewManager(nil, WithStore(st))
	st.failReads.Store(true)
	_, err := m.Get(ctx, "agent-1")
	require.ErrorIs(t, err, errReadFailed)
	assert.Empty(t, m.Sessions())
	st.failReads.Store(false)
	s, err := m.Get(ctx, "agent-1")
	require.NoError(t, err)
	assert.Equal(t, "agent-1", s.ID())
}
