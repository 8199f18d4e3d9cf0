package session

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/prune"
	"github.com/contextkit/compact/session/store"
)

// pastedTable is an assistant's answer quoting a data table of about
// tokens tokens (byteCounter), as an aider session pastes one.
func pastedTable(tokens int) compact.Message {
	var b strings.Builder
	b.WriteString("Here is the table you asked for:\n")
	for i := 0; b.Len() < 4*tokens; i++ {
		fmt.Fprintf(&b, "| row %d | 42 | 3.14 | ok |\n", i)
	}
	return asst(b.String())
}

// At the hard limit with a compaction running, an earlier message too
// large for the request (an assistant's pasted table: no tool output to
// prune) is trimmed for that request, and the request goes out with no
// wait. The Result says what was done to it; the live history and the log
// keep it whole.
func TestBackgroundAtTheHardLimitTrimsAnOversizedMessage(t *testing.T) {
	noLeaks(t)
	ctx := context.Background()
	g := newGate(4)
	mem := store.NewMemory()
	s := newTestSession(t, "bg", g, WithBackground(true), WithSoftMark(0.5), WithStore(mem), WithWait(false))
	defer func() { require.NoError(t, s.Close(ctx)) }()
	startBackground(t, s, g, chatHistory("bg", 400))

	table := pastedTable(2200)
	mustAppend(t, s, user("Show me the table."), table, user("Which row is largest?"), asst("Row 7."), user("And the smallest?"))
	at := s.Len() - 4
	require.True(t, s.ShouldCompress(), "the request is over the hard limit")

	res, err := s.Compress(ctx)
	require.NoError(t, err, "the request path does not wait")
	assert.Contains(t, res.Skipped, "pruned")
	require.Len(t, res.Pruned, 1)
	assert.Equal(t, at, res.Pruned[0].Index)
	assert.Equal(t, prune.Trimmed, res.Pruned[0].Kind, "the Result says what was done to it")
	req := s.Messages()
	require.NoError(t, compact.Validate(req))
	assert.True(t, strings.HasPrefix(compact.Text(req[at]), "[pruned] This assistant message was shortened to fit the context window"),
		"%.120s", compact.Text(req[at]))
	assert.Contains(t, compact.Text(req[at]), "| row 0 |", "its start stays")
	assert.LessOrEqual(t, s.countAll(req), s.Status().HardLimit, "the request fits")
	assert.Equal(t, "And the smallest?", compact.Text(req[len(req)-1]))

	st := s.Status()
	assert.Equal(t, AtLimit{Pruned: 1, Last: "pruned"}, st.AtLimit)
	assert.Zero(t, st.Waits.Count)
	assert.Greater(t, st.Tokens, st.HardLimit, "the live history keeps it whole")
	recs, err := mem.Read(ctx, "bg", 1, 0)
	require.NoError(t, err)
	kept := false
	for _, r := range recs {
		kept = kept || equalMessage(r.Message, table)
	}
	assert.True(t, kept, "the log keeps it verbatim")

	// The next request at the limit is the pruned one and what was
	// appended since, while that fits: the prefix the provider cached
	// stays as it was.
	more := []compact.Message{asst("Row 2."), user("Thanks. Anything else?")}
	mustAppend(t, s, more...)
	require.True(t, s.ShouldCompress())
	res, err = s.Compress(ctx)
	require.NoError(t, err)
	require.Len(t, res.Pruned, 1, "the change made before, reported again")
	assert.Equal(t, at, res.Pruned[0].Index)
	next := s.Messages()
	assert.True(t, equalHistory(req, next[:len(req)]), "the pruned request is the prefix of the next")
	assert.True(t, equalHistory(more, next[len(req):]), "followed by what was appended, verbatim")
	assert.LessOrEqual(t, s.countAll(next), s.Status().HardLimit)
	assert.Equal(t, 2, s.Status().AtLimit.Pruned)

	// Once that no longer fits, the history is pruned again.
	big := pastedTable(1500)
	mustAppend(t, s, big, user("And this one?"), asst("Looking."), user("Well?"))
	require.True(t, s.ShouldCompress())
	res, err = s.Compress(ctx)
	require.NoError(t, err, "the request path does not wait")
	require.Len(t, res.Pruned, 2, "both tables trimmed: %+v", res.Pruned)
	assert.Equal(t, []int{at, s.Len() - 4}, []int{res.Pruned[0].Index, res.Pruned[1].Index})
	assert.LessOrEqual(t, s.countAll(s.Messages()), s.Status().HardLimit)
	close(g.release)
	finishBackground(t, s)
}

