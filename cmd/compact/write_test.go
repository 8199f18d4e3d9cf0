//go:build linux

package main

import (
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/contextkit/compact/internal/sharedtest"
)

// These tests make devices, FIFOs and links in a temporary directory and
// point the command at them. None touches the machine's own /dev.

// compactArgs compact the project's coding session at a window that folds
// it, so every run writes the same, non-trivial output.
var compactArgs = []string{"-force", "-window", "2000", codingSession}

// expectedOutput is what the command writes to a regular file with
// compactArgs.
func expectedOutput(t *testing.T) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "out.json")
	r := runCLI(t, "", append([]string{"-o", out}, compactArgs...)...)
	require.Equal(t, 0, r.code, r.stderr)
	return readFile(t, out)
}

// mknod makes a character device numbered major:minor at path, or skips
// the test when the process may not (mknod needs root).
func mknod(t *testing.T, path string, major, minor uint32) {
	t.Helper()
	if os.Geteuid() != 0 {
		sharedtest.Skip(t, "making a device node needs root")
	}
	require.NoError(t, syscall.Mknod(path, syscall.S_IFCHR|0o666, int(major<<8|minor)))
}

// dirNames lists dir's entries, to show no temporary file was left behind.
func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	sort.Strings(out)
	return out
}

// isCharDevice asserts path is still the character device major:minor.
func isCharDevice(t *testing.T, path string, major, minor uint32) {
	t.Helper()
	fi, err := os.Lstat(path)
	require.NoError(t, err)
	require.NotZero(t, fi.Mode()&fs.ModeCharDevice, "%s is still a character device, not %v", path, fi.Mode())
	st := fi.Sys().(*syscall.Stat_t)
	assert.Equal(t, uint64(major<<8|minor), st.Rdev, "the same device")
}

func TestADeviceIsWrittenThroughNeverReplaced(t *testing.T) {
	for _, flag := range []string{"-o", "-json-report", "-html"} {
		t.Run(flag, func(t *testing.T) {
			dir := t.TempDir()
			null := filepath.Join(dir, "null")
			mknod(t, null, 1, 3)
			r := runCLI(t, "", append([]string{flag, null}, compactArgs...)...)
			require.Equal(t, 0, r.code, r.stderr)
			isCharDevice(t, null, 1, 3)
			assert.Equal(t, []string{"null"}, dirNames(t, dir), "no file beside the device")
		})
	}
}

func TestAFailingDeviceWritesNothingElse(t *testing.T) {
	dir := t.TempDir()
	full := filepath.Join(dir, "full") // every write fails with ENOSPC
	mknod(t, full, 1, 7)
	out := filepath.Join(dir, "out.json")
	r := runCLI(t, "", append([]string{"-o", out, "-json-report", full}, compactArgs...)...)
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, "writing "+full+": no space left on device")
	isCharDevice(t, full, 1, 7)
	assert.Equal(t, []string{"full"}, dirNames(t, dir), "the output is not written when the report cannot be, and no temporary file stays")
}

func TestAFIFOIsWrittenThroughToItsReader(t *testing.T) {
	want := expectedOutput(t)
	dir := t.TempDir()
	fifo := filepath.Join(dir, "pipe")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	got := make(chan string, 1)
	t.Cleanup(func() { // a reader still waiting for a writer (the command failed) is let go
		if f, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			_ = f.Close()
		}
	})
	go func() {
		f, err := os.Open(fifo) // blocks until the command opens it to write
		if err != nil {
			got <- err.Error()
			return
		}
		data, _ := io.ReadAll(f)
		_ = f.Close()
		got <- string(data)
	}()
	r := runCLI(t, "", append([]string{"-o", fifo}, compactArgs...)...)
	require.Equal(t, 0, r.code, r.stderr)
	select {
	case s := <-got:
		assert.Equal(t, want, s, "the reader gets the output")
	case <-time.After(10 * time.Second):
		t.Fatal("the reader got nothing")
	}
	fi, err := os.Lstat(fifo)
	require.NoError(t, err)
	assert.NotZero(t, fi.Mode()&fs.ModeNamedPipe, "still a FIFO, not %v", fi.Mode())
	assert.Equal(t, []string{"pipe"}, dirNames(t, dir))
}

