package main

import (
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A model that echoes a secret into its summary: the history written keeps
// the summary as the model wrote it (it is the conversation's own), while
// the report, which leaves the process, shows it redacted.
func TestTheReportIsRedactedTheHistoryIsNot(t *testing.T) {
	const secret = "dckr_pat_8yenbnN3G_2tTjkY_zbx_lRT2bF"
	newChatServer(t, http.StatusOK, strings.Replace(completion, "tests were added.", "pushed with "+secret+".", 1))
	dir := t.TempDir()
	out, rep := filepath.Join(dir, "out.json"), filepath.Join(dir, "rep.json")
	r := runCLI(t, "", codingSession, "-summarizer", "openai", "-force", "-window", "2000", "-o", out, "-json-report", rep, "-report")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, readFile(t, out), secret, "the compacted history is not redacted")
	assert.NotContains(t, readFile(t, rep), "8yenbnN3G_2tTjkY", "JSON report")
	assert.NotContains(t, r.stdout+r.stderr, "8yenbnN3G_2tTjkY", "human report")
	assert.Contains(t, readFile(t, rep), "pushed with dckr_pat_[REDACTED].")
}

func TestReportRedactedCoversEveryQuotedField(t *testing.T) {
	const pw = "hunter2-hunter2"
	r := report{
		Error: "password=" + pw, Note: "password=" + pw, Summary: "password=" + pw, FallbackReason: "password=" + pw,
		Repairs: []repairReport{{ToolCallID: "password=" + pw, Detail: "password=" + pw}},
		Prunes:  []pruneReport{{Tool: "password=" + pw, ToolCallID: "password=" + pw, Note: "password=" + pw}},
	}
	got := r.redacted()
	data, err := encodeJSON(got)
	require.NoError(t, err)
	assert.NotContains(t, string(data), pw)
	assert.Equal(t, 9, strings.Count(string(data), "[REDACTED]"), "one per field")
	assert.Contains(t, r.Error, pw, "the report redacted is a copy")
	assert.Contains(t, r.Repairs[0].Detail, pw, "the report redacted is a copy")
}
