package session_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/session"
	"github.com/contextkit/compact/session/store"
	"github.com/contextkit/compact/session/storetest"
)

// nativeRounds is how many facts the recorded tests fold.
const nativeRounds = 30

// nativeFact is the fact round i of a native test's history holds.
func nativeFact(i int) string { return fmt.Sprintf("E-native-%d-fault", i) }

// nativeHistory is a session's log before the provider compacts: a system
// prompt and rounds of work, each holding one fact.
func nativeHistory() []compact.Message {
	msgs := []compact.Message{{Role: compact.RoleSystem, Content: "You are a coding agent."}}
	for i := 1; i <= nativeRounds; i++ {
		msgs = append(msgs,
			compact.Message{Role: compact.RoleUser, Content: fmt.Sprintf("step %d: %s", i, strings.Repeat("context ", 30))},
			compact.Message{Role: compact.RoleAssistant, Content: fmt.Sprintf("done %d: error %s", i, nativeFact(i))})
	}
	return msgs
}

// providerSummary is the provider's compaction summary as the session reads
// it: a summary by compact's prefix, as the adapters convert it.
var providerSummary = compact.Message{Role: compact.RoleUser,
	Content: compact.PrefixSummary("[The provider compacted the earlier turns; its summary follows.]\n\nThe agent hit many errors.")}

// providerReply is the rest of the provider's response after its
// compaction block.
var providerReply = compact.Message{Role: compact.RoleAssistant, ToolCalls: []openai.ToolCall{{ID: "call_next",
	Type: openai.ToolTypeFunction, Function: openai.FunctionCall{Name: "bash", Arguments: `{"command":"go test ./..."}`}}}}

// nativeCompaction is what a provider that compacts inside a request, as
// Anthropic does, reports for h: the system prompt kept, everything else
// folded into its summary, followed by the rest of its response.
func nativeCompaction(h []compact.Message) *compact.Result {
	res := &compact.Result{
		Messages:       []compact.Message{h[0], providerSummary, providerReply},
		MessagesBefore: len(h), MessagesAfter: 3,
		SummarizedFrom: 1, SummarizedTo: len(h) - 1, SummaryIndex: 1, Lifted: -1,
		Summary: "The agent hit many errors.", Summarizer: "provider:compact",
	}
	for j, m := range h {
		f := compact.MessageFate{Index: j, Role: m.Role, Fate: "folded", Output: 1}
		if j == 0 {
			f.Fate, f.Output = "kept", 0
		}
		res.Account = append(res.Account, f)
	}
	return res
}

// recordSession opens a recall session on store, compacted by a small
// Compressor, holding h.
func recordSession(t *testing.T, st store.Store, id string, h []compact.Message) *session.Session {
	t.Helper()
	s, err := session.Open(context.Background(), id, smallEngine(), session.WithStore(st), session.WithRecall(true))
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close(context.Background()) })
	require.NoError(t, s.Append(context.Background(), h...))
	return s
}

// recordNative has s's provider compact its history: the response is
// appended, then its compaction recorded.
func recordNative(t *testing.T, s *session.Session) {
	t.Helper()
	ctx := context.Background()
	res := nativeCompaction(s.Messages())
	require.NoError(t, s.Append(ctx, providerSummary, providerReply))
	require.NoError(t, s.RecordCompaction(ctx, res))
}

// matches returns the seqs of the records context_search finds for query.
func matches(t *testing.T, s *session.Session, query string) []float64 {
	t.Helper()
	var seqs []float64
	ans := callTool(t, s, session.ToolSearch, fmt.Sprintf(`{"query":%q}`, query))
	for _, m := range ans["matches"].([]any) {
		seqs = append(seqs, m.(map[string]any)["seq"].(float64))
	}
	return seqs
}

