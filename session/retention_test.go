package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/session/store"
)

// Issue 33.2: a recall call that reaches records retention deleted says so
// in its answer; it is no Go error, and the live history is untouched.
func TestRecallSaysWhatExpired(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	st := store.NewMemoryClock(func() time.Time { return now })
	s := newRecallSession(t, "agent-1", st)
	require.NoError(t, s.Append(ctx, agentHistory("agent-1", 30)...))
	_, err := s.Compress(ctx)
	require.NoError(t, err)
	comps, err := st.Compactions(ctx, "agent-1")
	require.NoError(t, err)
	folded := comps[0]
	require.NotZero(t, folded.FoldedFrom)
	live := s.Messages()

	now = now.Add(48 * time.Hour)
	got, err := st.Expire(ctx, store.Retention{Folded: 24 * time.Hour})
	require.NoError(t, err)
	assert.Equal(t, folded.FoldedThrough-folded.FoldedFrom+1, got.Records)
	require.NoError(t, s.Sync(ctx))
	assert.True(t, equalHistory(live, s.Messages()), "the live history after Expire")

	ans := useTool(t, s, ToolExpand, fmt.Sprintf(`{"from":%d,"to":%d}`, folded.FoldedFrom, folded.FoldedFrom+3))
	assert.Equal(t, []any{[]any{float64(folded.FoldedFrom), float64(folded.FoldedFrom + 3)}}, ans["expired"])
	assert.Contains(t, ans["note"], "retention")
	assert.Empty(t, ans["messages"])

	ans = useTool(t, s, ToolExpand, fmt.Sprintf(`{"seq":[1,%d,%d]}`, folded.FoldedFrom+1, folded.FoldedThrough+1000))
	assert.Equal(t, []any{[]any{float64(folded.FoldedFrom + 1), float64(folded.FoldedFrom + 1)}}, ans["expired"])
	assert.Equal(t, []any{float64(folded.FoldedThrough + 1000)}, ans["missing"])
	assert.Len(t, ans["messages"], 1, "record 1 was never folded: it stays")

	ans = useTool(t, s, ToolSearch, `{"query":"`+errorLine("agent-1", 3)+`"}`)
	assert.Empty(t, ans["matches"], "a search finds nothing of what expired")
}

// secretHistory is a conversation whose tool calls and results carry
// credentials, the last of them in the live history.
func secretHistory(n int) []compact.Message {
	msgs := []compact.Message{sys("You are a deploy agent."), user("Deploy the service.")}
	for i := 1; i <= n; i++ {
		id := fmt.Sprintf("call_%d", i)
		args, _ := json.Marshal(map[string]string{"command": fmt.Sprintf("export GITHUB_TOKEN=ghp_%036d && ./deploy.sh step%d", i, i)})
		msgs = append(msgs,
			compact.Message{Role: compact.RoleAssistant, Content: fmt.Sprintf("Step %d.", i),
				ToolCalls: []openai.ToolCall{{ID: id, Type: openai.ToolTypeFunction, Function: openai.FunctionCall{Name: "bash", Arguments: string(args)}}}},
			result(id, fmt.Sprintf("step%d: using Authorization: Bearer sk-live-%032d\n%s", i, i, strings.Repeat("deployed a unit.\n", 20))))
	}
	return append(msgs, user("Status?"))
}

// Issue 33.3: with WithRedactAtRest, the records a compaction folds are
// rewritten through package redact once it commits; the live history keeps
// its messages verbatim, and recall searches and expands the redacted text.
func TestRedactAtRest(t *testing.T) {
	ctx := context.Background()
	st := store.NewMemory()
	s := newRecallSession(t, "deploy-1", st, WithRedactAtRest(true))
	require.NoError(t, s.Append(ctx, secretHistory(30)...))
	_, err := s.Compress(ctx)
	require.NoError(t, err)
	comps, err := st.Compactions(ctx, "deploy-1")
	require.NoError(t, err)
	c := comps[0]
	require.NotZero(t, c.FoldedFrom)

	recs, err := st.Read(ctx, "deploy-1", 1, 0)
	require.NoError(t, err)
	for _, r := range recs {
		body, _ := json.Marshal(r.Message)
		folded := r.Seq >= c.FoldedFrom && r.Seq <= c.FoldedThrough
		if folded {
			assert.NotContains(t, string(body), "ghp_0000", "record %d was folded: no token at rest", r.Seq)
			assert.NotContains(t, string(body), "sk-live-", "record %d was folded: no token at rest", r.Seq)
		} else if r.Seq > c.Through {
			assert.Equal(t, secretHistory(30)[r.Seq-1], r.Message, "record %d is live: verbatim", r.Seq)
		}
	}
	var verbatim bool
	for _, m := range s.Messages() {
		for _, tc := range m.ToolCalls {
			verbatim = verbatim || strings.Contains(tc.Function.Arguments, "ghp_0000")
		}
	}
	assert.True(t, verbatim, "the live history keeps its tool calls verbatim")

	ans := useTool(t, s, ToolSearch, `{"query":"sk-live-"}`)
	for _, m := range ans["matches"].([]any) {
		seq := int64(m.(map[string]any)["seq"].(float64))
		assert.False(t, seq >= c.FoldedFrom && seq <= c.FoldedThrough, "a search finds a token only in a record not folded: seq %d", seq)
	}
	ans = useTool(t, s, ToolSearch, `{"query":"Bearer [REDACTED]"}`)
	assert.NotEmpty(t, ans["matches"], "a search finds the redacted text")
	ans = useTool(t, s, ToolExpand, fmt.Sprintf(`{"seq":[%d]}`, c.FoldedFrom+1))
	assert.Contains(t, fmt.Sprint(ans["messages"]), "[REDACTED]")

	n, err := store.RedactFolded(ctx, st, "deploy-1")
	require.NoError(t, err)
	assert.Zero(t, n, "everything folded is redacted already")
}

