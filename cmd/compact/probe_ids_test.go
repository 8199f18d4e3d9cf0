package main

import (
	"encoding/json"
	"strings"
	"testing"

	openai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/contextkit/compact"
)

func TestIsFactID(t *testing.T) {
	for _, tt := range []struct {
		key, value string
		want       bool
	}{
		{"reservation_id", "ZFA04Y", true},
		{"reservation_id", "HATHAU", true},
		{"user_id", "mia_li_3668", true},
		{"flight_number", "HAT082", true},
		{"commit", "9fceb02", true},
		{"issue", "#4588", true},
		{"ticket_id", "OPS", false},
		{"ticket_id", "OPSDESK", true},
		{"origin", "JFK", false},
		{"cabin", "economy", false},
		{"date", "2024-05-15", false},
		{"at", "2024-05-15T10:00:00Z", false},
		{"version", "v1.2.3", false},
		{"width", "10px", false},
		{"file", "src/a.go", false},
		{"query", "two words", false},
	} {
		assert.Equal(t, tt.want, isFactID(tt.value, tt.key), "%s=%s", tt.key, tt.value)
	}
}

func TestFactIDs(t *testing.T) {
	var args map[string]any
	require.NoError(t, json.Unmarshal([]byte(`{"user_id":"mia_li_3668","flights":[{"flight_number":"HAT082","date":"2024-05-17"}],
		"issue_number":4588,"line_number":12,"new_str":"HAT999","path":"v2/x9.go"}`), &args))
	var got []string
	factIDs(args, "", func(s string) { got = append(got, s) })
	assert.Equal(t, []string{"HAT082", "4588", "mia_li_3668"}, got, "nested values, numbered ids; no line numbers, content or paths")
}

func TestFactsOfModifiedFiles(t *testing.T) {
	call := func(id, name, args string) compact.Message {
		return compact.Message{Role: compact.RoleAssistant, ToolCalls: []openai.ToolCall{toolCall(id, name, args)}}
	}
	res := func(id, text string) compact.Message {
		return compact.Message{Role: compact.RoleTool, ToolCallID: id, Content: text}
	}
	msgs := []compact.Message{
		{Role: compact.RoleUser, Content: "go"},
		call("1", "str_replace_editor", `{"command":"view","path":"/r/read.go"}`), res("1", "x"),
		call("2", "str_replace_editor", `{"command":"str_replace","path":"/r/edit.go"}`), res("2", "ok"),
		call("3", "bash", `{"command":"cat a.txt > out/b.txt && sed -i 's/a/b/' c.py && cp d.py e.py && rm -f f.log"}`), res("3", ""),
		call("4", "run_ipython", `{"code":"edit_file_by_replace('/w/App.tsx', to_replace='x')"}`), res("4", "ok"),
		call("5", "edit", `{"search":"a","replace":"b"}`), res("5", "[File: /testbed/src/fields.py (100 lines total)]\nedited"),
		call("6", "write_file", `{"file_path":"notes.md","content":"hi"}`), res("6", "ok"),
		call("7", "bash", `{"command":"echo hi 2>&1 >/dev/null; ls /r"}`), res("7", "ok"),
	}
	f := factsOf(msgs)
	assert.Equal(t, []string{"/r/edit.go", "out/b.txt", "c.py", "e.py", "f.log", "/w/App.tsx", "/testbed/src/fields.py", "notes.md"}, f.modified)
	for _, p := range f.modified {
		assert.Contains(t, f.paths, p, "a modified file is a path too")
	}
}

func TestProbeReportsBothWindowsAndTheNewKinds(t *testing.T) {
	r := runCLI(t, "", "-probe", "../../testdata/transcripts", "-summarizer", "extractive,drop")
	require.Equal(t, 0, r.code, r.stderr)
	for _, want := range []string{
		"summarizer extractive, window 8,000, forced", "summarizer drop, window 8,000, forced",
		"summarizer extractive, window 16,000, forced", "summarizer drop, window 16,000, forced",
		"modified      kept", "identifiers   kept",
	} {
		assert.Contains(t, r.stdout, want)
	}
	assert.Less(t, strings.Index(r.stdout, "window 8,000"), strings.Index(r.stdout, "window 16,000"), "the smaller window first")
}
