package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/internal/msg"
)

// reportKeys are the keys the JSON report always has.
var reportKeys = []string{"before_messages", "after_messages", "before_tokens", "after_tokens",
	"summarized_from", "summarized_to", "summary_index", "pruned", "summarizer", "fallback"}

func TestCompactionReportMatchesTheOutput(t *testing.T) {
	dir := t.TempDir()
	out, rep := filepath.Join(dir, "out.json"), filepath.Join(dir, "rep.json")
	r := runCLI(t, "", codingSession, "-force", "-window", "2000", "-o", out, "-json-report", rep, "-report")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Empty(t, r.stdout, "-o takes the output off standard output")

	in := decodeOutput(t, readFile(t, codingSession))
	got := decodeOutput(t, readFile(t, out))
	require.NoError(t, compact.Validate(got))
	rp := decodeReport(t, rep)
	for _, k := range reportKeys {
		assert.Contains(t, rp, k)
	}
	assert.EqualValues(t, len(in), rp["before_messages"])
	assert.EqualValues(t, len(got), rp["after_messages"])
	assert.Less(t, rp["after_tokens"], rp["before_tokens"])
	assert.Equal(t, "extractive", rp["summarizer"])
	assert.Equal(t, false, rp["fallback"])
	assert.EqualValues(t, 0, rp["pruned"])
	si := int(rp["summary_index"].(float64))
	require.True(t, si >= 0 && si < len(got))
	assert.True(t, compact.IsSummary(got[si]), "summary_index points at the summary")
	from, to := int(rp["summarized_from"].(float64)), int(rp["summarized_to"].(float64))
	require.True(t, 0 < from && from <= to && to < len(in))
	// Everything outside the summarised range is in the output verbatim.
	for i, m := range in {
		if i >= from && i <= to || m.Role == compact.RoleSystem {
			continue
		}
		assert.True(t, containsMessage(got, m), "input message %d survives verbatim", i)
	}

	firstLine := strings.SplitN(rp["summary"].(string), "\n", 2)[0]
	require.NotEmpty(t, firstLine)
	for _, want := range []string{"before", "after", "threshold", "summarised  input messages", "summarizer  extractive", "time",
		"summary:\n    " + firstLine + "\n"} {
		assert.Contains(t, r.stderr, want)
	}
}

func containsMessage(msgs []compact.Message, m compact.Message) bool {
	want, _ := json.Marshal(m)
	for _, x := range msgs {
		if got, _ := json.Marshal(x); string(got) == string(want) {
			return true
		}
	}
	return false
}

func TestUnderTheThresholdWritesTheInputUnchanged(t *testing.T) {
	dir := t.TempDir()
	out, rep := filepath.Join(dir, "out.json"), filepath.Join(dir, "rep.json")
	r := runCLI(t, "", codingSession, "-o", out, "-json-report", rep)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stderr, "under the threshold (1,099 of 89,856 tokens): nothing to do; use -force or a smaller -window")
	assert.Equal(t, normalized(t, readFile(t, codingSession)), normalized(t, readFile(t, out)))
	rp := decodeReport(t, rep)
	for k, want := range map[string]any{"summary_index": -1.0, "summarized_from": -1.0, "summarized_to": -1.0,
		"compacted": false, "summarizer": "", "before_tokens": rp["after_tokens"], "threshold": 89856.0} {
		assert.Equal(t, want, rp[k], k)
	}
}

func TestNothingToCompressUnderForceSucceeds(t *testing.T) {
	dir := t.TempDir()
	rep := filepath.Join(dir, "rep.json")
	in := `[{"role":"system","content":"s"},{"role":"user","content":"hi"},{"role":"assistant","content":"hello"}]`
	r := runCLI(t, in, "-", "-force", "-json-report", rep)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stderr, "nothing to compress")
	assert.Len(t, decodeOutput(t, r.stdout), 3)
	assert.Equal(t, -1.0, decodeReport(t, rep)["summary_index"])
}

