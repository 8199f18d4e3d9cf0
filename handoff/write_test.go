package handoff

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/contextkit/compact/internal/msgtest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestWriteHandoffPacketWritesPrivatelyUnderRoot(t *testing.T) {
	root := t.TempDir()
	path, err := Write(root, "state/handoffs", "p.md", []byte("packet"))
	require.NoError(t, err)

	resolved, _ := filepath.EvalSymlinks(root)
	assert.Equal(t, filepath.Join(resolved, "state", "handoffs", "p.md"), path)
	got, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, "packet", string(got))
	assert.Equal(t, []string{"state/", "state/handoffs/", "state/handoffs/p.md"}, msgtest.Tree(t, root), "no temporary file left")
	if runtime.GOOS == "windows" {
		return
	}
	for p, want := range map[string]fs.FileMode{
		filepath.Join(root, "state"): dirMode, filepath.Join(root, "state", "handoffs"): dirMode, path: fileMode,
	} {
		fi, err := os.Stat(p)
		require.NoError(t, err)
		assert.Equal(t, want, fi.Mode().Perm(), p)
	}
}

func TestWriteHandoffPacketDirForms(t *testing.T) {
	for _, dir := range []string{"", ".", "./", "a/./b", "a//b/"} {
		root := t.TempDir()
		_, err := Write(root, dir, "p.md", []byte("x"))
		assert.NoError(t, err, "dir %q", dir)
	}
}

// A root the host chose may itself be a link: it is resolved and trusted.
func TestWriteHandoffPacketAcceptsALinkedRoot(t *testing.T) {
	real := t.TempDir()
	link := filepath.Join(t.TempDir(), "root")
	msgtest.SymlinkOrSkip(t, real, link)
	path, err := Write(link, "h", "p.md", []byte("x"))
	require.NoError(t, err)
	resolved, _ := filepath.EvalSymlinks(real)
	assert.Equal(t, filepath.Join(resolved, "h", "p.md"), path)
}

// Escapes are refused with ErrUnsafePath, and nothing is written: not under
// the root, not beside it.
func TestWriteHandoffPacketRefusesEscapes(t *testing.T) {
	abs := filepath.Join(t.TempDir(), "abs")
	tests := []struct {
		name  string
		setup func(t *testing.T, root, outside string) (dir, name string)
		left  []string // what the root holds afterwards
	}{
		{"parent", func(t *testing.T, root, outside string) (string, string) { return "..", "p.md" }, nil},
		{"parent then back", func(t *testing.T, root, outside string) (string, string) {
			return "../" + filepath.Base(root) + "/h", "p.md"
		}, nil},
		{"parent in the middle", func(t *testing.T, root, outside string) (string, string) { return "a/../../x", "p.md" }, nil},
		{"backslash parent", func(t *testing.T, root, outside string) (string, string) { return `a\..\..\x`, "p.md" }, nil},
		{"absolute", func(t *testing.T, root, outside string) (string, string) { return abs, "p.md" }, nil},
		{"rooted", func(t *testing.T, root, outside string) (string, string) { return "/tmp", "p.md" }, nil},
		{"linked directory in the middle", func(t *testing.T, root, outside string) (string, string) {
			require.NoError(t, os.Mkdir(filepath.Join(root, "a"), 0o700))
			msgtest.SymlinkOrSkip(t, outside, filepath.Join(root, "a", "link"))
			return "a/link/b", "p.md"
		}, []string{"a/", "a/link@"}},
		{"linked last directory", func(t *testing.T, root, outside string) (string, string) {
			msgtest.SymlinkOrSkip(t, outside, filepath.Join(root, "h"))
			return "h", "p.md"
		}, []string{"h@"}},
		{"file where a directory should be", func(t *testing.T, root, outside string) (string, string) {
			require.NoError(t, os.WriteFile(filepath.Join(root, "h"), []byte("mine"), 0o600))
			return "h/x", "p.md"
		}, []string{"h"}},
		{"name with a separator", func(t *testing.T, root, outside string) (string, string) { return "", "../p.md" }, nil},
		{"name that is a parent", func(t *testing.T, root, outside string) (string, string) { return "", ".." }, nil},
		{"empty name", func(t *testing.T, root, outside string) (string, string) { return "", "" }, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			parent := t.TempDir()
			root, outside := filepath.Join(parent, "root"), filepath.Join(parent, "outside")
			require.NoError(t, os.Mkdir(root, 0o700))
			require.NoError(t, os.Mkdir(outside, 0o700))
			dir, name := tt.setup(t, root, outside)

			path, err := Write(root, dir, name, []byte("packet"))
			require.ErrorIs(t, err, ErrUnsafePath)
			assert.Empty(t, path)
			assert.Equal(t, tt.left, msgtest.Tree(t, root), "nothing written under the root")
			assert.Empty(t, msgtest.Tree(t, outside), "nothing written outside")
			assert.Equal(t, []string{"outside/", "root/"}, topLevel(t, parent), "nothing written beside the root")
			_, err = os.Stat(abs)
			assert.True(t, errors.Is(err, fs.ErrNotExist), "nothing at the absolute path")
		})
	}
}

