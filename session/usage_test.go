package session

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/contextkit/compact"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The README's session loop: a usage report over the threshold makes the
// session's next check compact, though its running count is under it
// (the provider counted tool schemas the host did not name), and after
// the compaction the old report triggers nothing.
func TestASessionCompactsOnTheTurnAfterAReportOverTheThreshold(t *testing.T) {
	ctx := context.Background()
	engine := compact.New(compact.WithModel("gpt-4o"), compact.WithContextWindow(16_000))
	s, err := Open(ctx, "usage", engine)
	require.NoError(t, err)
	defer s.Close(ctx)
	th := engine.Status().Threshold
	require.NoError(t, s.Append(ctx, sys("You are a coding agent."), user("Fix the flaky test.")))
	for i := 0; s.Tokens() < th/2; i++ {
		id := fmt.Sprintf("c%d", i)
		require.NoError(t, s.Append(ctx, call("step", id, "bash"), result(id, strings.Repeat("output line\n", 30))))
	}
	require.False(t, s.ShouldCompress())
	s.UpdateUsage(compact.Usage{PromptTokens: th + 1})
	require.NoError(t, s.Append(ctx, call("step", "last", "bash"), result("last", "ok")))
	require.True(t, s.ShouldCompress(), "the next check after a report over the threshold")
	res, err := s.Compress(ctx)
	require.NoError(t, err)
	require.Empty(t, res.Skipped)
	assert.False(t, s.ShouldCompress(), "the compaction made the report stale")
}
