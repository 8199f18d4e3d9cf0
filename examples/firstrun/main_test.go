package main

import (
	"io"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// output runs the program and returns what it printed.
func output(t *testing.T) string {
	t.Helper()
	r, w, err := os.Pipe()
	require.NoError(t, err)
	stdout := os.Stdout
	os.Stdout = w
	main()
	os.Stdout = stdout
	require.NoError(t, w.Close())
	out, err := io.ReadAll(r)
	require.NoError(t, err)
	return string(out)
}

// With no key and no network the program compacts the session and shows
// the summary: the first thing a newcomer runs shows a compaction.
func TestFirstRunShowsACompactionOffline(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "")
	t.Setenv("OPENAI_BASE_URL", "http://127.0.0.1:1") // nothing listens: a call would fail
	out := output(t)
	first, rest, ok := strings.Cut(out, "\n")
	require.True(t, ok, out)
	assert.Equal(t, "25 messages, 1099 tokens -> 12 messages, 689 tokens", first)
	assert.Contains(t, rest, "messages 4-17 became message 4, this summary:\n\n## Facts\n")
	assert.Contains(t, rest, "- Modified: internal/timeutil/duration.go")
	assert.Contains(t, rest, "## Task\n> Tabs too, please")

	readme, err := os.ReadFile("../../README.md")
	require.NoError(t, err)
	assert.Contains(t, string(readme), "`"+first+"`", "the README quotes what the program prints")
}