func TestRepairFixesPairingAndSaysSo(t *testing.T) {
	dir := t.TempDir()
	in := writeFile(t, dir, "in.json", `[{"role":"user","content":"a"},`+
		`{"role":"assistant","tool_calls":[{"id":"c1","type":"function","function":{"name":"bash","arguments":"{}"}}]},`+
		`{"role":"user","content":"b"},{"role":"tool","tool_call_id":"zz","content":"stray"},{"role":"assistant","content":"done"}]`)
	rep := filepath.Join(dir, "rep.json")
	r := runCLI(t, "", in, "-repair", "-json-report", rep)
	require.Equal(t, 0, r.code, r.stderr)
	require.NoError(t, compact.Validate(decodeOutput(t, r.stdout)))
	assert.Contains(t, r.stderr, "repaired 3 tool-pairing problems")
	rp := decodeReport(t, rep)
	assert.EqualValues(t, 5, rp["before_messages"], "the input as given")
	kinds := map[string]bool{}
	for _, x := range rp["repairs"].([]any) {
		kinds[x.(map[string]any)["kind"].(string)] = true
	}
	assert.Equal(t, map[string]bool{"removed unanswered tool call": true, "filled empty assistant turn": true,
		"dropped orphan tool result": true}, kinds)

	r = runCLI(t, "", in, "-repair", "-report")
	assert.Contains(t, r.stderr, "repaired    input message 1")
}

func TestWriteFailureLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out.json")
	r := runCLI(t, "", codingSession, "-o", out, "-json-report", filepath.Join(dir, "missing", "rep.json"))
	assert.Equal(t, 1, r.code)
	assert.NoFileExists(t, out, "the output is not written when the report cannot be")
	entries, _ := os.ReadDir(dir)
	assert.Empty(t, entries, "no temporary file left behind")

	r = runCLI(t, "", codingSession, "-o", dir+"/missing/out.json")
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, "missing/out.json")
}

// chatServer is an OpenAI-compatible endpoint that answers every request
// with status and body, and records what it was sent.
type chatServer struct {
	*httptest.Server
	mu       sync.Mutex
	requests []map[string]any
	auth     []string
}

func newChatServer(t *testing.T, status int, body string) *chatServer {
	s := &chatServer{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		data, _ := io.ReadAll(r.Body)
		var req map[string]any
		_ = json.Unmarshal(data, &req)
		s.mu.Lock()
		s.requests = append(s.requests, req)
		s.auth = append(s.auth, r.Header.Get("Authorization"))
		s.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = io.WriteString(w, body)
	}))
	t.Cleanup(s.Close)
	t.Setenv("OPENAI_BASE_URL", s.URL+"/v1")
	t.Setenv("OPENAI_API_KEY", "sk-test-key")
	return s
}

const completion = `{"id":"x","object":"chat.completion","model":"m","choices":[{"index":0,"finish_reason":"stop",` +
	`"message":{"role":"assistant","content":"The user wants ParseDuration to accept spaces; tests were added."}}],` +
	`"usage":{"prompt_tokens":10,"completion_tokens":10,"total_tokens":20}}`

func TestOpenAISummarizerFromTheEnvironment(t *testing.T) {
	s := newChatServer(t, http.StatusOK, completion)
	dir := t.TempDir()
	rep := filepath.Join(dir, "rep.json")
	r := runCLI(t, "", codingSession, "-summarizer", "openai", "-summary-model", "small-model", "-force", "-window", "2000", "-json-report", rep)
	require.Equal(t, 0, r.code, r.stderr)
	rp := decodeReport(t, rep)
	assert.Equal(t, "openai:small-model", rp["summarizer"])
	assert.Equal(t, false, rp["fallback"])
	assert.Contains(t, r.stdout, "tests were added")
	require.Len(t, s.requests, 1)
	assert.Equal(t, "small-model", s.requests[0]["model"])
	assert.Equal(t, "Bearer sk-test-key", s.auth[0])
}

