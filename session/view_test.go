package session

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/session/store"
	"github.com/contextkit/compact/tokens"
)

// hookedStore is a store.Memory that counts reads and runs hooks, so that a
// test can end a ctx or fail a read at a chosen moment.
type hookedStore struct {
	*store.Memory
	afterCommit func()       // after a commit that succeeded
	failReads   atomic.Bool  // Read and Live fail while set
	reads       atomic.Int32 // calls of Read
	lives       atomic.Int32 // calls of Live
}

var errReadFailed = errors.New("the disk is busy")

func (h *hookedStore) Read(ctx context.Context, id string, from, to int64) ([]store.Record, error) {
	h.reads.Add(1)
	if h.failReads.Load() {
		return nil, errReadFailed
	}
	return h.Memory.Read(ctx, id, from, to)
}

func (h *hookedStore) Live(ctx context.Context, id string) ([]compact.Message, int64, int, error) {
	h.lives.Add(1)
	if h.failReads.Load() {
		return nil, 0, 0, errReadFailed
	}
	return h.Memory.Live(ctx, id)
}

func (h *hookedStore) Commit(ctx context.Context, id string, c store.Compaction, lease store.Lease) (int64, error) {
	last, err := h.Memory.Commit(ctx, id, c, lease)
	if err == nil && h.afterCommit != nil {
		h.afterCommit()
	}
	return last, err
}

// requireView fails t unless s holds st's live history, counted as st's
// messages are.
func requireView(t *testing.T, st store.Store, s *Session) {
	t.Helper()
	live, _, _, err := st.Live(context.Background(), s.ID())
	require.NoError(t, err)
	require.True(t, equalHistory(live, s.Messages()), "the view (%d messages) is not the store's (%d)", s.Len(), len(live))
	require.Equal(t, tokens.CountMessages(s.counter, live), s.Tokens())
}

// Issue 23, item 1: process A appends 30 messages, process B compacts, A
// appends one more; A's view is the store's live history at once, without
// a Sync, and so are its Tokens and ShouldCompress.
func TestAppendNoticesAnotherProcesssCompaction(t *testing.T) {
	ctx := context.Background()
	st := store.NewMemory()
	a := newTestSession(t, "agent-1", &recorder{Out: "summary"}, WithStore(st))
	mustAppend(t, a, chatHistory("agent-1", 30)...)
	b := newTestSession(t, "agent-1", &recorder{Out: "summary"}, WithStore(st))
	_, err := b.Compress(ctx, compact.Force())
	require.NoError(t, err)
	requireView(t, st, b)
	before := a.Tokens()

	mustAppend(t, a, user("agent-1 one more"))
	requireView(t, st, a)
	assert.Less(t, a.Tokens(), before, "the compacted history is smaller than the 30 messages it replaced")
	assert.Equal(t, a.Engine().ShouldCompress(a.Tokens()), a.ShouldCompress())
}

// Another process's appends are read on the next Append, and only they: no
// live history is read again.
func TestAppendReadsOnlyWhatOthersAppended(t *testing.T) {
	st := &hookedStore{Memory: store.NewMemory()}
	a := newTestSession(t, "agent-1", &recorder{}, WithStore(st))
	b := newTestSession(t, "agent-1", &recorder{}, WithStore(st))
	mustAppend(t, a, user("from a"))
	mustAppend(t, b, asst("from b"), user("from b again"))
	lives := st.lives.Load()
	mustAppend(t, a, asst("from a again"))
	requireView(t, st, a)
	assert.Equal(t, lives, st.lives.Load()-1, "only requireView read the live history")
	assert.Equal(t, []string{"from a", "from b", "from b again", "from a again"}, texts(a.Messages()))
}

// A compaction the engine skips (under its threshold) still leaves the
// view equal to the store, which it read: what another process appended is
// in it.
func TestSkippedCompressionBringsTheViewUpToDate(t *testing.T) {
	st := store.NewMemory()
	a := newTestSession(t, "agent-1", &recorder{}, WithStore(st))
	b := newTestSession(t, "agent-1", &recorder{}, WithStore(st))
	mustAppend(t, a, user("from a"))
	mustAppend(t, b, asst("from b"))
	res, err := a.Compress(context.Background())
	require.NoError(t, err)
	require.NotEmpty(t, res.Skipped)
	requireView(t, st, a)
}

// Issue 23, item 2, when no one else appended: the ctx ends right after
// the commit, and the compacted history is installed from what was
// committed, without reading the store again.
func TestCompactionIsInstalledFromWhatWasCommitted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	st := &hookedStore{Memory: store.NewMemory()}
	s := newTestSession(t, "agent-1", &recorder{Out: "summary"}, WithStore(st))
	mustAppend(t, s, chatHistory("agent-1", 200)...)
	var reads, lives int32
	st.afterCommit = func() {
		cancel() // the deadline passes just after the commit
		st.failReads.Store(true)
		reads, lives = st.reads.Load(), st.lives.Load()
	}

	res, err := s.Compress(ctx, compact.Force())
	require.NoError(t, err)
	assert.Equal(t, reads, st.reads.Load(), "nothing was read after the commit")
	assert.Equal(t, lives, st.lives.Load(), "nothing was read after the commit")
	st.failReads.Store(false)
	requireView(t, st, s)
	assert.True(t, equalHistory(res.Messages, s.Messages()))
}

