package session

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/session/store"
)

const recallMark = "[Recall: messages "

// recallLines counts the recall lines in a history.
func recallLines(msgs []compact.Message) int {
	n := 0
	for _, m := range msgs {
		n += strings.Count(compact.Text(m), recallMark)
	}
	return n
}

func TestRecallOffOffersNoToolsAndWritesNoLine(t *testing.T) {
	ctx := context.Background()
	s := newTestSession(t, "plain", nil, WithStore(store.NewMemory()))
	assert.Nil(t, s.Tools(), "no tools without WithRecall")
	mustAppend(t, s, agentHistory("plain", 40)...)
	_, err := s.Compress(ctx)
	require.NoError(t, err)
	require.NotEmpty(t, summaryText(s.Messages()))
	assert.Zero(t, recallLines(s.Messages()), "recall off adds nothing to the summary")
}

func TestRecallToolsAreTheThreeNamedOnes(t *testing.T) {
	s := newRecallSession(t, "a", nil)
	var names []string
	for _, tool := range s.Tools() {
		names = append(names, tool.Definition.Function.Name)
		assert.NotEmpty(t, tool.Definition.Function.Description)
		assert.NotNil(t, tool.Handle)
	}
	assert.Equal(t, []string{ToolSearch, ToolExpand, ToolDescribe}, names)
	var tp compact.ToolProvider = s
	assert.Len(t, tp.Tools(), 3, "a Session is a ToolProvider")
}

func TestRecallSummaryEndsWithTheFoldedRange(t *testing.T) {
	ctx := context.Background()
	s := newRecallSession(t, "agent-1", nil)
	mustAppend(t, s, agentHistory("agent-1", 40)...)
	res, err := s.Compress(ctx)
	require.NoError(t, err)
	require.GreaterOrEqual(t, res.SummaryIndex, 0)

	sum := compact.Text(s.Messages()[res.SummaryIndex])
	lines := strings.Split(sum, "\n")
	last := lines[len(lines)-1]
	// The first compaction reads the whole log, so message i is seq i+1.
	want := recallLine(int64(res.SummarizedFrom+1), int64(res.SummarizedTo+1))
	assert.Equal(t, want, last, "the summary's last line names the folded seqs")
	assert.Equal(t, 1, recallLines(s.Messages()))
	assert.Equal(t, res.Messages[res.SummaryIndex], s.Messages()[res.SummaryIndex], "the Result carries the line too")
}

func TestRecallLineNeverStacks(t *testing.T) {
	ctx := context.Background()
	sum := &recorder{}
	engine := newTestCompressor(sum)
	s, err := Open(context.Background(), "agent-2", engine, WithRecall(true))
	require.NoError(t, err)
	ext := newRecallSession(t, "agent-3", nil)
	for round := 0; round < 4; round++ {
		for _, sess := range []*Session{s, ext} {
			mustAppend(t, sess, agentHistory(sess.ID(), 30)[1:]...)
			_, err := sess.Compress(ctx, compact.Force())
			require.NoError(t, err, "round %d", round)
			assert.Equal(t, 1, recallLines(sess.Messages()), "round %d: one line, on the one summary", round)
			require.NoError(t, compact.Validate(sess.Messages()))
		}
	}
	for i, req := range sum.Requests() {
		assert.NotContains(t, req.PreviousSummary, recallMark, "request %d: the summarizer never sees a recall line", i)
	}
	// The extractive summary still reads its previous self section by
	// section: a stray line would have turned it into an "Earlier summary".
	assert.NotContains(t, summaryText(ext.Messages()), "Earlier summary")
}

func TestRecallLineOnPartialCompactions(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		run  func(s *Session) (*compact.Result, error)
	}{
		{"CompressHere", func(s *Session) (*compact.Result, error) { return s.CompressHere(ctx, 1) }},
		{"CompressBefore", func(s *Session) (*compact.Result, error) { return s.CompressBefore(ctx, s.Len()-6) }},
		{"CompressFrom", func(s *Session) (*compact.Result, error) { return s.CompressFrom(ctx, 10) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newRecallSession(t, "p", nil)
			mustAppend(t, s, agentHistory("p", 20)...)
			res, err := tc.run(s)
			require.NoError(t, err)
			msgs := s.Messages()
			require.NoError(t, compact.Validate(msgs))
			from, to, ok := parseRecallLine(msgs[res.SummaryIndex])
			require.True(t, ok, "the new summary ends with a recall line:\n%s", compact.Text(msgs[res.SummaryIndex]))
			assert.Equal(t, int64(res.SummarizedFrom+1), from)
			assert.Equal(t, int64(res.SummarizedTo+1), to)
		})
	}
}

func TestRecallKeepsTheLineOfASummaryCompressFromLeavesBeside(t *testing.T) {
	ctx := context.Background()
	s := newRecallSession(t, "beside", nil)
	mustAppend(t, s, agentHistory("beside", 30)...)
	_, err := s.Compress(ctx)
	require.NoError(t, err)
	first := summaryText(s.Messages())
	require.Contains(t, first, recallMark)

	mustAppend(t, s, agentHistory("beside", 12)[2:]...)
	at := -1
	for i, m := range s.Messages() {
		if compact.IsSummary(m) {
			at = i
		}
	}
	res, err := s.CompressFrom(ctx, at+3)
	require.NoError(t, err)
	msgs := s.Messages()
	assert.Equal(t, first, compact.Text(msgs[at]), "the kept summary comes back verbatim, its line with it")
	assert.Equal(t, 2, recallLines(msgs), "each summary names its own range")
	_, _, ok := parseRecallLine(msgs[res.SummaryIndex])
	assert.True(t, ok)

	_, err = s.Compress(ctx, compact.Force())
	require.NoError(t, err)
	assert.Equal(t, 1, recallLines(s.Messages()), "the next compaction folds both into one")
}

