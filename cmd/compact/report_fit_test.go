package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// oversized is a history whose latest user message alone is over a
// 4,000-token window: no compaction can make it fit.
func oversized(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	b.WriteString(`[{"role":"system","content":"You are terse."}`)
	for i := range 6 {
		fmt.Fprintf(&b, `,{"role":"user","content":"question %d %s"},{"role":"assistant","content":"answer %d %s"}`,
			i, strings.Repeat("about the build ", 40), i, strings.Repeat("it compiles now ", 40))
	}
	fmt.Fprintf(&b, `,{"role":"user","content":"%s"}]`, strings.Repeat("paste of a huge log line ", 1200))
	return writeFile(t, dir, "oversized.json", b.String())
}

func readReport(t *testing.T, path string) report {
	t.Helper()
	var r report
	require.NoError(t, json.Unmarshal([]byte(readFile(t, path)), &r))
	return r
}

// A history that still does not fit is written, and the command says so:
// -report, -json-report and a line on standard error carry the overflow
// and the message too large; -must-fit turns it into exit 3.
func TestReportStatesFit(t *testing.T) {
	dir := t.TempDir()
	in := oversized(t, dir)
	out, rep := filepath.Join(dir, "out.json"), filepath.Join(dir, "rep.json")

	r := runCLI(t, "", "-window", "4000", "-o", out, "-json-report", rep, in)
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.Contains(t, r.stderr, "does not fit")
	got := readReport(t, rep)
	assert.False(t, got.Fits)
	assert.Positive(t, got.Overflow)
	assert.Equal(t, got.AfterTokens-got.Usable, got.Overflow)
	require.NotNil(t, got.TooLarge)
	assert.Equal(t, "user", got.TooLarge.Role)
	assert.Equal(t, got.BeforeMessages-1, got.TooLarge.Input, "the latest user message")
	assert.Equal(t, got.AfterMessages-1, got.TooLarge.Output)

	r = runCLI(t, "", "-window", "4000", "-report", "-o", out, in)
	assert.Regexp(t, `fits +NO: [\d,]+ tokens over the 3,000 usable`, r.stderr)

	require.NoError(t, os.Remove(out))
	r = runCLI(t, "", "-window", "4000", "-must-fit", "-o", out, in)
	assert.Equal(t, exitOverflow, r.code, r.stderr)
	assert.FileExists(t, out, "written all the same")
}

// A history that fits says so, with no message named.
func TestReportOfAFitSaysSo(t *testing.T) {
	dir := t.TempDir()
	rep := filepath.Join(dir, "rep.json")
	r := runCLI(t, "", "-force", "-window", "2000", "-o", filepath.Join(dir, "out.json"), "-json-report", rep, codingSession)
	require.Equal(t, exitOK, r.code, r.stderr)
	got := readReport(t, rep)
	assert.True(t, got.Fits)
	assert.Zero(t, got.Overflow)
	assert.Nil(t, got.TooLarge)
	assert.Equal(t, 1500, got.Usable, "a 2,000-token window less a quarter for the reply")
	assert.NotContains(t, r.stderr, "does not fit")
}

// -model takes the window from the model table, as WithModel does; -window
// still wins.
func TestModelGivesTheWindow(t *testing.T) {
	dir := t.TempDir()
	rep := filepath.Join(dir, "rep.json")
	for _, c := range []struct {
		args   []string
		window int
	}{
		{[]string{"-model", "claude-sonnet-4-5"}, 200_000},
		{[]string{"-model", "claude-sonnet-4-5", "-window", "4000"}, 4000},
		{nil, 128_000},
	} {
		args := append(append([]string(nil), c.args...), "-o", filepath.Join(dir, "out.json"), "-json-report", rep, codingSession)
		r := runCLI(t, "", args...)
		require.Equal(t, exitOK, r.code, r.stderr)
		assert.Equal(t, c.window, readReport(t, rep).Window, "%v", c.args)
	}
}

// -json-report accounts for every input message once, in order, and its
// fates agree with the summarised range; -report prints the table for a
// small input.
func TestReportAccountsForEveryMessage(t *testing.T) {
	dir := t.TempDir()
	rep := filepath.Join(dir, "rep.json")
	r := runCLI(t, "", "-force", "-window", "2000", "-report", "-o", filepath.Join(dir, "out.json"), "-json-report", rep, codingSession)
	require.Equal(t, exitOK, r.code, r.stderr)
	got := readReport(t, rep)
	require.Len(t, got.Messages, got.BeforeMessages)
	fates := map[string]int{}
	for i, m := range got.Messages {
		assert.Equal(t, i, m.Index)
		fates[m.Fate]++
		inRange := i >= got.SummarizedFrom && i <= got.SummarizedTo
		switch m.Fate {
		case "folded", "carried":
			assert.True(t, inRange, "message %d", i)
			assert.Equal(t, got.SummaryIndex, m.Output)
		case "kept", "pruned":
			assert.False(t, inRange, "message %d", i)
			assert.NotEqual(t, got.SummaryIndex, m.Output)
		case "lifted":
			assert.Equal(t, got.Lifted, i)
		default:
			assert.Failf(t, "unknown fate", "message %d: %q", i, m.Fate)
		}
	}
	assert.Positive(t, fates["folded"])
	assert.Contains(t, r.stderr, "  messages:\n")
	assert.Regexp(t, `\n    \d+-\d+ +\(\d+\) +[\d,]+  folded +\d+\n`, r.stderr, "the folded run in one row")

	// A transcript past explainBelow messages gets the table on asking.
	var b strings.Builder
	b.WriteString(`[{"role":"system","content":"s"}`)
	for i := range explainBelow {
		fmt.Fprintf(&b, `,{"role":"user","content":"q%d"},{"role":"assistant","content":"a%d"}`, i, i)
	}
	b.WriteString(`]`)
	long := writeFile(t, dir, "long.json", b.String())
	r = runCLI(t, "", "-force", "-window", "2000", "-report", "-o", filepath.Join(dir, "out.json"), long)
	assert.NotContains(t, r.stderr, "  messages:\n")
	r = runCLI(t, "", "-force", "-window", "2000", "-report", "-explain", "-o", filepath.Join(dir, "out.json"), long)
	assert.Contains(t, r.stderr, "  messages:\n")
}
