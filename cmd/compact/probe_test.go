package main

import (
	"context"
	"io"
	"log/slog"
	"regexp"
	"strconv"
	"strings"
	"testing"

	openai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/contextkit/compact"
)

func toolCall(id, name, args string) openai.ToolCall {
	return openai.ToolCall{ID: id, Type: openai.ToolTypeFunction, Function: openai.FunctionCall{Name: name, Arguments: args}}
}

func TestFactsOf(t *testing.T) {
	msgs := []compact.Message{
		{Role: compact.RoleSystem, Content: "You are an agent."},
		{Role: compact.RoleUser, Content: "Fix the parser."},
		{Role: compact.RoleAssistant, ToolCalls: []openai.ToolCall{
			toolCall("c1", "str_replace_editor", `{"command":"view","path":"/repo/parse.go"}`),
			toolCall("c2", "bash", `{"command":"cd /repo && go test ./... 2>/dev/null | grep -v ok; sed -i 's/a/b/' lexer.go"}`),
		}},
		{Role: compact.RoleTool, ToolCallID: "c1", Content: "     1\tpackage parse\n    12\t\tpanic(err)\n    13\t// a syntax error is returned"},
		{Role: compact.RoleTool, ToolCallID: "c2", Content: "--- FAIL: TestParse (0.00s)\n    parse_test.go:9: want 4, got 5\nFAIL\nparse.go:12:3: undefined: lexer\nvet.go:1:1: warning: unused\nbash: gofmt: command not found"},
		{Role: compact.RoleAssistant, ToolCalls: []openai.ToolCall{
			toolCall("c3", "search_flights", `{"origin":"JFK","destination":"SEA"}`),
			toolCall("c4", "copy", `{"source":"a/b.txt","files":["x.py","README"]}`),
		}},
		{Role: compact.RoleTool, ToolCallID: "c3", Content: "Error: no flights\nValueError: bad date\nTraceback (most recent call last):"},
		{Role: compact.RoleTool, ToolCallID: "c4", Content: "ok"},
		{Role: compact.RoleUser, Content: "Now run the tests again."},
	}
	f := factsOf(msgs)
	assert.Equal(t, "Now run the tests again.", f.ask)
	assert.ElementsMatch(t, []string{"/repo/parse.go", "/repo", "lexer.go", "a/b.txt", "x.py", "README"}, f.paths,
		"no devices, sed expressions, airports or package patterns")
	assert.Equal(t, []string{"--- FAIL: TestParse (0.00s)", "FAIL", "parse.go:12:3: undefined: lexer",
		"bash: gofmt: command not found", "Error: no flights", "ValueError: bad date"}, f.errors)
	assert.Equal(t, "cd /repo && go test ./... 2>/dev/null | grep -v ok; sed -i 's/a/b/' lexer.go", f.command)
	assert.Len(t, f.mentions, len(msgs))
}

func TestLooksLikePath(t *testing.T) {
	for w, want := range map[string]bool{
		"src/main.go": true, "/etc/hosts": true, "setup.py": true, "./configure": true, "lexer.go": true,
		"np.array": false, "1.2.3": false, "-v": false, "https://x.io/a.go": false, "$HOME/x": false,
		"s/a/b/": false, "3s/^/x/": false, "/dev/null": false, "#!/usr/bin/perl": false, `a\nb.txt`: false,
		"..": false, "*.go": false, "": false,
	} {
		assert.Equal(t, want, looksLikePath(w, false), w)
	}
	assert.True(t, looksLikePath("Makefile", true), "a bare name under a path key")
}

func TestSurvives(t *testing.T) {
	long := strings.Repeat("x", keptPrefix) + " and the rest of a long line"
	for _, tt := range []struct {
		fact, text string
		want       bool
	}{
		{"ValueError: bad", "notes: ValueError: bad date", true},
		{"a  b\tc", "x a b c y", true},
		{"ValueError: bad", "ValueError", false},
		{long, "quoted " + long[:keptPrefix] + "…", true},
		{long, "quoted " + long[:keptPrefix-1], false},
		{"", "anything", true},
	} {
		assert.Equal(t, tt.want, survives(tt.fact, tt.text), "%q in %q", tt.fact, tt.text)
	}
}