func TestOpenAIFailureFallsBackOrAborts(t *testing.T) {
	t.Run("a rejected request falls back to the extractive summary", func(t *testing.T) {
		newChatServer(t, http.StatusBadRequest, `{"error":{"message":"bad request","type":"invalid_request_error"}}`)
		rep := filepath.Join(t.TempDir(), "rep.json")
		r := runCLI(t, "", codingSession, "-summarizer", "openai", "-force", "-window", "2000", "-json-report", rep)
		require.Equal(t, 0, r.code, r.stderr)
		rp := decodeReport(t, rep)
		assert.Equal(t, true, rp["fallback"])
		assert.Equal(t, "extractive", rp["summarizer"])
		assert.Contains(t, r.stderr, "the extractive fallback was used")
	})
	t.Run("rejected credentials abort and write nothing", func(t *testing.T) {
		newChatServer(t, http.StatusUnauthorized, `{"error":{"message":"bad key","type":"invalid_request_error"}}`)
		dir := t.TempDir()
		out := filepath.Join(dir, "out.json")
		r := runCLI(t, "", codingSession, "-summarizer", "openai", "-force", "-window", "2000", "-o", out)
		assert.Equal(t, 1, r.code)
		assert.Contains(t, r.stderr, "credentials")
		assert.NotContains(t, r.stderr, "sk-test-key", "the key never shows")
		assert.NoFileExists(t, out)
	})
}

func TestDirectoryMode(t *testing.T) {
	in, out := t.TempDir(), filepath.Join(t.TempDir(), "out")
	good := readFile(t, codingSession)
	writeFile(t, in, "a.json", good)
	writeFile(t, in, "b.jsonl", `{"role":"user","content":"hi"}`+"\n"+`{"role":"assistant","content":"hello"}`+"\n")
	writeFile(t, in, "c.json", `[{"role":"bot"}]`)
	writeFile(t, in, ".hidden.json", `not json`)
	writeFile(t, in, "notes.txt", `not a transcript`)
	rep := filepath.Join(t.TempDir(), "rep.json")

	r := runCLI(t, "", "-o", out, in, "-force", "-window", "2000", "-json-report", rep, "-report")
	assert.Equal(t, 1, r.code, "one file failed")
	assert.Contains(t, r.stderr, "c.json: message 0: unknown role")
	assert.Contains(t, r.stderr, "3 files into "+out+": 1 compacted, 1 unchanged, 1 failed")
	require.FileExists(t, filepath.Join(out, "a.json"))
	require.FileExists(t, filepath.Join(out, "b.json"), ".jsonl becomes .json")
	assert.NoFileExists(t, filepath.Join(out, "c.json"))
	assert.Less(t, len(decodeOutput(t, readFile(t, filepath.Join(out, "a.json")))), len(decodeOutput(t, good)))

	var reports []map[string]any
	require.NoError(t, json.Unmarshal([]byte(readFile(t, rep)), &reports))
	require.Len(t, reports, 3)
	assert.Equal(t, true, reports[0]["compacted"])
	assert.Contains(t, reports[2]["error"], "unknown role")

	t.Run("refuses to overwrite its inputs", func(t *testing.T) {
		r := runCLI(t, "", "-o", in, in)
		assert.Equal(t, 2, r.code)
		assert.Contains(t, r.stderr, "overwritten by its own result")
		assert.Equal(t, good, readFile(t, filepath.Join(in, "a.json")))
	})
	t.Run("several files", func(t *testing.T) {
		out := t.TempDir()
		r := runCLI(t, "", filepath.Join(in, "a.json"), filepath.Join(in, "b.jsonl"), "-o", out)
		assert.Equal(t, 0, r.code, r.stderr)
		assert.FileExists(t, filepath.Join(out, "a.json"))
		assert.FileExists(t, filepath.Join(out, "b.json"))
	})
	t.Run("one file into an existing directory", func(t *testing.T) {
		out := t.TempDir()
		r := runCLI(t, "", filepath.Join(in, "b.jsonl"), "-o", out)
		assert.Equal(t, 0, r.code, r.stderr)
		assert.Len(t, decodeOutput(t, readFile(t, filepath.Join(out, "b.json"))), 2)
	})
	t.Run("-o a file", func(t *testing.T) {
		f := writeFile(t, t.TempDir(), "x.json", "")
		r := runCLI(t, "", in, "-o", f)
		assert.Equal(t, 2, r.code)
		assert.Contains(t, r.stderr, "not a directory")
	})
}

