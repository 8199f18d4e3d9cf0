//go:build unix

package sqlitestore_test

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/session/sqlitestore"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// withUmask runs fn with the process's umask set to mask, then puts the
// old one back. The umask belongs to the whole process: a test calling it
// must not run in parallel with any other (none in this package does).
func withUmask(mask int, fn func()) {
	old := syscall.Umask(mask)
	defer syscall.Umask(old)
	fn()
}

// modes opens a store at path, appends to it so that SQLite creates its
// -wal and -shm files, and returns the modes of the three files while the
// store is open.
func modes(t *testing.T, path string) map[string]fs.FileMode {
	t.Helper()
	ctx := context.Background()
	st, err := sqlitestore.Open(ctx, path)
	require.NoError(t, err)
	defer func() { require.NoError(t, st.Close()) }()
	_, _, err = st.Append(ctx, "agent-7", compact.Message{Role: compact.RoleUser, Content: "the API key is sk-live-0123"})
	require.NoError(t, err)
	out := map[string]fs.FileMode{}
	for _, suffix := range []string{"", "-wal", "-shm"} {
		fi, err := os.Stat(path + suffix)
		require.NoError(t, err, "SQLite keeps %s%s beside the file while it is open", filepath.Base(path), suffix)
		out[filepath.Base(path+suffix)] = fi.Mode().Perm()
	}
	return out
}

// Issue 33.4: the file Open creates, and its -wal and -shm files, are
// readable by their owner alone, whatever the umask.
func TestFilesOpenCreatesAreOwnerOnly(t *testing.T) {
	for _, mask := range []int{0o022, 0, 0o077} {
		withUmask(mask, func() {
			path := filepath.Join(t.TempDir(), "sessions.db")
			got := modes(t, path)
			assert.Equal(t, map[string]fs.FileMode{"sessions.db": 0o600, "sessions.db-wal": 0o600, "sessions.db-shm": 0o600}, got,
				"umask %03o", mask)
		})
	}
}

// A file the host created is opened as it is: its mode is the host's
// choice, and SQLite gives the -wal and -shm files the same.
func TestAnExistingFileKeepsItsMode(t *testing.T) {
	withUmask(0o022, func() {
		path := filepath.Join(t.TempDir(), "sessions.db")
		require.NoError(t, os.WriteFile(path, nil, 0o640))
		got := modes(t, path)
		assert.Equal(t, map[string]fs.FileMode{"sessions.db": 0o640, "sessions.db-wal": 0o640, "sessions.db-shm": 0o640}, got)
	})
}
