package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/internal/sharedtest"
)

// codingSession is the project's own coding transcript: big enough that a
// 2,000-token window compacts it.
const codingSession = "../../testdata/transcripts/coding_session.json"

// result is what one run of the command gave.
type result struct {
	code           int
	stdout, stderr string
}

// runCLI runs the command with stdin, with progress lines held back.
func runCLI(t testing.TB, stdin string, args ...string) result {
	t.Helper()
	var out, errb bytes.Buffer
	code := runContext(context.Background(), args, strings.NewReader(stdin), &out, &errb,
		progressConfig{quiet: time.Hour})
	return result{code: code, stdout: out.String(), stderr: errb.String()}
}

// writeFile writes content to dir/name and returns the path.
func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
	return p
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	return string(data)
}

// decodeOutput reads the command's JSON array back as messages.
func decodeOutput(t *testing.T, data string) []compact.Message {
	t.Helper()
	var msgs []compact.Message
	require.NoError(t, json.Unmarshal([]byte(data), &msgs), "output is a JSON array of messages:\n%s", data)
	return msgs
}

func decodeReport(t *testing.T, path string) map[string]any {
	t.Helper()
	var r map[string]any
	require.NoError(t, json.Unmarshal([]byte(readFile(t, path)), &r))
	return r
}

func TestFlagsMayComeAfterTheFile(t *testing.T) {
	dir := t.TempDir()
	before := runCLI(t, "", "-force", "-window", "2000", "-o", filepath.Join(dir, "a.json"), codingSession)
	after := runCLI(t, "", codingSession, "-force", "-window=2000", "-o", filepath.Join(dir, "b.json"))
	require.Equal(t, 0, before.code, before.stderr)
	require.Equal(t, 0, after.code, after.stderr)
	assert.Equal(t, readFile(t, filepath.Join(dir, "a.json")), readFile(t, filepath.Join(dir, "b.json")))
}

func TestSplitArgs(t *testing.T) {
	tests := []struct {
		args         []string
		flags, paths []string
	}{
		{[]string{"f.json", "-report"}, []string{"-report"}, []string{"f.json"}},
		{[]string{"-window", "8000", "f.json", "-force"}, []string{"-window", "8000", "-force"}, []string{"f.json"}},
		{[]string{"f.json", "--window=8000", "g.json"}, []string{"--window=8000"}, []string{"f.json", "g.json"}},
		{[]string{"-", "-o", "out.json"}, []string{"-o", "out.json"}, []string{"-"}},
		{[]string{"-force", "--", "-odd-name.json"}, []string{"-force"}, []string{"-odd-name.json"}},
		{[]string{"-force=false", "f.json"}, []string{"-force=false"}, []string{"f.json"}},
		{[]string{"-nosuch", "f.json"}, []string{"-nosuch"}, []string{"f.json"}},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			fs := newFlagSet(&options{}, new(bytes.Buffer))
			flags, paths := splitArgs(fs, tt.args)
			assert.Equal(t, tt.flags, flags)
			assert.Equal(t, tt.paths, paths)
		})
	}
}

func TestUsageErrorsExitTwo(t *testing.T) {
	tests := map[string][]string{
		"no input":            {},
		"unknown flag":        {"-nosuch", codingSession},
		"threshold too big":   {"-threshold", "1.5", codingSession},
		"zero window":         {"-window", "0", codingSession},
		"reserve past window": {"-window", "1000", "-reserve", "1000", codingSession},
		"unknown summarizer":  {"-summarizer", "magic", codingSession},
		"two summarizers":     {"-summarizer", "extractive,openai", codingSession},
		"drop outside probe":  {"-summarizer", "drop", codingSession},
		"stdin and a file":    {"-", codingSession},
		"dir without -o":      {filepath.Dir(codingSession)},
		"openai without key":  {"-summarizer", "openai", codingSession},
	}
	t.Setenv("OPENAI_API_KEY", "")
	t.Setenv("OPENAI_BASE_URL", "")
	for name, args := range tests {
		t.Run(name, func(t *testing.T) {
			r := runCLI(t, "", args...)
			assert.Equal(t, 2, r.code, r.stderr)
			assert.NotEmpty(t, r.stderr, "says what is wrong")
			assert.Empty(t, r.stdout)
		})
	}
}

func TestHelpExitsZero(t *testing.T) {
	r := runCLI(t, "", "-h")
	assert.Equal(t, 0, r.code)
	assert.Contains(t, r.stderr, "-json-report")
	assert.Contains(t, r.stderr, "Exit status:")
	ex := r.stderr[strings.Index(r.stderr, "examples:"):]
	assert.Equal(t, 4, strings.Count(ex, "\n  compact "), "four examples end the help:\n%s", ex)
	assert.Contains(t, ex, "-html")
	assert.Contains(t, ex, `compact replay -compare "default;-threshold 0.5"`)
}

func TestOutputIsReadableJSON(t *testing.T) {
	in := `[{"role":"user","content":"run a && b <x>"},{"role":"assistant","content":"ok"}]`
	r := runCLI(t, in, "-")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, `"run a && b <x>"`, "no HTML escaping")
	assert.Equal(t, "user", decodeOutput(t, r.stdout)[0].Role)
}

// TestRoundTripKeepsEveryField checks that a history the command does not
// compact comes back as it went in: every shared transcript decoded and
// written again is the same JSON, up to empty content written as absent.
func TestRoundTripKeepsEveryField(t *testing.T) {
	var files []string
	if sharedtest.Dir() != "" || sharedtest.Required() {
		files = sharedtest.Files(t)
	}
	own, _ := filepath.Glob("../../testdata/transcripts/*.json")
	files = append(files, own...)
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			data := readFile(t, f)
			tr, err := decodeTranscript([]byte(data))
			require.NoError(t, err)
			out, err := encodeMessages(tr.msgs)
			require.NoError(t, err)
			assert.Equal(t, normalized(t, data), normalized(t, string(out)))
		})
	}
}

// normalized decodes a JSON array of messages generically, dropping null
// and empty content (go-openai writes none for them).
func normalized(t *testing.T, data string) []map[string]any {
	t.Helper()
	var msgs []map[string]any
	require.NoError(t, json.Unmarshal([]byte(data), &msgs))
	for _, m := range msgs {
		if c, ok := m["content"]; ok && (c == nil || c == "" || isEmptyList(c)) {
			delete(m, "content")
		}
	}
	return msgs
}

func isEmptyList(v any) bool {
	l, ok := v.([]any)
	return ok && len(l) == 0
}
