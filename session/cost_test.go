package session

import (
	"context"
	"testing"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/models"
	"github.com/contextkit/compact/session/store"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A Session keeps what its conversation has been billed across restarts:
// each compaction records the bill so far in the store, and a Session that
// opens the session again starts from it.
func TestSessionKeepsTheBillAcrossRestarts(t *testing.T) {
	ctx := context.Background()
	st := store.NewMemory()
	prices, _ := models.Lookup("claude-sonnet-4-5")
	priced := func() compact.ContextEngine {
		return newTestCompressor(&recorder{Out: "summary"}, compact.WithPricing(prices.Pricing))
	}
	s, err := Open(ctx, "agent-9", priced(), WithStore(st))
	require.NoError(t, err)
	mustAppend(t, s, chatHistory("agent-9", 200)...)
	s.UpdateUsage(compact.Usage{PromptTokens: 5_000, CompletionTokens: 100, CachedTokens: 4_000, CacheWriteTokens: 1_000})
	_, err = s.Compress(ctx, compact.Force())
	require.NoError(t, err)
	before := s.Status().Cost
	require.Equal(t, 1, before.Requests)
	require.Equal(t, 1, before.Compactions["summary"])
	require.NotNil(t, before.Dollars)

	// The process restarts: a new engine, the same store.
	again, err := Open(ctx, "agent-9", priced(), WithStore(st))
	require.NoError(t, err)
	after := again.Status().Cost
	assert.Equal(t, before.Requests, after.Requests)
	assert.Equal(t, before.Billed, after.Billed)
	assert.Equal(t, before.Compactions, after.Compactions)
	assert.InDelta(t, *before.Dollars, *after.Dollars, 1e-12)

	again.UpdateUsage(compact.Usage{PromptTokens: 2_000, CachedTokens: 1_500, CacheWriteTokens: 500})
	assert.Equal(t, 2, again.Status().Cost.Requests, "and counts on from there")

	fresh, err := Open(ctx, "agent-10", priced(), WithStore(st))
	require.NoError(t, err)
	assert.Zero(t, fresh.Status().Cost.Requests)
}

// A Session with recall tells its engine that what compaction folds stays
// recoverable, so economy mode may fold deeper.
func TestASessionWithRecallSaysSo(t *testing.T) {
	spy := &spyEngine{Compressor: newTestCompressor(&recorder{})}
	_, err := Open(context.Background(), "agent-11", spy, WithRecall(true))
	require.NoError(t, err)
	assert.True(t, spy.meta.Recall)

	plain := &spyEngine{Compressor: newTestCompressor(&recorder{})}
	_, err = Open(context.Background(), "agent-12", plain)
	require.NoError(t, err)
	assert.False(t, plain.meta.Recall)
}