// Issue 23, item 2, when another process appended during the compaction and
// reading its message back fails: Compress returns the committed result
// with an error wrapping ErrStale, never success with a view that differs
// from the store; the next call brings the view up to date.
func TestCompactionThatCannotReadWhatOthersAppendedSaysTheViewIsStale(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	st := &hookedStore{Memory: store.NewMemory()}
	g := newGate(1)
	a := newTestSession(t, "agent-1", g, WithStore(st))
	mustAppend(t, a, chatHistory("agent-1", 200)...)
	b := newTestSession(t, "agent-1", &recorder{}, WithStore(st))
	st.afterCommit = func() { cancel() }

	done := compactAsync(ctx, a, compact.Force())
	await(t, g.entered, "the summarizer")
	mustAppend(t, b, user("agent-1 from the other process"))
	close(g.release)
	out := await(t, done, "the compaction")
	require.ErrorIs(t, out.err, ErrStale)
	require.ErrorIs(t, out.err, context.Canceled)
	require.NotNil(t, out.res, "the compaction was committed: its result comes back")
	comps, err := st.Compactions(context.Background(), "agent-1")
	require.NoError(t, err)
	require.Len(t, comps, 1)
	assert.True(t, equalHistory(out.res.Messages, a.Messages()), "the view holds the compaction, without the message it could not read")

	mustAppend(t, a, asst("agent-1 carries on"))
	requireView(t, st, a)
	assert.Equal(t, "agent-1 from the other process", a.Messages()[a.Len()-2].Content)
}

// An Append whose messages were logged but whose view could not be brought
// up to date says so (ErrStale), and logs its messages only once.
func TestAppendThatCannotCatchUpSaysTheViewIsStale(t *testing.T) {
	ctx := context.Background()
	st := &hookedStore{Memory: store.NewMemory()}
	a := newTestSession(t, "agent-1", &recorder{}, WithStore(st))
	mustAppend(t, a, chatHistory("agent-1", 30)...)
	b := newTestSession(t, "agent-1", &recorder{}, WithStore(st))
	_, err := b.Compress(ctx, compact.Force())
	require.NoError(t, err)

	st.failReads.Store(true)
	err = a.Append(ctx, user("agent-1 logged once"))
	require.ErrorIs(t, err, ErrStale)
	require.ErrorIs(t, err, errReadFailed)
	st.failReads.Store(false)
	require.NoError(t, a.Sync(ctx))
	requireView(t, st, a)
	recs, err := st.Read(ctx, "agent-1", 1, 0)
	require.NoError(t, err)
	assert.Len(t, recs, 31, "the message is in the log once")
}

func TestOpenFailsWhenTheStoreCannotBeRead(t *testing.T) {
	st := &hookedStore{Memory: store.NewMemory()}
	st.failReads.Store(true)
	s, err := Open(context.Background(), "agent-1", nil, WithStore(st))
	require.ErrorIs(t, err, errReadFailed)
	assert.Nil(t, s, "no Session with an empty history stands in for the stored one")
	assert.True(t, strings.HasPrefix(err.Error(), `session: open "agent-1": `), err.Error())
}

// Every error the package makes starts with its name, once.
func TestErrorsSaySession(t *testing.T) {
	ctx := context.Background()
	closed := newTestSession(t, "agent-1", &recorder{})
	require.NoError(t, closed.Close(ctx))
	_, errClosed := closed.Compress(ctx)
	_, errID := Open(ctx, "", nil)
	broken := newTestSession(t, "agent-2", &recorder{}, WithStore(&failingStore{Memory: store.NewMemory(), appendErr: errBroken}))
	errAppend := broken.Append(ctx, user("x"))
	m := NewManager(nil)
	require.NoError(t, m.Close(ctx))
	_, errManager := m.Get(ctx, "agent-3")
	_, errGet := NewManager(nil).Get(ctx, "a\nb")
	_, errStore := store.NewMemory().Read(ctx, "agent-4", 0, 1)
	for name, err := range map[string]error{
		"closed": errClosed, "id": errID, "append": errAppend, "manager": errManager, "get": errGet, "store": errStore,
	} {
		require.Error(t, err, name)
		assert.True(t, strings.HasPrefix(err.Error(), "session: "), "%s: %s", name, err)
		assert.NotContains(t, err.Error(), "compact: session", name)
	}
}

// Each call of Tools gives definitions of its own: a host that edits one
// (to add a strict flag, say) changes no other session's.
func TestToolsReturnDefinitionsOfTheirOwn(t *testing.T) {
	a := newRecallSession(t, "a", nil)
	b := newRecallSession(t, "b", nil)
	first, second, other := a.Tools(), a.Tools(), b.Tools()
	first[0].Definition.Function.Description = "changed"
	first[0].Definition.Function.Parameters.(json.RawMessage)[0] = '['
	for _, tools := range [][]compact.Tool{second, other, a.Tools()} {
		assert.NotEqual(t, "changed", tools[0].Definition.Function.Description)
		assert.True(t, json.Valid(tools[0].Definition.Function.Parameters.(json.RawMessage)))
	}
	assert.NotSame(t, first[0].Definition.Function, second[0].Definition.Function)
}

// stop, the end of a lease, may be called from several goroutines (the
// commit path and a deferred cleanup): the lease is released once.
func TestLeaseStopRunsOnce(t *testing.T) {
	noLeaks(t)
	st := &countingLeaser{Memory: store.NewMemory()}
	s := newTestSession(t, "agent-1", &recorder{}, WithStore(st))
	hold, err := s.lease(context.Background(), false)
	require.NoError(t, err)
	stop := hold.stop
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			stop()
		}()
	}
	wg.Wait()
	assert.EqualValues(t, 1, st.releases.Load())
}

type countingLeaser struct {
	*store.Memory
	releases atomic.Int32
}

func (c *countingLeaser) Release(ctx context.Context, id string, l store.Lease) error {
	c.releases.Add(1)
	return c.Memory.Release(ctx, id, l)
}

// texts returns the text of each message.
func texts(msgs []compact.Message) []string {
	out := make([]string, len(msgs))
	for i, m := range msgs {
		out[i] = compact.Text(m)
	}
	return out
}
