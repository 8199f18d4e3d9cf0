package storebench

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	openai "github.com/sashabaranov/go-openai"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/internal/sharedtest"
	"github.com/contextkit/compact/tokens"
)

// Needle is an error line planted once, in an archive's second message, so
// that a search for it reads the whole archive to know it is the only one.
const Needle = "panic: runtime error: index out of range [7] with length 7 (needle 7c1f)"

// Query is one context_search call: its name in a benchmark, and its
// arguments as the model sends them.
type Query struct{ Name, Args string }

// Queries are what a model searches an archive for: a fact found once (the
// whole archive read to be sure), a common word (the first page of hits), a
// pattern with a literal in it, one with a literal in each branch, and one
// without any literal of three bytes, which no index serves.
var Queries = []Query{
	{"rare", `{"query":` + jsonString(Needle) + `}`},
	{"common", `{"query":"error"}`},
	{"regex-literal", `{"query":"index out of range \\[\\d+\\] with length \\d+","regex":true}`},
	{"regex-alternation", `{"query":"(AssertionError|KeyError|TypeError): \\S+","regex":true}`},
	{"regex-scan", `{"query":"[0-9a-f]{4} ?\\)$","regex":true}`},
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// Archive returns an archive of n tokens (by tokens.Estimator; the last
// message takes it to n or just past): a system prompt, a user message
// holding Needle, then the shared transcripts chained again and again
// without their system prompts (synthetic agent turns when the
// transcripts are absent).
func Archive(tb testing.TB, n int) []compact.Message {
	tb.Helper()
	src := sharedMessages(tb)
	if len(src) == 0 {
		src = syntheticMessages()
	}
	var tc tokens.Estimator
	out := []compact.Message{
		{Role: compact.RoleSystem, Content: "You are a coding agent."},
		{Role: compact.RoleUser, Content: "The build fails:\n" + Needle + "\ngoroutine 1 [running]:\nand: KeyError: 'retry_budget'"},
	}
	count := tokens.CountMessages(tc, out)
	for count < n {
		for _, m := range src {
			if count >= n {
				break
			}
			if m.Role == compact.RoleSystem {
				continue
			}
			out = append(out, m)
			count += tc.CountMessage(m)
		}
	}
	return out
}

// Transcripts returns the shared transcripts, each a conversation, in file
// order; nil when they are absent.
func Transcripts(tb testing.TB) [][]compact.Message {
	tb.Helper()
	dir := sharedtest.Dir()
	if dir == "" {
		return nil
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	sort.Strings(files)
	var all [][]compact.Message
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			tb.Fatal(err)
		}
		var msgs []compact.Message
		if err := json.Unmarshal(data, &msgs); err != nil {
			tb.Fatalf("%s: %v", f, err)
		}
		all = append(all, msgs)
	}
	return all
}

// sharedMessages chains the shared transcripts, nil when they are absent.
func sharedMessages(tb testing.TB) []compact.Message {
	var all []compact.Message
	for _, msgs := range Transcripts(tb) {
		all = append(all, msgs...)
	}
	return all
}

// syntheticMessages is a stand-in for the transcripts: tool rounds of
// varied text.
func syntheticMessages() []compact.Message {
	var out []compact.Message
	for i := 0; i < 500; i++ {
		id := fmt.Sprintf("call_%d", i)
		out = append(out,
			compact.Message{Role: compact.RoleAssistant, Content: fmt.Sprintf("Step %d: reading the next file.", i),
				ToolCalls: []openai.ToolCall{{ID: id, Type: openai.ToolTypeFunction,
					Function: openai.FunctionCall{Name: "read_file", Arguments: fmt.Sprintf(`{"path":"src/mod%d/file%d.py"}`, i%37, i)}}}},
			compact.Message{Role: compact.RoleTool, ToolCallID: id, Content: syntheticFile(i)})
	}
	return out
}

func syntheticFile(i int) string {
	var b strings.Builder
	for k := 0; k < 60; k++ {
		fmt.Fprintf(&b, "def handler_%d_%d(request, retries=%d):\n    return dispatch(request, timeout=%d)  # %x\n", i, k, k%5, k*i%97, i*7919+k)
	}
	return b.String()
}