// A background compaction does not start while the last message is over
// half the threshold: a compaction keeps the last message, so it could not
// fold that one and would leave the request about as large. It starts at
// the next message, and folds it.
func TestBackgroundWaitsForTheMessageAfterAnOversizedOne(t *testing.T) {
	noLeaks(t)
	ctx := context.Background()
	rec := &recorder{}
	s := newTestSession(t, "bg", rec, WithBackground(true), WithSoftMark(0.5), WithStore(store.NewMemory()))
	defer func() { require.NoError(t, s.Close(ctx)) }()
	mustAppend(t, s, chatHistory("bg", 20)...)
	require.Less(t, s.Status().RequestTokens, s.Status().SoftMark)

	table := pastedTable(1300)
	mustAppend(t, s, user("Show me the table."), table)
	st := s.Status()
	require.Greater(t, byteCounter{}.CountMessage(table), st.Threshold/2)
	require.Greater(t, st.RequestTokens, st.SoftMark, "past the soft mark")
	require.Less(t, st.RequestTokens, st.HardLimit)
	assert.Zero(t, started(s), "no compaction starts while the table is the last message")

	mustAppend(t, s, user("Which row is largest?"))
	require.Equal(t, 1, started(s), "the next message starts it")
	finishBackground(t, s)
	st = s.Status()
	assert.Equal(t, 1, st.BackgroundCompactions)
	assert.Equal(t, 1, rec.Calls(), "one summary")
	for _, m := range s.Messages() {
		assert.False(t, equalMessage(m, table), "the table was folded")
	}
	assert.Less(t, st.RequestTokens, st.SoftMark, "and the request is back under the soft mark")
}

// liveCounter is a store.Memory counting the reads of the whole live
// history.
type liveCounter struct {
	*store.Memory
	lives atomic.Int32
}

func (c *liveCounter) Live(ctx context.Context, id string) ([]compact.Message, int64, int, error) {
	c.lives.Add(1)
	return c.Memory.Live(ctx, id)
}

// With background compaction on, every Compress brings the request up to
// date with the store, as a request at the hard limit asks at every
// request: it reads only the records another process appended, the whole
// live history only once another process compacted, and nothing when
// nothing changed.
func TestBackgroundCompressReadsOnlyWhatChanged(t *testing.T) {
	noLeaks(t)
	ctx := context.Background()
	st := &liveCounter{Memory: store.NewMemory()}
	a := newTestSession(t, "shared", &recorder{}, WithBackground(true), WithSoftMark(0.9), WithStore(st))
	defer func() { require.NoError(t, a.Close(ctx)) }()
	b := newTestSession(t, "shared", &recorder{}, WithStore(st))
	defer func() { require.NoError(t, b.Close(ctx)) }()
	hist := chatHistory("shared", 60)
	mustAppend(t, a, hist[:40]...)
	st.lives.Store(0)

	res, err := a.Compress(ctx)
	require.NoError(t, err)
	assert.NotEmpty(t, res.Skipped)
	assert.Zero(t, st.lives.Load(), "nothing changed: nothing read")

	require.NoError(t, b.Sync(ctx))
	mustAppend(t, b, hist[40:]...)
	st.lives.Store(0)
	_, err = a.Compress(ctx)
	require.NoError(t, err)
	assert.True(t, equalHistory(hist, a.Messages()), "what the other process appended is in the request")
	assert.Zero(t, st.lives.Load(), "only the new records were read")

	_, err = b.Compress(ctx, compact.Force())
	require.NoError(t, err)
	st.lives.Store(0)
	_, err = a.Compress(ctx)
	require.NoError(t, err)
	assert.True(t, equalHistory(b.Messages(), a.Messages()), "the other process's compaction is the request")
	assert.EqualValues(t, 1, st.lives.Load(), "the live history is read once it was compacted elsewhere")
}