func TestReportLineAndNumbers(t *testing.T) {
	assert.Equal(t, "128,000", thousands(128000))
	assert.Equal(t, "-1,234,567", thousands(-1234567))
	assert.Equal(t, "999", thousands(999))
	assert.Equal(t, "-50.0%", change(200, 100))
	assert.Equal(t, "±0%", change(0, 0))
	r := report{File: "f.json", BeforeMessages: 10, AfterMessages: 4, BeforeTokens: 2000, AfterTokens: 500,
		Compacted: true, SummarizedFrom: 2, SummarizedTo: 7, Summarizer: "extractive", TotalMillis: 1500}
	assert.Equal(t, "f.json: 10 -> 4 messages, 2,000 -> 500 tokens (-75.0%), summarised 2-7, extractive, 1.50s", r.line())
	assert.True(t, strings.HasPrefix(report{File: "g.json", Note: "under"}.line(), "g.json: 0 messages, 0 tokens: under"))
}

func TestSettingsReachTheCompressor(t *testing.T) {
	dir := t.TempDir()
	rep := filepath.Join(dir, "rep.json")
	tests := []struct {
		args      []string
		threshold float64
	}{
		{[]string{"-window", "8000"}, 4500},                       // 0.75 of 8000 less the 2000 reserve (a quarter)
		{[]string{"-window", "8000", "-reserve", "0"}, 6000},      // no reserve
		{[]string{"-window", "8000", "-threshold", "0.9"}, 5400},  // 0.9 of 6000
		{[]string{"-window", "8000", "-threshold", "0.25"}, 1500}, // a fraction given is honoured (issue 31)
	}
	for _, tt := range tests {
		r := runCLI(t, "", append([]string{codingSession, "-json-report", rep, "-o", filepath.Join(dir, "o.json")}, tt.args...)...)
		require.Equal(t, 0, r.code, r.stderr)
		assert.Equal(t, tt.threshold, decodeReport(t, rep)["threshold"], "%v", tt.args)
	}
	r := runCLI(t, "", codingSession, "-window", "1500", "-focus", "tabs", "-json-report", rep, "-o", filepath.Join(dir, "o.json"))
	require.Equal(t, 0, r.code, r.stderr)
	assert.True(t, strings.HasPrefix(decodeReport(t, rep)["summary"].(string), "Focus: tabs"), "the focus reaches the summarizer")
}

// toolHeavy is an agent run of n rounds, each reading a large file: old
// tool output is most of it, which pruning is for.
func toolHeavy(n int) string {
	msgs := []map[string]any{{"role": "system", "content": "You are a coding agent."}, {"role": "user", "content": "Read every part of the parser."}}
	for i := 0; i < n; i++ {
		id := "call_" + strconv.Itoa(i)
		msgs = append(msgs,
			map[string]any{"role": "assistant", "tool_calls": []any{map[string]any{"id": id, "type": "function",
				"function": map[string]any{"name": "read_file", "arguments": `{"path":"parser/part` + strconv.Itoa(i) + `.go"}`}}}},
			map[string]any{"role": "tool", "tool_call_id": id, "content": strings.Repeat("func parsePart"+strconv.Itoa(i)+"() error { return nil }\n", 80)})
	}
	msgs = append(msgs, map[string]any{"role": "assistant", "content": "I have read every part."})
	data, _ := json.Marshal(msgs)
	return string(data)
}

