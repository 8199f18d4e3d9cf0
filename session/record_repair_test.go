package session_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	openai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/session"
	"github.com/contextkit/compact/session/store"
	"github.com/contextkit/compact/session/storetest"
)

// readFileLog is the history of issue 35: a system prompt, a task, 12
// read_file calls with their 300-line results, an orphan result after the
// third and a user message at index 21.
func readFileLog() []compact.Message {
	log := []compact.Message{{Role: compact.RoleSystem, Content: "You are a coding agent."},
		{Role: compact.RoleUser, Content: "Review the package."}}
	for i := range 12 {
		id := fmt.Sprintf("call_%d", i)
		var out strings.Builder
		for l := range 300 {
			fmt.Fprintf(&out, "%d: line %d of file_%d.go\n", l, l, i)
		}
		log = append(log, compact.Message{Role: compact.RoleAssistant, ToolCalls: []openai.ToolCall{{ID: id, Type: openai.ToolTypeFunction,
			Function: openai.FunctionCall{Name: "read_file", Arguments: fmt.Sprintf(`{"path":"file_%d.go"}`, i)}}}},
			compact.Message{Role: compact.RoleTool, ToolCallID: id, Content: out.String()})
		if i == 2 {
			log = append(log, compact.Message{Role: compact.RoleTool, ToolCallID: "call_ghost", Content: "an answer to nothing"})
		}
		if i == 8 {
			log = append(log, compact.Message{Role: compact.RoleUser, Content: "Also check b.go."})
		}
	}
	return log
}

// A host that compacts a session's history with an engine of its own under
// compact.WithRepair (the log holds an orphan tool result) and records the
// Result gets the fold the Result names: its indexes are the live
// history's, so the compaction folds the log records from the first to the
// last message the account folds, and the store loses nothing.
func TestRecordOfARepairedCompactionFoldsWhatItSays(t *testing.T) {
	ctx := context.Background()
	st := store.NewMemory()
	s, err := session.Open(ctx, "repaired", smallEngine(), session.WithStore(st))
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close(ctx) })
	require.NoError(t, s.Append(ctx, readFileLog()...))

	engine := compact.New(compact.WithContextWindow(8000), compact.WithRepair(true))
	res, err := engine.Compress(ctx, s.Messages(), compact.Force())
	require.NoError(t, err)
	require.Len(t, res.Repairs, 1)
	require.NoError(t, s.RecordCompaction(ctx, res))

	comps, err := st.Compactions(ctx, "repaired")
	require.NoError(t, err)
	require.Len(t, comps, 1)
	// Log records are numbered from 1: record i+1 is message i.
	assert.Equal(t, int64(res.SummarizedFrom+1), comps[0].FoldedFrom)
	assert.Equal(t, int64(res.SummarizedTo+1), comps[0].FoldedThrough)
	last := -1
	for _, f := range res.Account {
		if f.Fate == "folded" || f.Fate == "carried" {
			last = f.Index
		}
	}
	assert.Equal(t, int64(last+1), comps[0].FoldedThrough, "the fold the account names")
	assert.Equal(t, "Also check b.go.", readFileLog()[res.Lifted].Content)
	require.NoError(t, storetest.Audit(ctx, st, "repaired"))
}

// RecordCompaction takes a compaction whose summary shares the user's message
// (compact.WithUserFirst): that message keeps the user's own content, which
// is what the account says it kept.
func TestRecordOfASummaryMergedInFrontOfAUserTurn(t *testing.T) {
	ctx := context.Background()
	st := store.NewMemory()
	s, err := session.Open(ctx, "merged", smallEngine(), session.WithStore(st))
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close(ctx) })
	require.NoError(t, s.Append(ctx, readFileLog()[:21]...)) // it ends with "Also check b.go."

	engine := compact.New(compact.WithContextWindow(8000), compact.WithHeadMessages(0), compact.WithRepair(true))
	res, err := engine.Compress(ctx, s.Messages(), compact.Force())
	require.NoError(t, err)
	require.True(t, compact.IsRealUser(res.Messages[res.SummaryIndex]), "the summary shares the user's message")
	require.NoError(t, s.RecordCompaction(ctx, res))
	require.NoError(t, storetest.Audit(ctx, st, "merged"))
}