func TestAFIFOWithNoReaderIsRefusedInTime(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "pipe")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	out := filepath.Join(dir, "out.json")
	start := time.Now()
	err := writeFilesWaiting(map[string][]byte{fifo: []byte("x"), out: []byte("y")}, 100*time.Millisecond)
	require.Error(t, err)
	assert.Less(t, time.Since(start), 5*time.Second, "the wait for a reader is bounded")
	assert.Contains(t, err.Error(), "writing "+fifo+": a FIFO no process opened for reading")
	fi, lerr := os.Lstat(fifo)
	require.NoError(t, lerr)
	assert.NotZero(t, fi.Mode()&fs.ModeNamedPipe)
	assert.Equal(t, []string{"pipe"}, dirNames(t, dir), "the other file is not written, no temporary file stays")
}

func TestASymlinkIsFollowedAndKept(t *testing.T) {
	want := expectedOutput(t)
	dir, elsewhere := t.TempDir(), t.TempDir()
	target := filepath.Join(elsewhere, "real.json")
	require.NoError(t, os.WriteFile(target, []byte("old"), 0o600))
	link := filepath.Join(dir, "out.json")
	require.NoError(t, os.Symlink(filepath.Join("..", filepath.Base(elsewhere), "real.json"), link)) // relative
	r := runCLI(t, "", append([]string{"-o", link}, compactArgs...)...)
	require.Equal(t, 0, r.code, r.stderr)

	fi, err := os.Lstat(link)
	require.NoError(t, err)
	assert.NotZero(t, fi.Mode()&fs.ModeSymlink, "the link is still a link")
	assert.Equal(t, want, readFile(t, target), "the file it points at holds the output")
	ti, err := os.Stat(target)
	require.NoError(t, err)
	assert.Equal(t, fs.FileMode(0o600), ti.Mode().Perm(), "the target keeps its permissions")
	assert.Equal(t, []string{"out.json"}, dirNames(t, dir))
	assert.Equal(t, []string{"real.json"}, dirNames(t, elsewhere), "no temporary file beside the target")
}

func TestALinkToADeviceIsWrittenThrough(t *testing.T) {
	dir := t.TempDir()
	null := filepath.Join(dir, "null")
	mknod(t, null, 1, 3)
	link := filepath.Join(dir, "out.json")
	require.NoError(t, os.Symlink("null", link))
	r := runCLI(t, "", append([]string{"-o", link}, compactArgs...)...)
	require.Equal(t, 0, r.code, r.stderr)
	isCharDevice(t, null, 1, 3)
	fi, err := os.Lstat(link)
	require.NoError(t, err)
	assert.NotZero(t, fi.Mode()&fs.ModeSymlink)
	assert.Equal(t, []string{"null", "out.json"}, dirNames(t, dir))
}

func TestWhatCannotBeWrittenIsRefusedByName(t *testing.T) {
	dir := t.TempDir()
	sub := filepath.Join(dir, "sub")
	require.NoError(t, os.Mkdir(sub, 0o755))
	dangling := filepath.Join(dir, "dangling.json")
	require.NoError(t, os.Symlink("nowhere.json", dangling))
	toDir := filepath.Join(dir, "todir.json")
	require.NoError(t, os.Symlink("sub", toDir))
	for path, why := range map[string]string{
		dangling: "a symbolic link to nowhere.json, which cannot be written",
		toDir:    "a symbolic link to a directory",
	} {
		r := runCLI(t, "", append([]string{"-json-report", path}, compactArgs...)...)
		assert.Equal(t, 1, r.code, path)
		assert.Contains(t, r.stderr, "writing "+path+": "+why)
	}
	link, err := os.Readlink(dangling)
	require.NoError(t, err)
	assert.Equal(t, "nowhere.json", link, "the link is untouched")
	assert.Equal(t, []string{"dangling.json", "sub", "todir.json"}, dirNames(t, dir), "nothing created")
	assert.Empty(t, dirNames(t, sub))
}

func TestABatchWritesThroughALinkInItsDirectory(t *testing.T) {
	want := expectedOutput(t)
	in, out, elsewhere := t.TempDir(), t.TempDir(), t.TempDir()
	data, err := os.ReadFile(codingSession)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(in, "coding_session.json"), data, 0o644))
	target := filepath.Join(elsewhere, "kept.json")
	require.NoError(t, os.WriteFile(target, nil, 0o644))
	require.NoError(t, os.Symlink(target, filepath.Join(out, "coding_session.json")))
	r := runCLI(t, "", "-force", "-window", "2000", "-o", out, in)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, want, readFile(t, target))
	fi, err := os.Lstat(filepath.Join(out, "coding_session.json"))
	require.NoError(t, err)
	assert.NotZero(t, fi.Mode()&fs.ModeSymlink)
}