func topLevel(t *testing.T, dir string) []string {
	var out []string
	for _, p := range msgtest.Tree(t, dir) {
		if !strings.Contains(strings.TrimSuffix(p, "/"), "/") {
			out = append(out, p)
		}
	}
	return out
}

func TestWriteHandoffPacketRootProblems(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	require.NoError(t, os.WriteFile(file, nil, 0o600))
	_, err := Write("", "", "p.md", nil)
	assert.ErrorIs(t, err, ErrUnsafePath)
	_, err = Write(file, "", "p.md", nil)
	assert.ErrorIs(t, err, ErrUnsafePath)
	_, err = Write(filepath.Join(t.TempDir(), "missing"), "", "p.md", nil)
	assert.ErrorIs(t, err, fs.ErrNotExist)
}

// A taken name, whether a file or a link, is never written through or
// replaced: the packet takes the next numbered name.
func TestWriteHandoffPacketNeverOverwrites(t *testing.T) {
	root := t.TempDir()
	victim := filepath.Join(t.TempDir(), "victim")
	require.NoError(t, os.WriteFile(victim, []byte("precious"), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(root, "p.md"), []byte("first"), 0o600))
	msgtest.SymlinkOrSkip(t, victim, filepath.Join(root, "p-2.md"))

	path, err := Write(root, "", "p.md", []byte("third"))
	require.NoError(t, err)
	assert.Equal(t, "p-3.md", filepath.Base(path))
	for p, want := range map[string]string{filepath.Join(root, "p.md"): "first", victim: "precious", path: "third"} {
		got, err := os.ReadFile(p)
		require.NoError(t, err)
		assert.Equal(t, want, string(got))
	}
	assert.Equal(t, []string{"p-2.md@", "p-3.md", "p.md"}, msgtest.Tree(t, root))
}

func TestWriteHandoffPacketGivesUpAfterBoundedTries(t *testing.T) {
	root := t.TempDir()
	for i := 1; i <= nameTries; i++ {
		require.NoError(t, os.WriteFile(filepath.Join(root, numberedName("p.md", i)), nil, 0o600))
	}
	_, err := Write(root, "", "p.md", []byte("x"))
	require.Error(t, err)
	assert.Len(t, msgtest.Tree(t, root), nameTries, "no temporary file left")
}

// Writers racing for one name all succeed, under distinct names, each file
// whole.
func TestWriteHandoffPacketConcurrentWritersNeverCollide(t *testing.T) {
	root := t.TempDir()
	const n = 16
	paths := make([]string, n)
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			p, err := Write(root, "h", "p.md", []byte(strings.Repeat(strconv.Itoa(i), 1000)))
			assert.NoError(t, err)
			paths[i] = p
		}(i)
	}
	wg.Wait()
	seen := map[string]bool{}
	for i, p := range paths {
		assert.False(t, seen[p], "path %s given twice", p)
		seen[p] = true
		got, err := os.ReadFile(p)
		require.NoError(t, err)
		assert.Equal(t, strings.Repeat(strconv.Itoa(i), 1000), string(got))
	}
	assert.Len(t, msgtest.Tree(t, root), n+1)
}

func TestWriteHandoffPacketReadOnlyDirectoryFails(t *testing.T) {
	if runtime.GOOS == "windows" || os.Geteuid() == 0 {
		t.Skip("needs a system where a read-only directory stops its owner")
	}
	root := t.TempDir()
	require.NoError(t, os.Chmod(root, 0o500))
	t.Cleanup(func() { os.Chmod(root, 0o700) })
	_, err := Write(root, "", "p.md", []byte("x"))
	assert.ErrorIs(t, err, fs.ErrPermission)
}

func TestHandoffFileNames(t *testing.T) {
	at := time.Date(2025, 6, 7, 8, 9, 10, 0, time.FixedZone("x", 3600))
	tests := []struct{ session, want string }{
		{"sess-42", "handoff-sess-42-20250607T070910Z-1.md"},
		{"../../etc/passwd", "handoff-etc_passwd-20250607T070910Z-1.md"},
		{"", "handoff-session-20250607T070910Z-1.md"},
		{"ünïcode id", "handoff-n_code_id-20250607T070910Z-1.md"},
		{strings.Repeat("a", 100), "handoff-" + strings.Repeat("a", 48) + "-20250607T070910Z-1.md"},
		{"ghp_NZYW2mZp0zVZomHFwUbbYrEqmSM9wCZ7Uw9x", "handoff-session-20250607T070910Z-1.md"},
	}
	for _, tt := range tests {
		got := FileName(tt.session, at, "1")
		assert.Equal(t, tt.want, got, tt.session)
		assert.NoError(t, checkName(got))
	}
	assert.Equal(t, "p.md", numberedName("p.md", 1))
	assert.Equal(t, "p-2.md", numberedName("p.md", 2))
	assert.Equal(t, "notes-3", numberedName("notes", 3))
	assert.Equal(t, ".hidden-2", numberedName(".hidden", 2))
}
