package main

import (
	"encoding/json"
	"flag"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	openai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/internal/sharedtest"
	"github.com/contextkit/compact/tokens"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/replay")

// replayArgs replays an agent session written for these tests and the
// project's coding transcript, with a window small enough that both
// compact, under two price tables and three settings.
var replayArgs = []string{"replay", "-window", "6000", "-summary-tokens", "300",
	"-price", "claude-sonnet-4-5,gpt-5", "-compare", "default;-window 8000;drop-oldest",
	"testdata/replay/agent_session.json", codingSession}

// The replay of fixed transcripts with a fixed stub summarizer is
// deterministic: its JSON is the golden file's. Run go test -run
// TestReplayJSONIsTheGoldenFile -update to rewrite it.
func TestReplayJSONIsTheGoldenFile(t *testing.T) {
	for _, tt := range []struct {
		name, golden string
		extra        []string
	}{
		{"file by file", "testdata/replay/two_files.json", nil},
		{"joined", "testdata/replay/joined.json", []string{"-join"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := runCLI(t, "", append(append([]string{}, replayArgs...), append(tt.extra, "-json")...)...)
			require.Equal(t, exitOK, r.code, r.stderr)
			if *update {
				require.NoError(t, os.MkdirAll(filepath.Dir(tt.golden), 0o755))
				require.NoError(t, os.WriteFile(tt.golden, []byte(r.stdout), 0o644))
			}
			assert.Equal(t, readFile(t, tt.golden), r.stdout, "run go test -run TestReplayJSONIsTheGoldenFile -update after a deliberate change")
		})
	}
}

// The JSON says what the contract of the command promises: every setting
// sends one request per assistant message, none over the window, and is
// priced under each table; the baseline never calls a summarizer; the
// cost of the first setting is the unit.
func TestReplayReportsEverySettingUnderEveryPrice(t *testing.T) {
	r := runCLI(t, "", append(append([]string{}, replayArgs...), "-json")...)
	require.Equal(t, exitOK, r.code, r.stderr)
	var rep replayReport
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &rep))
	require.Len(t, rep.Settings, 3)
	assistants := 0
	for _, f := range replayArgs[len(replayArgs)-2:] {
		var msgs []compact.Message
		require.NoError(t, json.Unmarshal([]byte(readFile(t, f)), &msgs))
		for _, m := range msgs {
			if m.Role == compact.RoleAssistant {
				assistants++
			}
		}
	}
	for _, s := range rep.Settings {
		assert.Equal(t, assistants, s.Requests, s.Name)
		assert.Zero(t, s.OverWindow, s.Name)
		assert.LessOrEqual(t, s.PeakRequest, s.Usable, s.Name)
		require.Len(t, s.Costs, 2, s.Name)
		for _, c := range s.Costs {
			require.NotNil(t, c.Dollars, "%s under %s", s.Name, c.Model)
			assert.LessOrEqual(t, s.SummarizerShared, s.SummarizerInput, s.Name)
			assert.Equal(t, s.TokensSent, c.CacheRead+c.CacheWrite+c.Uncached, "%s under %s: every token sent is billed once", s.Name, c.Model)
		}
	}
	assert.Equal(t, 1.0, *rep.Settings[0].Costs[0].Relative)
	drop := rep.Settings[2]
	assert.Zero(t, drop.SummarizerCalls)
	assert.Positive(t, drop.Compactions[kindDrop], "the baseline dropped messages to fit")
	assert.Positive(t, rep.Settings[0].Compactions[kindSummary]+rep.Settings[0].Compactions[kindPrune], "the default compacted")
	assert.Equal(t, rep.Settings[0].SummarizerCalls*300, rep.Settings[0].SummarizerOutput, "the stub replies with 300 tokens a call")
	assert.Positive(t, rep.Settings[0].Costs[0].CacheRead, "the cache served part of the requests")
}

// A model the table does not price gives costs of "unknown", never a
// guess.
func TestReplayWithoutPricesSaysUnknown(t *testing.T) {
	r := runCLI(t, "", "replay", "-window", "2000", "-summary-tokens", "100", "-model", "my-local-model", codingSession)
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.Contains(t, r.stdout, "prices of my-local-model (unknown)")
	for _, line := range strings.Split(r.stdout, "\n") {
		if f := strings.Fields(line); len(f) > 1 && (f[0] == "cost" || f[0] == "base") {
			assert.Equal(t, "unknown", f[len(f)-1], line)
		}
	}
	j := runCLI(t, "", "replay", "-json", "-window", "2000", "-model", "my-local-model", codingSession)
	var rep replayReport
	require.NoError(t, json.Unmarshal([]byte(j.stdout), &rep))
	assert.Nil(t, rep.Settings[0].Costs[0].Dollars)
	assert.False(t, rep.Settings[0].Costs[0].Priced)
}

