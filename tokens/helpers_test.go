package tokens

import (
	"testing"

	"github.com/contextkit/compact/internal/msg"
	"github.com/contextkit/compact/internal/msgtest"
	"github.com/contextkit/compact/internal/sharedtest"
)

var (
	sortedNames  = msgtest.Names
	cloneMessage = msg.CloneMessage
)

// loadTranscripts returns the shared real transcripts by file name,
// skipping tb when they are absent (unless COMPACT_REQUIRE_SHARED=1 makes
// their absence a failure).
func loadTranscripts(tb testing.TB) map[string][]Message {
	tb.Helper()
	out := msgtest.Shared(tb)
	if len(out) == 0 {
		sharedtest.Missing(tb)
	}
	return out
}