// store.RedactFolded redacts an archive written without WithRedactAtRest, once.
func TestRedactFoldedSweeps(t *testing.T) {
	ctx := context.Background()
	st := store.NewMemory()
	s := newRecallSession(t, "deploy-2", st)
	require.NoError(t, s.Append(ctx, secretHistory(30)...))
	_, err := s.Compress(ctx)
	require.NoError(t, err)
	recs, err := st.Search(ctx, "deploy-2", "ghp_0000", 0, 0)
	require.NoError(t, err)
	before := len(recs)

	n, err := store.RedactFolded(ctx, st, "deploy-2")
	require.NoError(t, err)
	assert.Positive(t, n)
	recs, err = st.Search(ctx, "deploy-2", "ghp_0000", 0, 0)
	require.NoError(t, err)
	assert.Less(t, len(recs), before)
	n, err = store.RedactFolded(ctx, st, "deploy-2")
	require.NoError(t, err)
	assert.Zero(t, n, "a second sweep changes nothing")

	_, err = store.RedactFolded(ctx, bareStore{st}, "deploy-2")
	assert.ErrorIs(t, err, errors.ErrUnsupported)
	_, err = Open(ctx, "deploy-3", nil, WithStore(bareStore{st}), WithRedactAtRest(true))
	assert.ErrorIs(t, err, errors.ErrUnsupported)
}

// bareStore is a Store and nothing more.
type bareStore struct{ store.Store }

// Issue 33.1: a host deletes a session through its Manager or the Session;
// another process still holding it gets store.ErrDeleted on its next call, and
// no call writes it back.
func TestDeleteThroughManagerAndSession(t *testing.T) {
	ctx := context.Background()
	st := store.NewMemory()
	m := NewManager(nil, WithStore(st))
	s, err := m.Get(ctx, "user-1")
	require.NoError(t, err)
	require.NoError(t, s.Append(ctx, user("hello")))
	other, err := Open(ctx, "user-1", nil, WithStore(st)) // another process
	require.NoError(t, err)

	require.NoError(t, m.Delete(ctx, "user-1"))
	_, held := m.Lookup("user-1")
	assert.False(t, held)
	assert.ErrorIs(t, other.Append(ctx, user("still here?")), store.ErrDeleted)
	assert.ErrorIs(t, other.Sync(ctx), store.ErrDeleted)
	_, err = other.Compress(ctx, compact.Force())
	assert.ErrorIs(t, err, store.ErrDeleted)
	_, err = m.Get(ctx, "user-1")
	assert.ErrorIs(t, err, store.ErrDeleted)
	_, err = st.Read(ctx, "user-1", 1, 0)
	assert.ErrorIs(t, err, store.ErrDeleted)

	s2, err := Open(ctx, "user-2", nil, WithStore(st))
	require.NoError(t, err)
	require.NoError(t, s2.Append(ctx, user("hi")))
	require.NoError(t, s2.Delete(ctx))
	_, _, _, err = st.Live(ctx, "user-2")
	assert.ErrorIs(t, err, store.ErrDeleted)

	_, err = st.Acquire(ctx, "user-3", time.Minute)
	require.NoError(t, err)
	short, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	assert.ErrorIs(t, store.Delete(short, st, "user-3"), context.DeadlineExceeded, "Delete waits for a held lease until ctx ends")
	assert.ErrorIs(t, store.Delete(ctx, bareStore{st}, "user-3"), errors.ErrUnsupported)
}
