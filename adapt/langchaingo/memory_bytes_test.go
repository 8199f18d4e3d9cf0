package langchaingo

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/session"
	"github.com/contextkit/compact/session/sqlitestore"
)

// A turn holding bytes that are not UTF-8 (a tool's raw output, a
// character cut in two) reads the same after a restart as before it: the
// store keeps the bytes.
func TestMemoryTurnKeepsItsBytesAcrossARestart(t *testing.T) {
	defer goleak.VerifyNone(t)
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "chat.db")
	load := func(save bool) any {
		st, err := sqlitestore.Open(ctx, path)
		require.NoError(t, err)
		defer func() { require.NoError(t, st.Close()) }()
		s, err := session.Open(ctx, "chat-bytes", compact.New(), session.WithStore(st))
		require.NoError(t, err)
		defer func() { require.NoError(t, s.Close(ctx)) }()
		mem := NewMemory(s)
		if save {
			require.NoError(t, mem.SaveContext(ctx, map[string]any{"input": "caf\xe9 \x00?"}, map[string]any{"text": "ok \xff\xfe"}))
		}
		vars, err := mem.LoadMemoryVariables(ctx, nil)
		require.NoError(t, err)
		return vars["history"]
	}
	before := load(true)
	require.Contains(t, before, "caf\xe9 \x00?")
	assert.Equal(t, before, load(false), "the history after a restart")
}