// TestProbeScoresWhatTheSummaryKeeps compacts a history whose only
// mention of a path and an error lies in the turns that get summarised:
// the extractive summary keeps them, the drop baseline loses them.
func TestProbeScoresWhatTheSummaryKeeps(t *testing.T) {
	msgs := []compact.Message{{Role: compact.RoleSystem, Content: "agent"}, {Role: compact.RoleUser, Content: "Fix the build."}}
	for i := 0; i < 12; i++ {
		id := "c" + strconv.Itoa(i)
		args := `{"command":"go build ./cmd/tool` + strconv.Itoa(i) + `/main.go"}`
		out := strings.Repeat("building ... ", 40)
		if i == 3 {
			args = `{"command":"cat internal/lexer/scan.go"}`
			out = "internal/lexer/scan.go:41:2: undefined: peekRune\n" + out
		}
		msgs = append(msgs, compact.Message{Role: compact.RoleAssistant, ToolCalls: []openai.ToolCall{toolCall(id, "bash", args)}},
			compact.Message{Role: compact.RoleTool, ToolCallID: id, Content: out})
	}
	msgs = append(msgs, compact.Message{Role: compact.RoleAssistant, Content: "It builds now."})
	tr := &transcript{msgs: msgs, format: formatArray}

	rows := map[string]probeRow{}
	for _, name := range []string{"extractive", "drop"} {
		o := &options{threshold: compact.DefaultThreshold, timeout: defaultSummaryTimeout, set: map[string]bool{}}
		e, err := newEngine(o, name, discardLogger())
		require.NoError(t, err)
		row, err := probeOne(context.Background(), e, tr, 4000)
		require.NoError(t, err)
		require.True(t, row.compacted, name)
		rows[name] = row
	}
	ext, drop := rows["extractive"], rows["drop"]
	assert.Equal(t, score{n: 1, kept: 1, risk: 1, riskKept: 1}, ext.ask, "the ask lies in the summarised turns and is lifted whole")
	require.Positive(t, ext.paths.risk, "some paths lived only in the summarised turns")
	assert.Equal(t, ext.paths.risk, ext.paths.riskKept, "the extractive summary keeps them: missing %q", ext.paths.missing)
	assert.Zero(t, drop.paths.riskKept, "the baseline keeps none")
	assert.Equal(t, score{n: 1, kept: 1, risk: 1, riskKept: 1}, scoreOnly(ext.errors))
	assert.Equal(t, score{n: 1, risk: 1}, scoreOnly(drop.errors))
	require.Positive(t, drop.recall.lost, "the baseline loses facts")
	assert.Equal(t, drop.recall.lost, drop.recall.found, "context_search finds every one: %q", drop.recall.missing)
}

func scoreOnly(s score) score { s.missing = nil; return s }

func TestProbeCommand(t *testing.T) {
	r := runCLI(t, "", "-probe", "../../testdata/transcripts", "-summarizer", "extractive,drop")
	require.Equal(t, 0, r.code, r.stderr)
	for _, want := range []string{"summarizer extractive, window 8,000, forced", "summarizer drop, window 8,000, forced",
		"coding_session", "latest ask    kept", "paths         kept", "error lines   kept", "last command  kept",
		"recoverable", "facts lost    "} {
		assert.Contains(t, r.stdout, want)
	}
	assert.Regexp(t, regexp.MustCompile(`extractive: \d+ of 4 transcripts compacted`), r.stdout)

	r = runCLI(t, "", "-probe", "../../testdata/transcripts/plain_chat.json", "-window", "100000")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "window 100,000")
	assert.Contains(t, r.stdout, "unchanged")

	r = runCLI(t, "", "-probe", "-o", "x.json", "../../testdata/transcripts")
	assert.Equal(t, 2, r.code)
}

func discardLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }
