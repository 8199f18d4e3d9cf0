package session

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/session/store"
)

// A provider's compaction supersedes a background compaction of the
// session's own: RecordCompaction cancels it (no failure counted, nothing of it
// committed) and commits the provider's.
func TestRecordCancelsABackgroundCompaction(t *testing.T) {
	noLeaks(t)
	ctx := context.Background()
	g := newGate(4)
	mem := store.NewMemory()
	s := newTestSession(t, "bg", g, WithBackground(true), WithSoftMark(0.5), WithStore(mem))
	startBackground(t, s, g, chatHistory("bg", 400))
	live := s.Messages()
	summary := compact.Message{Role: compact.RoleUser, Content: compact.PrefixSummary("The provider's summary.")}
	res := &compact.Result{Messages: []compact.Message{live[0], summary}, MessagesBefore: len(live),
		SummaryIndex: 1, SummarizedFrom: 1, SummarizedTo: len(live) - 1, Summarizer: "provider:compact"}

	require.NoError(t, s.RecordCompaction(ctx, res))
	st := s.Status()
	assert.False(t, st.InBackground, "the background compaction ended")
	assert.Zero(t, st.BackgroundFailures, "cancelled, not failed")
	assert.Zero(t, st.BackgroundCompactions)
	assert.Equal(t, 1, st.RecordedCompactions)
	comps, err := mem.Compactions(ctx, "bg")
	require.NoError(t, err)
	require.Len(t, comps, 1, "the provider's compaction alone")
	assert.Equal(t, "provider:compact", comps[0].Summarizer)
	assert.True(t, equalHistory([]compact.Message{live[0], summary}, s.Messages()))
	require.NoError(t, s.Close(ctx))
}
