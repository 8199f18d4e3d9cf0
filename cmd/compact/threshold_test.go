package main

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A -threshold given is the threshold in force, in the command and in
// each setting replay compares (its own help's example prints two
// different columns); without it the library's default stands.
func TestAThresholdGivenIsTheThresholdInForce(t *testing.T) {
	r := runCLI(t, "", "replay", "-json", "-window", "32000", "-compare", "default;-threshold 0.5", codingSession)
	require.Equal(t, exitOK, r.code, r.stderr)
	var rep replayReport
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &rep))
	require.Len(t, rep.Settings, 2)
	assert.Equal(t, 18_000, rep.Settings[0].Threshold, "the default: 0.75 of 24,000 usable")
	assert.Equal(t, 12_000, rep.Settings[1].Threshold, "-threshold 0.5 of 24,000 usable")

	dir := t.TempDir()
	for _, tt := range []struct {
		args []string
		want int
	}{
		{[]string{"-threshold", "0.5", "-window", "32000"}, 12_000},
		{[]string{"-window", "1000000"}, 256_000},                       // the default fraction, under the default cap
		{[]string{"-threshold", "0.75", "-window", "1000000"}, 743_856}, // a fraction given is honoured
	} {
		rep := filepath.Join(dir, "rep.json")
		r := runCLI(t, "", append(tt.args, "-o", filepath.Join(dir, "out.json"), "-json-report", rep, codingSession)...)
		require.Equal(t, exitOK, r.code, r.stderr)
		assert.EqualValues(t, tt.want, decodeReport(t, rep)["threshold"], "%v", tt.args)
	}
}

// A setting the library moves is reported, in the text report and in
// -json-report: here a reserve that takes the whole of gpt-4's window.
func TestTheReportsSayWhatTheLibraryAdjusted(t *testing.T) {
	dir := t.TempDir()
	rep := filepath.Join(dir, "rep.json")
	r := runCLI(t, "", "-model", "gpt-4", "-reserve", "9000", "-report", "-o", filepath.Join(dir, "out.json"), "-json-report", rep, codingSession)
	require.Equal(t, exitOK, r.code, r.stderr)
	const want = "WithReserveTokens(9000): leaves nothing of the 8192-token window; 1 token usable"
	assert.Equal(t, []any{want}, decodeReport(t, rep)["adjusted"])
	assert.Contains(t, r.stderr, "adjusted    "+want)
}
