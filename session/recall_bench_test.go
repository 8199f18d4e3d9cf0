package session_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/internal/sharedtest"
	"github.com/contextkit/compact/session"
	"github.com/contextkit/compact/tokens"
)

// benchArchiveTokens is the size of the archive the search benchmarks read:
// a long agent run, several times any window.
const benchArchiveTokens = 1_000_000

// benchNeedle is an error line planted once, in the archive's second
// message, so a search for it reads the whole archive to know it is the
// only one.
const benchNeedle = "panic: runtime error: index out of range [7] with length 7 (needle 7c1f)"

// benchArchive returns an archive of at least benchArchiveTokens tokens (by
// tokens.Estimate): the shared transcripts chained, again and again
// (synthetic agent turns when they are absent), with benchNeedle planted.
func benchArchive(tb testing.TB) []compact.Message {
	tb.Helper()
	src := sharedMessages(tb)
	if len(src) == 0 {
		src = syntheticMessages()
	}
	var tc tokens.Estimate
	out := []compact.Message{
		{Role: compact.RoleSystem, Content: "You are a coding agent."},
		{Role: compact.RoleUser, Content: "The build fails:\n" + benchNeedle + "\ngoroutine 1 [running]:\nand: KeyError: 'retry_budget'"},
	}
	tokens := 0
	for tokens < benchArchiveTokens {
		for _, m := range src {
			if m.Role == compact.RoleSystem {
				continue
			}
			out = append(out, m)
			tokens += tc.CountMessage(m)
		}
	}
	return out
}

// sharedMessages chains the shared transcripts, nil when they are absent.
func sharedMessages(tb testing.TB) []compact.Message {
	dir := sharedtest.Dir()
	if dir == "" {
		return nil
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	sort.Strings(files)
	var all []compact.Message
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			tb.Fatal(err)
		}
		var msgs []compact.Message
		if err := json.Unmarshal(data, &msgs); err != nil {
			tb.Fatalf("%s: %v", f, err)
		}
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

// benchQueries are what a model searches an archive for: a fact found once
// (the whole archive read to be sure), a common word (the first page of
// hits), a pattern with a literal in it, one with a literal in each
// branch, and one without any.
var benchQueries = []struct{ name, args string }{
	{"rare", `{"query":` + jsonString(benchNeedle) + `}`},
	{"common", `{"query":"error"}`},
	{"regex-literal", `{"query":"index out of range \\[\\d+\\] with length \\d+","regex":true}`},
	{"regex-alternation", `{"query":"(AssertionError|KeyError|TypeError): \\S+","regex":true}`},
	{"regex-scan", `{"query":"[0-9a-f]{4} ?\\)$","regex":true}`},
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// BenchmarkRecallSearch runs context_search over a 1,000,000-token archive
// in each store. Goals (issue 13): 50 ms in memory and on SQLite, 150 ms on
// Postgres on loopback.
func BenchmarkRecallSearch(b *testing.B) {
	ctx := context.Background()
	msgs := benchArchive(b)
	for _, name := range recallStores {
		b.Run(name, func(b *testing.B) {
			store := openStore(b, name)
			s, err := session.Open(context.Background(), "bench", compact.New(), session.WithStore(store), session.WithRecall(true))
			if err != nil {
				b.Fatal(err)
			}
			for i := 0; i < len(msgs); i += 1000 {
				if err := s.Append(ctx, msgs[i:min(i+1000, len(msgs))]...); err != nil {
					b.Fatal(err)
				}
			}
			// A store may bring its index up to date on the first search
			// after many appends (SQLite's does); that is paid once, here,
			// and reported, not measured with the searches.
			if sr, ok := store.(session.Searcher); ok {
				start := time.Now()
				if _, err := sr.Search(ctx, "bench", "warm up", 0, 1); err != nil {
					b.Fatal(err)
				}
				b.Logf("%s: the first search took %s", name, time.Since(start).Round(time.Millisecond))
			}
			search := s.Tools()[0].Handle
			for _, q := range benchQueries {
				b.Run(q.name, func(b *testing.B) {
					out, err := search(ctx, q.args)
					if err != nil || !strings.Contains(string(out), `"matches":[{`) {
						b.Fatalf("%s: %v %.300s", q.name, err, out)
					}
					b.ResetTimer()
					for i := 0; i < b.N; i++ {
						if _, err := search(ctx, q.args); err != nil {
							b.Fatal(err)
						}
					}
				})
			}
		})
	}
}