// The extractive summarizer calls no model: the table says so where a
// model's tokens would be, and the JSON counts its calls apart from a
// model's; the stub, billed as a model, shows its tokens.
func TestReplaySaysNoModelWasCalled(t *testing.T) {
	r := runCLI(t, "", "replay", "-window", "6000", "testdata/replay/agent_session.json")
	require.Equal(t, exitOK, r.code, r.stderr)
	line := tableRow(t, r.stdout, "summarizer tokens in/out")
	assert.Contains(t, line, "none: no model called (extractive)")
	assert.NotContains(t, line, "0/0")
	assert.NotEqual(t, "0", strings.Fields(tableRow(t, r.stdout, "summarizer calls"))[2], "the extractive summarizer was called")

	j := runCLI(t, "", "replay", "-json", "-window", "6000", "-compare", "default;-summary-tokens 100", "testdata/replay/agent_session.json")
	require.Equal(t, exitOK, j.code, j.stderr)
	var rep replayReport
	require.NoError(t, json.Unmarshal([]byte(j.stdout), &rep))
	assert.Positive(t, rep.Settings[0].SummarizerCalls)
	assert.Zero(t, rep.Settings[0].ModelCalls, "extractive")
	assert.Equal(t, rep.Settings[1].SummarizerCalls, rep.Settings[1].ModelCalls, "the stub stands in for a model")
	assert.Positive(t, rep.Settings[1].ModelCalls)
}

// tableRow is the line of replay's table that starts with label.
func tableRow(t *testing.T, out, label string) string {
	t.Helper()
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, label+"  ") {
			return line
		}
	}
	t.Fatalf("no row %q in:\n%s", label, out)
	return ""
}

// Bad input stops the command before anything is printed, with the one
// line the command's other modes give; a bad command line exits 2.
func TestReplayRefusesBadInputWithOneLine(t *testing.T) {
	dir := t.TempDir()
	orphan := writeFile(t, dir, "orphan.json", `[{"role":"user","content":"hi"},{"role":"tool","tool_call_id":"c9","content":"x"},{"role":"assistant","content":"ok"}]`)
	notJSON := writeFile(t, dir, "bad.json", `[{"role":"user","content":"hi"`)
	// The one line compacting the file gives.
	sameAsCompact := func(path string) string { return runCLI(t, "", path).stderr }
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"a result that answers no call", []string{"replay", codingSession, orphan}, exitError, sameAsCompact(orphan)},
		{"not JSON", []string{"replay", notJSON}, exitError, sameAsCompact(notJSON)},
		{"an economy setting with a bad flag", []string{"replay", "-compare", "economy;-economy -speed 3", codingSession}, exitUsage,
			"flag provided but not defined: -speed"},
		{"an unknown flag in a setting", []string{"replay", "-compare", "-speed 3", codingSession}, exitUsage,
			"flag provided but not defined: -speed"},
		{"a stub and a real summarizer at once", []string{"replay", "-summarizer", "openai", "-summary-tokens", "5", codingSession}, exitUsage,
			"takes no -summarizer openai"},
		{"an hour-long cache OpenAI does not sell", []string{"replay", "-price", "gpt-5", "-cache-ttl", "1h", codingSession}, exitUsage,
			"gpt-5 offers no hour-long cache"},
		{"standard input", []string{"replay", "-"}, exitUsage, "replay reads files"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := runCLI(t, "", tt.args...)
			assert.Equal(t, tt.code, r.code, r.stderr)
			assert.Empty(t, r.stdout, "nothing is written")
			assert.Contains(t, r.stderr, tt.want)
			if tt.code == exitError {
				assert.Equal(t, 1, strings.Count(r.stderr, "\n"), "one line: %q", r.stderr)
			}
		})
	}
	repaired := runCLI(t, "", "replay", "-repair", "-window", "2000", orphan)
	assert.Equal(t, exitOK, repaired.code, repaired.stderr)
}