func TestRecallFindsWhatTheSummaryDropped(t *testing.T) {
	ctx := context.Background()
	s := newRecallSession(t, "agent-4", nil)
	hist := agentHistory("agent-4", 40)
	mustAppend(t, s, hist...)
	_, err := s.Compress(ctx)
	require.NoError(t, err)

	lost := errorLine("agent-4", 3)
	live := s.Messages()
	for _, m := range live {
		require.NotContains(t, compact.Text(m), lost, "the fixture needs a fact the compaction dropped")
	}
	ans := useTool(t, s, ToolSearch, fmt.Sprintf(`{"query": %q}`, lost))
	matches := ans["matches"].([]any)
	require.Len(t, matches, 1)
	m := matches[0].(map[string]any)
	assert.Equal(t, "tool", m["role"])
	assert.Equal(t, "bash", m["tool"])
	snip := m["hits"].([]any)[0].(map[string]any)["snippet"].(string)
	assert.Contains(t, snip, lost, "the snippet holds the line verbatim")

	seq := int(m["seq"].(float64))
	exp := useTool(t, s, ToolExpand, fmt.Sprintf(`{"seq":[%d]}`, seq))
	got := exp["messages"].([]any)[0].(map[string]any)
	assert.Equal(t, hist[seq-1].Content, got["text"], "expand returns the original verbatim")
	assert.Equal(t, hist[seq-1].ToolCallID, got["tool_call_id"])
}

func TestRecallDescribeListsEveryCompaction(t *testing.T) {
	ctx := context.Background()
	s := newRecallSession(t, "d", nil)
	ans := useTool(t, s, ToolDescribe, `{}`)
	assert.Empty(t, ans["compactions"])
	assert.Contains(t, ans["note"], "not been compacted")

	mustAppend(t, s, agentHistory("d", 30)...)
	res, err := s.Compress(ctx)
	require.NoError(t, err)
	mustAppend(t, s, user("more"), asst("ok"))
	require.NoError(t, s.Reset(ctx))

	ans = useTool(t, s, ToolDescribe, ``)
	comps := ans["compactions"].([]any)
	require.Len(t, comps, 2)
	c1 := comps[0].(map[string]any)
	assert.Equal(t, float64(1), c1["n"])
	assert.Equal(t, map[string]any{"from": float64(res.SummarizedFrom + 1), "to": float64(res.SummarizedTo + 1)}, c1["folded"])
	assert.Equal(t, map[string]any{"from": float64(1), "to": float64(63)}, c1["new"])
	assert.Equal(t, "extractive", c1["summarizer"])
	assert.Greater(t, c1["tokens_before"], c1["tokens_after"])
	assert.NotEmpty(t, c1["at"])
	c2 := comps[1].(map[string]any)
	assert.Nil(t, c2["folded"])
	assert.Equal(t, store.ResetSummarizer, c2["summarizer"])
	assert.Contains(t, c2["note"], "reset")
}

func TestRecallWithoutAStoreKeepsALogOfItsOwn(t *testing.T) {
	ctx := context.Background()
	s := newRecallSession(t, "solo", nil)
	mustAppend(t, s, agentHistory("solo", 30)...)
	_, err := s.Compress(ctx)
	require.NoError(t, err)
	ans := useTool(t, s, ToolExpand, `{"from":1,"to":2}`)
	assert.Len(t, ans["messages"], 2)
}

func TestRecallNamesTheNewRangeWhenASummaryRepeatsItself(t *testing.T) {
	ctx := context.Background()
	s, err := Open(context.Background(), "same", newTestCompressor(&recorder{Out: "Nothing new to say."}), WithRecall(true))
	require.NoError(t, err)
	hist := agentHistory("same", 90)
	mustAppend(t, s, hist[:2]...)
	var last int64
	for round := 0; round < 3; round++ {
		// Tool rounds only: the summary carries the same user message
		// each time, so its whole text repeats.
		mustAppend(t, s, hist[2+60*round:2+60*(round+1)]...)
		res, err := s.Compress(ctx, compact.Force())
		require.NoError(t, err)
		_, to, ok := parseRecallLine(s.Messages()[res.SummaryIndex])
		require.True(t, ok, "round %d", round)
		assert.Greater(t, to, last, "round %d: the line names this compaction's range, not the last one's", round)
		last = to
		assert.Equal(t, 1, recallLines(s.Messages()))
	}
}

func TestRecallLeavesAHistoryUnderTheThresholdAsItWas(t *testing.T) {
	ctx := context.Background()
	s := newRecallSession(t, "under", nil)
	mustAppend(t, s, agentHistory("under", 40)...)
	_, err := s.Compress(ctx)
	require.NoError(t, err)
	before := s.Messages()
	require.Equal(t, 1, recallLines(before))

	// Under the threshold, Compress returns the history unchanged; the
	// line taken off for the engine comes back.
	_, err = s.Compress(ctx)
	require.NoError(t, err)
	assert.Equal(t, before, s.Messages())
}