// TestRecordedCompactionRecallsAsOurOwn: after a provider's compaction is
// recorded, context_search finds every folded fact, and context_expand
// reads it back, exactly as after a compaction of the session's own; the
// recall line names what the provider folded and sits in the system
// prompt, the provider's summary left as it wrote it.
func TestRecordedCompactionRecallsAsOurOwn(t *testing.T) {
	for _, name := range recallStores {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			st := openStore(t, name)
			h := nativeHistory()
			native := recordSession(t, st, "native", h)
			own := recordSession(t, st, "own", h)
			recordNative(t, native)
			_, err := own.Compress(ctx, compact.Force())
			require.NoError(t, err)
			require.NoError(t, own.Append(ctx, providerSummary, providerReply))

			live := native.Messages()
			require.Len(t, live, 3, "the provider's history: the system prompt, its summary, its reply")
			assert.Equal(t, providerSummary, live[1], "the provider's summary is as it wrote it")
			assert.Equal(t, providerReply, live[2])
			line := fmt.Sprintf("[Recall: messages 2 to %d of this conversation are archived verbatim.", len(h))
			assert.True(t, strings.HasPrefix(live[0].Content, h[0].Content+"\n\n"+line),
				"the system prompt ends with the recall line: %q", live[0].Content)
			assert.Equal(t, 1, strings.Count(fmt.Sprint(live), "[Recall: "), "one recall line in the request")

			comps, err := st.Compactions(ctx, "native")
			require.NoError(t, err)
			require.Len(t, comps, 1)
			assert.Equal(t, int64(2), comps[0].FoldedFrom)
			assert.Equal(t, int64(len(h)), comps[0].FoldedThrough, "every message the provider read but the system prompt")
			assert.Equal(t, int64(len(h)+2), comps[0].Through, "the response appended before RecordCompaction is carried")
			require.NoError(t, storetest.Audit(ctx, st, "native"))

			nativeLog, ownLog := expandAll(t, native), expandAll(t, own)
			assert.Equal(t, ownLog, nativeLog, "both logs hold every message, read back the same")
			for i := 1; i <= nativeRounds; i++ {
				got := matches(t, native, nativeFact(i))
				require.Len(t, got, 1, "round %d's fact is found", i)
				assert.Equal(t, matches(t, own, nativeFact(i)), got, "round %d: found as after our own compaction", i)
				seq := int(got[0])
				assert.Contains(t, nativeLog[seq], nativeFact(i), "round %d: expanded", i)
			}
			status := native.Status()
			assert.Equal(t, 1, status.Compactions, "a recorded compaction counts")
			assert.Equal(t, 1, status.RecordedCompactions, "as one done elsewhere")
			assert.Zero(t, status.ForegroundCompactions)
		})
	}
}

// TestOwnCompactionAfterRecordedOneMovesTheLine: a compaction of the
// session's own after the provider's folds the provider's summary, and its
// recall line (on its own summary) covers what the provider folded too; the
// system prompt's line goes.
func TestOwnCompactionAfterRecordedOneMovesTheLine(t *testing.T) {
	ctx := context.Background()
	st := store.NewMemory()
	s := recordSession(t, st, "native-then-own", nativeHistory())
	recordNative(t, s)
	require.NoError(t, s.Append(ctx, compact.Message{Role: compact.RoleTool, ToolCallID: "call_next", Content: "ok"}))
	require.NoError(t, s.Append(ctx, nativeHistory()[1:]...))
	_, err := s.Compress(ctx, compact.Force())
	require.NoError(t, err)
	live := s.Messages()
	assert.NotContains(t, live[0].Content, "[Recall: ", "the system prompt's line is gone")
	assert.Equal(t, 1, strings.Count(fmt.Sprint(live), "[Recall: "), "one recall line in the request")
	var sum string
	for _, m := range live {
		if compact.IsSummary(m) {
			sum = m.Content
		}
	}
	assert.Contains(t, sum, "[Recall: messages 2 to ", "the new summary stands for what the provider folded too")
	require.NoError(t, storetest.Audit(ctx, st, s.ID()))
	for i := 1; i <= nativeRounds; i++ {
		assert.Len(t, matches(t, s, nativeFact(i)), 2, "round %d's fact is still found, before and after the provider's compaction", i)
	}
}

// TestRecordedCompactionTwiceKeepsOneLine: a second provider compaction
// replaces the system prompt's line rather than adding one.
func TestRecordedCompactionTwiceKeepsOneLine(t *testing.T) {
	ctx := context.Background()
	s := recordSession(t, store.NewMemory(), "native-twice", nativeHistory())
	recordNative(t, s)
	require.NoError(t, s.Append(ctx,
		compact.Message{Role: compact.RoleTool, ToolCallID: "call_next", Content: "ok"},
		compact.Message{Role: compact.RoleUser, Content: "Carry on."}))
	recordNative(t, s)
	live := s.Messages()
	require.Len(t, live, 3)
	assert.Equal(t, 1, strings.Count(live[0].Content, "[Recall: "), "one line: %q", live[0].Content)
	assert.Contains(t, live[0].Content, "[Recall: messages 2 to ", "the line covers both compactions")
}

// TestRecordRefusesAResultOfAnotherHistory: a Result that is no compaction
// of the live history is refused with ErrMismatch naming the message, and
// nothing changes.
func TestRecordRefusesAResultOfAnotherHistory(t *testing.T) {
	cases := []struct {
		name   string
		change func(h []compact.Message, res *compact.Result)
		append bool // the provider's response is appended first
		want   string
	}{
		{"it read more than the history holds",
			func(h []compact.Message, res *compact.Result) { res.MessagesBefore = len(h) + 5 }, true,
			fmt.Sprintf("read %d messages", len(nativeHistory())+5)},
		{"it kept a message the history does not hold",
			func(_ []compact.Message, res *compact.Result) {
				res.Account[2].Fate, res.Account[2].Output = "kept", 2
			}, true, "message 2: the result keeps it as its message 2"},
		{"another system prompt",
			func(_ []compact.Message, res *compact.Result) {
				res.Messages[0] = compact.Message{Role: compact.RoleSystem, Content: "You are someone else."}
			}, true, "message 0: the result's system prompt"},
		{"its summary index names no summary",
			func(_ []compact.Message, res *compact.Result) { res.SummaryIndex = 2 }, true, "message 2 (its SummaryIndex)"},
		{"the response was not appended",
			func([]compact.Message, *compact.Result) {}, false, "message 2 is neither one it read nor one appended since"},
		{"an account of another length",
			func(_ []compact.Message, res *compact.Result) { res.Account = res.Account[:4] }, true, "accounts for 4 messages"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			s := recordSession(t, store.NewMemory(), "refused", nativeHistory())
			res := nativeCompaction(s.Messages())
			tc.change(s.Messages(), res)
			if tc.append {
				require.NoError(t, s.Append(ctx, providerSummary, providerReply))
			}
			before := s.Messages()
			err := s.RecordCompaction(ctx, res)
			require.ErrorIs(t, err, session.ErrMismatch)
			assert.Contains(t, err.Error(), tc.want)
			assert.Equal(t, before, s.Messages(), "nothing changed")
			assert.Zero(t, s.Status().Compactions)
		})
	}
}

// TestRecordWithoutAStore: a session that keeps its history in memory only
// takes the provider's history in place of its own, the messages appended
// since kept once.
func TestRecordWithoutAStore(t *testing.T) {
	ctx := context.Background()
	s, err := session.Open(ctx, "memory-only", smallEngine())
	require.NoError(t, err)
	require.NoError(t, s.Append(ctx, nativeHistory()...))
	res := nativeCompaction(s.Messages())
	require.NoError(t, s.Append(ctx, providerSummary, providerReply))
	extra := compact.Message{Role: compact.RoleTool, ToolCallID: "call_next", Content: "ok"}
	require.NoError(t, s.Append(ctx, extra))
	require.NoError(t, s.RecordCompaction(ctx, res))
	assert.Equal(t, []compact.Message{nativeHistory()[0], providerSummary, providerReply, extra}, s.Messages())
	require.NoError(t, s.RecordCompaction(ctx, nil), "nothing to record")
}