// A setting whose requests do not fit the window fails the command, after
// the table that shows it.
func TestReplayFailsWhenARequestIsOverTheWindow(t *testing.T) {
	dir := t.TempDir()
	big := strings.Repeat("lorem ipsum dolor ", 400)
	p := writeFile(t, dir, "big.json", `[{"role":"user","content":"`+big+`"},{"role":"assistant","content":"ok"}]`)
	r := runCLI(t, "", "replay", "-window", "1000", p)
	assert.Equal(t, exitError, r.code)
	assert.Contains(t, r.stdout, "over the window")
	assert.Contains(t, r.stderr, "default: 1 request over the usable window")
}

// The baseline drops whole turns from the front: an assistant's tool
// calls go with their results, the system prompt and the last message
// stay, and the request ends up within the window.
func TestDropOldestDropsWholeTurnsFromTheFront(t *testing.T) {
	call := openai.ToolCall{ID: "c1", Type: openai.ToolTypeFunction, Function: openai.FunctionCall{Name: "bash", Arguments: "{}"}}
	msgs := []compact.Message{
		{Role: compact.RoleSystem, Content: "sys"},
		{Role: compact.RoleUser, Content: "u1"},
		{Role: compact.RoleAssistant, ToolCalls: []openai.ToolCall{call}},
		{Role: compact.RoleTool, ToolCallID: "c1", Content: "out"},
		{Role: compact.RoleAssistant, Content: "a2"},
		{Role: compact.RoleUser, Content: "u2"},
	}
	tokens := []int{10, 10, 10, 50, 10, 10}
	tests := []struct {
		name    string
		usable  int
		dropped int
		left    []string // the contents (or roles) left
	}{
		{"it fits: nothing is dropped", 200, 0, []string{"sys", "u1", "assistant", "out", "a2", "u2"}},
		{"the first user turn goes", 95, 1, []string{"sys", "assistant", "out", "a2", "u2"}},
		{"the tool calls go with their result", 40, 3, []string{"sys", "a2", "u2"}},
		{"the last message always stays", 1, 4, []string{"sys", "u2"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var w window
			for i, m := range msgs {
				w.add(m, keyOf(m), tokens[i])
			}
			assert.Equal(t, tt.dropped, dropOldest(&w, tt.usable))
			var left []string
			for _, m := range w.msgs {
				if m.Content != "" {
					left = append(left, m.Content)
				} else {
					left = append(left, m.Role)
				}
			}
			assert.Equal(t, tt.left, left)
			assert.Len(t, w.keys, len(w.msgs))
			assert.NoError(t, compact.Validate(w.msgs))
		})
	}
}

// Joining keeps the first system prompt only, merges user turns that
// meet, and removes a call left unanswered at the end of a part.
func TestJoinConversationsMakesOneValidHistory(t *testing.T) {
	call := openai.ToolCall{ID: "f1", Type: openai.ToolTypeFunction, Function: openai.FunctionCall{Name: "finish", Arguments: "{}"}}
	a := []compact.Message{
		{Role: compact.RoleSystem, Content: "agent A"},
		{Role: compact.RoleUser, Content: "task A"},
		{Role: compact.RoleAssistant, Content: "done", ToolCalls: []openai.ToolCall{call}},
	}
	b := []compact.Message{
		{Role: compact.RoleSystem, Content: "agent B"},
		{Role: compact.RoleUser, Content: "task B"},
		{Role: compact.RoleAssistant, Content: "ok"},
	}
	joined, err := joinConversations([][]compact.Message{a, b})
	require.NoError(t, err)
	require.NoError(t, compact.Validate(joined))
	var roles []string
	for _, m := range joined {
		roles = append(roles, m.Role)
	}
	assert.Equal(t, []string{"system", "user", "assistant", "user", "assistant"}, roles)
	assert.Equal(t, "agent A", joined[0].Content)
	assert.Empty(t, joined[2].ToolCalls, "the unanswered finish call is removed")
	assert.Len(t, a[2].ToolCalls, 1, "the input is not modified")
}

