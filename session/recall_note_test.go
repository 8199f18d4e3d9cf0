package session

import (
	"context"
	"testing"

	openai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/internal/msg"
	"github.com/contextkit/compact/session/store"
)

func TestRecallLineGoesOnAnySummaryAndComesOff(t *testing.T) {
	merged := compact.PrefixSummary("Earlier: built the parser.") + "\n\n[End of context handoff]\n\nAnd now the lexer, please."
	for _, tc := range []struct {
		name string
		m    compact.Message
	}{
		{"a summary of its own", compact.Message{Role: compact.RoleUser, Content: compact.PrefixSummary("Built the parser.")}},
		{"an assistant summary", compact.Message{Role: compact.RoleAssistant, Content: compact.PrefixSummary("Built it.")}},
		{"merged before a user's message", compact.Message{Role: compact.RoleUser, Content: merged}},
		{"in parts", compact.Message{Role: compact.RoleUser, MultiContent: []openai.ChatMessagePart{
			{Type: openai.ChatMessagePartTypeText, Text: compact.PrefixSummary("Saw the screenshot.")},
			{Type: openai.ChatMessagePartTypeImageURL, ImageURL: &openai.ChatMessageImageURL{URL: "https://x/y.png"}},
			{Type: openai.ChatMessagePartTypeText, Text: "What is wrong here?"},
		}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.True(t, compact.IsSummary(tc.m))
			with := addRecallLine(tc.m, recallLine(4, 90))
			from, to, ok := parseRecallLine(with)
			require.True(t, ok, "%q", compact.Text(with))
			assert.Equal(t, [2]int64{4, 90}, [2]int64{from, to})
			assert.True(t, compact.IsSummary(with), "still a summary")
			assert.Equal(t, compact.IsRealUser(tc.m), compact.IsRealUser(with), "still the same kind of turn")
			_, own, _ := msg.SplitMerged(tc.m)
			_, ownWith, _ := msg.SplitMerged(with)
			assert.Equal(t, own, ownWith, "the line goes on the summary, never on a user's own words after it")

			again := addRecallLine(with, recallLine(4, 120))
			assert.Equal(t, 1, recallLines([]compact.Message{again}), "a new line replaces the old")

			back, ok := stripRecallLine(with)
			require.True(t, ok)
			assert.Equal(t, tc.m, back, "the line comes off, leaving the summary as it was")
		})
	}
	_, stripped := stripRecallLine(compact.Message{Role: compact.RoleUser, Content: "just a user\n\n" + recallLine(1, 2)})
	assert.False(t, stripped, "only a summary's line is taken off: a user may quote one")
}

// TestRecallRangeOfAnEngineThatReportsNothing: an engine that fills in no
// indexes gets the whole log named, never a range read from zero values.
func TestRecallRangeOfAnEngineThatReportsNothing(t *testing.T) {
	ctx := context.Background()
	s, err := Open(context.Background(), "bare", bareEngine{newTestCompressor(&recorder{})}, WithRecall(true))
	require.NoError(t, err)
	mustAppend(t, s, agentHistory("bare", 5)...)
	_, err = s.Compress(ctx)
	require.NoError(t, err)
	from, to, ok := parseRecallLine(s.Messages()[1])
	require.True(t, ok, "%v", s.Messages())
	assert.Equal(t, [2]int64{1, 13}, [2]int64{from, to})
}

// bareEngine folds everything after the system prompt into a summary and
// reports nothing but its name.
type bareEngine struct{ *compact.Compressor }

func (bareEngine) Compress(_ context.Context, msgs []compact.Message, _ ...compact.CompressOption) (*compact.Result, error) {
	return &compact.Result{Summarizer: "bare", Messages: []compact.Message{
		msgs[0], {Role: compact.RoleUser, Content: compact.PrefixSummary("All of it.")},
	}}, nil
}

func TestRecallAlignsTheLiveHistoryWithTheLog(t *testing.T) {
	ctx := context.Background()
	s := newRecallSession(t, "align", nil)
	hist := agentHistory("align", 4) // 11 records
	mustAppend(t, s, hist...)
	live := []compact.Message{
		{Role: compact.RoleSystem, Content: hist[0].Content + "\n\n" + compact.CompactionNote}, // seq 1, noted
		hist[1], // seq 2
		{Role: compact.RoleUser, Content: compact.PrefixSummary("folded 3-8")},
		user("an incoming message the log never had"),
		hist[9], hist[10], // seqs 10, 11
	}
	seqs, err := s.alignSeqs(ctx, live, 11)
	require.NoError(t, err)
	assert.Equal(t, []int64{1, 2, 0, 0, 10, 11}, seqs)
}

// A compaction whose summary opens the history merged in front of a user
// turn (compact.WithUserFirst) gets its recall line inside the summary:
// the user's own words after it stay as the log has them, and the next
// compaction takes the line off and folds the message.
func TestRecallLineStaysInASummaryMergedBeforeAUserTurn(t *testing.T) {
	ctx := context.Background()
	st := store.NewMemory()
	engine := newTestCompressor(&recorder{}, compact.WithHeadMessages(0), compact.WithTail(0.01, 2))
	s, err := Open(ctx, "merged", engine, WithRecall(true), WithStore(st))
	require.NoError(t, err)
	mustAppend(t, s, agentHistory("merged", 8)...)
	mustAppend(t, s, compact.Message{Role: compact.RoleAssistant, Content: "We are at round 8."})
	_, err = s.Compress(ctx, compact.Force())
	require.NoError(t, err)
	first := s.Messages()[1]
	_, own, merged := msg.SplitMerged(first)
	require.True(t, merged && compact.IsRealUser(first), "the summary shares the user turn: %q", compact.Text(first))
	assert.Equal(t, user("Where are we?"), own, "the user's words, as the log has them")
	from, to, ok := parseRecallLine(first)
	require.True(t, ok)
	assert.Equal(t, int64(2), from)
	assert.Less(t, to, int64(19))

	mustAppend(t, s, agentHistory("merged", 12)[2:]...)
	_, err = s.Compress(ctx, compact.Force())
	require.NoError(t, err)
	assert.Equal(t, 1, recallLines(s.Messages()), "one summary, one line")
}