// TestRecordWaitsForTheLeaseLikeCompress: a provider's compaction is
// committed under the session's lease, as the session's own are: while
// another holder has it, a session that does not wait is refused with
// ErrBusy and nothing changes; once it is released, RecordCompaction commits.
func TestRecordWaitsForTheLeaseLikeCompress(t *testing.T) {
	ctx := context.Background()
	st := store.NewMemory()
	s, err := session.Open(ctx, "leased", smallEngine(), session.WithStore(st), session.WithRecall(true), session.WithWait(false))
	require.NoError(t, err)
	require.NoError(t, s.Append(ctx, nativeHistory()...))
	res := nativeCompaction(s.Messages())
	require.NoError(t, s.Append(ctx, providerSummary, providerReply))

	other, err := st.Acquire(ctx, "leased", time.Minute)
	require.NoError(t, err)
	before := s.Messages()
	require.ErrorIs(t, s.RecordCompaction(ctx, res), session.ErrBusy, "another holder compacts this session")
	assert.Equal(t, before, s.Messages())
	comps, err := st.Compactions(ctx, "leased")
	require.NoError(t, err)
	assert.Empty(t, comps, "nothing was committed")

	require.NoError(t, st.Release(ctx, "leased", other))
	require.NoError(t, s.RecordCompaction(ctx, res))
	comps, err = st.Compactions(ctx, "leased")
	require.NoError(t, err)
	require.Len(t, comps, 1)
	assert.Greater(t, comps[0].Fence, other.Fence, "committed under a lease of its own")
}

// TestRecordWithoutASystemPromptWritesNoLine: with no system prompt to
// carry it, the recall line is written nowhere, the provider's summary
// least of all; the archive still answers.
func TestRecordWithoutASystemPromptWritesNoLine(t *testing.T) {
	ctx := context.Background()
	h := nativeHistory()[1:]
	s := recordSession(t, store.NewMemory(), "no-system", h)
	res := &compact.Result{
		Messages:       []compact.Message{providerSummary, providerReply},
		MessagesBefore: len(h), SummarizedFrom: 0, SummarizedTo: len(h) - 1, SummaryIndex: 0, Summarizer: "provider:compact",
	}
	require.NoError(t, s.Append(ctx, providerSummary, providerReply))
	require.NoError(t, s.RecordCompaction(ctx, res))
	assert.Equal(t, []compact.Message{providerSummary, providerReply}, s.Messages())
	assert.Len(t, matches(t, s, nativeFact(3)), 1)
}

// TestRecordOfAClearingChangesNothing: a provider that only cleared tool
// results on its side reports the history unchanged; recording it commits
// nothing, whatever was appended since.
func TestRecordOfAClearingChangesNothing(t *testing.T) {
	ctx := context.Background()
	st := store.NewMemory()
	s := recordSession(t, st, "cleared", nativeHistory())
	h := s.Messages()
	res := &compact.Result{Messages: h, MessagesBefore: len(h), SummarizedFrom: -1, SummarizedTo: -1, SummaryIndex: -1}
	for j, m := range h {
		res.Account = append(res.Account, compact.MessageFate{Index: j, Role: m.Role, Fate: "kept", Output: j})
	}
	require.NoError(t, s.Append(ctx, providerReply))
	require.NoError(t, s.RecordCompaction(ctx, res))
	comps, err := st.Compactions(ctx, "cleared")
	require.NoError(t, err)
	assert.Empty(t, comps)
	assert.Equal(t, append(h, providerReply), s.Messages())
	assert.Zero(t, s.Status().Compactions)
}