func TestPruningAloneIsReported(t *testing.T) {
	dir := t.TempDir()
	in := writeFile(t, dir, "in.json", toolHeavy(12))
	rep := filepath.Join(dir, "rep.json")
	r := runCLI(t, "", in, "-window", "16000", "-json-report", rep, "-report")
	require.Equal(t, 0, r.code, r.stderr)
	rp := decodeReport(t, rep)
	require.Equal(t, true, rp["compacted"], "the history is over the threshold: %v", rp["note"])
	assert.Equal(t, -1.0, rp["summary_index"], "pruning alone brought it under")
	assert.Equal(t, "", rp["summarizer"])
	assert.Positive(t, rp["pruned"])
	assert.Positive(t, rp["pruned_tokens"])
	assert.Less(t, rp["after_tokens"], rp["before_tokens"])
	assert.Equal(t, "masked tool result", rp["prunes"].([]any)[0].(map[string]any)["kind"])
	assert.Contains(t, r.stderr, "summarised  nothing: pruning alone did it")
	assert.Regexp(t, `pruned      \d+ messages, [\d,]+ tokens reclaimed: \d+ masked tool results`, r.stderr)
	out := decodeOutput(t, r.stdout)
	assert.Len(t, out, 27, "pruning never adds or removes a message")
	require.NoError(t, compact.Validate(out))
}

func TestPruneOnly(t *testing.T) {
	dir := t.TempDir()
	rep := filepath.Join(dir, "rep.json")
	t.Run("forced, it prunes and never summarises", func(t *testing.T) {
		r := runCLI(t, toolHeavy(12), "-", "-prune-only", "-force", "-json-report", rep)
		require.Equal(t, 0, r.code, r.stderr)
		rp := decodeReport(t, rep)
		assert.Equal(t, -1.0, rp["summary_index"])
		assert.Equal(t, "", rp["summarizer"])
		assert.Positive(t, rp["pruned"])
		assert.Len(t, decodeOutput(t, r.stdout), 27)
	})
	t.Run("too little to reclaim writes the input unchanged", func(t *testing.T) {
		r := runCLI(t, "", codingSession, "-prune-only", "-force", "-json-report", rep)
		require.Equal(t, 0, r.code, r.stderr)
		assert.Contains(t, r.stderr, "pruning would reclaim")
		assert.EqualValues(t, 0, decodeReport(t, rep)["pruned"])
		assert.Equal(t, normalized(t, readFile(t, codingSession)), normalized(t, r.stdout))
	})
	t.Run("under the threshold it waits for -force", func(t *testing.T) {
		r := runCLI(t, toolHeavy(12), "-", "-prune-only")
		require.Equal(t, 0, r.code, r.stderr)
		assert.Contains(t, r.stderr, "under the threshold")
	})
}

func TestKeepCompactsAllButTheLastExchanges(t *testing.T) {
	dir := t.TempDir()
	rep := filepath.Join(dir, "rep.json")
	r := runCLI(t, "", codingSession, "-keep", "1", "-json-report", rep)
	require.Equal(t, 0, r.code, r.stderr)
	in, out := decodeOutput(t, readFile(t, codingSession)), decodeOutput(t, r.stdout)
	last := 0
	for i, m := range in {
		if m.Role == compact.RoleUser {
			last = i
		}
	}
	rp := decodeReport(t, rep)
	assert.EqualValues(t, last-1, rp["summarized_to"], "everything before the last exchange is summarised")
	tail := in[last:]
	require.GreaterOrEqual(t, len(out), len(tail))
	for i, m := range tail {
		// The first opens the history with the summary merged in front of
		// it (compact.WithUserFirst).
		_, own, _ := msg.SplitMerged(out[len(out)-len(tail)])
		assert.True(t, containsMessage(out[len(out)-len(tail)+i:], m) || i == 0 && reflect.DeepEqual(own, m), "kept message %d verbatim", last+i)
	}
	assert.True(t, compact.IsSummary(out[int(rp["summary_index"].(float64))]))

	r = runCLI(t, `[{"role":"user","content":"one task"},{"role":"assistant","content":"done"}]`, "-", "-keep", "2")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stderr, "-keep 2 keeps every exchange there is")

	for _, args := range [][]string{{"-keep", "0"}, {"-keep", "101"}, {"-keep", "2", "-prune-only"}, {"-probe", "-keep", "2"}, {"-probe", "-prune-only"}} {
		r := runCLI(t, "", append(args, codingSession)...)
		assert.Equal(t, 2, r.code, "%v: %s", args, r.stderr)
	}
}