// The shared transcripts, joined, replay with no request over the window
// under every setting: the library as it compacted before it knew prices,
// its default, economy mode (with and without recall), a lower threshold
// and the baseline. Compaction costs less than dropping the oldest turns;
// the prices make the default cheaper, and economy cheaper still while it
// keeps the last 8,000 tokens verbatim in every request.
func TestReplayOfTheSharedTranscripts(t *testing.T) {
	dir := sharedtest.Dir()
	if dir == "" {
		sharedtest.Missing(t)
	}
	for _, summary := range []string{"1500", "0"} {
		t.Run("summary tokens "+summary, func(t *testing.T) {
			r := runCLI(t, "", "replay", "-join", "-json", "-summary-tokens", summary, "-price", "claude-sonnet-4-5,gpt-5",
				"-compare", "-no-prices;default;economy;-economy -recall;-threshold 0.3 -floor 0 -no-prices;drop-oldest", dir)
			require.Equal(t, exitOK, r.code, r.stderr)
			var rep replayReport
			require.NoError(t, json.Unmarshal([]byte(r.stdout), &rep))
			for _, s := range rep.Settings {
				assert.Zero(t, s.OverWindow, s.Name)
			}
			before, def, economy, recall, drop := rep.Settings[0], rep.Settings[1], rep.Settings[2], rep.Settings[3], rep.Settings[5]
			for i := range before.Costs {
				assert.Less(t, *before.Costs[i].Equivalent, *drop.Costs[i].Equivalent, "compaction costs less than dropping the oldest turns")
				assert.Greater(t, before.Costs[i].HitRatio, drop.Costs[i].HitRatio, "and keeps more of the cache")
				assert.Less(t, *def.Costs[i].Relative, 1.0, "the prices make the default cheaper")
				assert.Less(t, *economy.Costs[i].Relative, 0.55, "economy mode is about half the cost")
			}
			for _, s := range []settingReport{economy, recall} {
				assert.Zero(t, s.ShortEnds, "%s keeps the last 8,000 tokens verbatim", s.Name)
			}
			if summary == "0" { // the extractive summary keeps the facts
				for k := range def.Facts {
					assert.GreaterOrEqual(t, def.Facts[k].Present, before.Facts[k].Present, "the default keeps no fewer %s", def.Facts[k].Kind)
					assert.GreaterOrEqual(t, 100*economy.Facts[k].Present, 95*economy.Facts[k].Total, "economy keeps 95%% of the %s", economy.Facts[k].Kind)
				}
				assert.Equal(t, recall.FactsLost, recall.FactsRecoverable, "with recall every fact lost is recoverable")
			}
		})
	}
}

func BenchmarkReplayOfTheSharedTranscripts(b *testing.B) {
	dir := sharedtest.Dir()
	if dir == "" {
		sharedtest.Missing(b)
	}
	for i := 0; i < b.N; i++ {
		r := runCLI(b, "", "replay", "-join", "-json", "-summary-tokens", "1500",
			"-price", "claude-sonnet-4-5,gpt-5", "-compare", "default;-threshold 0.3;drop-oldest", dir)
		require.Equal(b, exitOK, r.code, r.stderr)
	}
}

// -summarizer openai is billed for what it sends and what it gets back:
// one call per request the endpoint received, the prompt counted as the
// summarizer sends it, the reply as the endpoint wrote it.
func TestReplayMetersARealSummarizer(t *testing.T) {
	s := newChatServer(t, http.StatusOK, completion)
	r := runCLI(t, "", "replay", "-json", "-summarizer", "openai", "-window", "6000", "-price", "gpt-5",
		"testdata/replay/agent_session.json")
	require.Equal(t, exitOK, r.code, r.stderr)
	var rep replayReport
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &rep))
	got := rep.Settings[0]
	require.Positive(t, got.SummarizerCalls)
	assert.Equal(t, len(s.requests), got.SummarizerCalls)
	tc, err := tokens.ForEncoding("o200k_base")
	require.NoError(t, err)
	reply := tc.CountText("The user wants ParseDuration to accept spaces; tests were added.")
	assert.Equal(t, got.SummarizerCalls*reply, got.SummarizerOutput)
	assert.Greater(t, got.SummarizerInput, got.SummarizerCalls*1000, "each call sends the instructions and the turns")
}

// The stub summarizer shares the agent's cached history when the library
// offers it (the prices known, reading it cheaper than a transcript), and
// renders under -rendered or -no-prices; a shared call is billed through
// the cache, so it costs less than the same call rendered.
func TestReplayBillsASharedSummarizerThroughTheCache(t *testing.T) {
	r := runCLI(t, "", "replay", "-json", "-window", "8000", "-summary-tokens", "300", "-price", "claude-sonnet-4-5",
		"-compare", "default;-rendered;-no-prices", "testdata/replay/agent_session.json", codingSession)
	require.Equal(t, exitOK, r.code, r.stderr)
	var rep replayReport
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &rep))
	shared, rendered, unpriced := rep.Settings[0], rep.Settings[1], rep.Settings[2]
	require.Positive(t, shared.SummarizerShared)
	assert.Zero(t, rendered.SummarizerShared)
	assert.Zero(t, unpriced.SummarizerShared)
	assert.Less(t, *shared.Costs[0].Equivalent, *rendered.Costs[0].Equivalent)
}
