package session

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp/syntax"
	"strings"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/session/store"
)

// seqsOf lists the seqs of an answer's matches or messages.
func seqsOf(t testing.TB, ans map[string]any, key string) []int {
	t.Helper()
	var out []int
	for _, m := range ans[key].([]any) {
		out = append(out, int(m.(map[string]any)["seq"].(float64)))
	}
	return out
}

func TestRecallSearch(t *testing.T) {
	s := newRecallSession(t, "srch", nil)
	mustAppend(t, s, agentHistory("srch", 12)...)
	// seq 28: a command whose JSON escapes its quotes and line break.
	mustAppend(t, s, compact.Message{Role: compact.RoleAssistant, ToolCalls: []openai.ToolCall{{
		ID: "q1", Type: openai.ToolTypeFunction,
		Function: openai.FunctionCall{Name: "bash", Arguments: `{"command":"grep -n \"retry budget\" cfg.go\necho done"}`}}}},
		result("q1", "cfg.go:7: retry budget = 3"))

	for _, tc := range []struct {
		name, args string
		want       []int // seqs of the matches, oldest first
	}{
		{"a plain query ignores case", `{"query":"UNDEFINED: SYMBOL_SRCH_7"}`, []int{16}},
		{"a plain query is no pattern", `{"query":"pkg1.*file"}`, nil},
		{"a regular expression", `{"query":"pkg1[01]/file1[01]\\.go:12","regex":true}`, []int{22, 24}},
		{"a regular expression is case-sensitive", `{"query":"UNDEFINED","regex":true}`, nil},
		{"unless it asks not to be", `{"query":"(?i)UNDEFINED: symbol_srch_1$","regex":true}`, []int{4}},
		{"role narrows", `{"query":"running the tests","role":"assistant","limit":2}`, []int{3, 5}},
		{"role excludes", `{"query":"round 3","role":"user"}`, nil},
		{"tool narrows to its results and its calls", `{"query":"pkg12","tool":"bash"}`, []int{25, 26}},
		{"an unknown tool matches nothing", `{"query":"pkg12","tool":"read_file"}`, nil},
		{"a command is found as it ran", `{"query":"grep -n \"retry budget\" cfg.go\necho done"}`, []int{28}},
		{"and as the model wrote it", `{"query":"grep -n \\\"retry budget\\\""}`, []int{28}},
		{"the cursor goes on after a seq", `{"query":"undefined: symbol_srch_1","cursor":"20"}`, []int{22, 24, 26}},
		{"a cursor may be a number", `{"query":"undefined: symbol_srch_1","cursor":20}`, []int{22, 24, 26}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ans := useTool(t, s, ToolSearch, tc.args)
			require.NotContains(t, ans, "error")
			got := seqsOf(t, ans, "matches")
			assert.Equal(t, tc.want, got)
			if len(tc.want) == 0 {
				assert.Contains(t, ans["note"], "no archived message")
			}
		})
	}
}

func TestRecallSearchMatchShape(t *testing.T) {
	s := newRecallSession(t, "shape", nil)
	hist := agentHistory("shape", 3)
	mustAppend(t, s, hist...)
	ans := useTool(t, s, ToolSearch, `{"query":"symbol_shape_2"}`)
	require.Len(t, ans["matches"], 1)
	m := ans["matches"].([]any)[0].(map[string]any)
	assert.Equal(t, map[string]any{
		"seq": float64(6), "role": "tool", "tool": "bash",
		"hits": []any{map[string]any{"line": float64(9), "offset": float64(strings.Index(toolOutput("shape", 2), "symbol_shape_2")), "snippet": strings.Join([]string{
			"ok   example.com/shape/pkg2/sub7  0.051s",
			errorLine("shape", 2),
			"FAIL example.com/shape/pkg2 [build failed]",
		}, "\n")}},
	}, m, "seq, role, tool, and the matching line between its neighbours")
	assert.NotContains(t, ans, "next", "nothing more to get")

	calls := useTool(t, s, ToolSearch, `{"query":"./pkg2/"}`)
	m = calls["matches"].([]any)[0].(map[string]any)
	assert.Equal(t, "assistant", m["role"])
	assert.Equal(t, []any{"bash"}, m["calls"], "an assistant turn names the tools it called")
}

func TestRecallSearchShowsThreeLinesAMessageAndCountsTheRest(t *testing.T) {
	s := newRecallSession(t, "many", nil)
	mustAppend(t, s, user(strings.Repeat("needle\nhay\n", 10)))
	ans := useTool(t, s, ToolSearch, `{"query":"needle"}`)
	m := ans["matches"].([]any)[0].(map[string]any)
	assert.Len(t, m["hits"], maxHitsPerMessage)
	assert.Equal(t, float64(10-maxHitsPerMessage), m["more_hits"])
	lines := []float64{}
	for _, h := range m["hits"].([]any) {
		lines = append(lines, h.(map[string]any)["line"].(float64))
	}
	assert.Equal(t, []float64{1, 3, 5}, lines)
}

func TestRecallSearchCutsLongLinesAroundTheMatch(t *testing.T) {
	s := newRecallSession(t, "long", nil)
	line := strings.Repeat("a", 5000) + " the needle " + strings.Repeat("b", 5000)
	mustAppend(t, s, user("before\n"+line+"\nafter"))
	ans := useTool(t, s, ToolSearch, `{"query":"needle"}`)
	snip := ans["matches"].([]any)[0].(map[string]any)["hits"].([]any)[0].(map[string]any)["snippet"].(string)
	parts := strings.Split(snip, "\n")
	require.Len(t, parts, 3)
	assert.Equal(t, "before", parts[0])
	assert.Equal(t, "after", parts[2])
	assert.Contains(t, parts[1], " the needle ")
	assert.True(t, strings.HasPrefix(parts[1], ellipsis) && strings.HasSuffix(parts[1], ellipsis), "cut on both sides: %q", parts[1])
	assert.LessOrEqual(t, len(parts[1]), snippetWidth+2*len(ellipsis))
}

func TestRecallSearchLimitSaysThereIsMore(t *testing.T) {
	s := newRecallSession(t, "lim", nil)
	mustAppend(t, s, agentHistory("lim", 10)...)
	ans := useTool(t, s, ToolSearch, `{"query":"undefined:","limit":3}`)
	assert.Equal(t, []int{4, 6, 8}, seqsOf(t, ans, "matches"))
	assert.Equal(t, true, ans["more"])
	next, err := json.Marshal(ans["next"])
	require.NoError(t, err)
	ans = useTool(t, s, ToolSearch, string(next))
	assert.Equal(t, []int{10, 12, 14}, seqsOf(t, ans, "matches"), "next goes on where the answer stopped")
}

// TestRecallPagesAddUpToEverything follows every answer's next, as a model
// would, under a small budget: every match (or message) comes back once,
// and no answer is over the budget.
func TestRecallPagesAddUpToEverything(t *testing.T) {
	const budget = 400
	s := newRecallSession(t, "pages", nil, WithToolBudget(budget))
	hist := agentHistory("pages", 30)
	huge := strings.Repeat("0123456789abcdef\n", 1500) // ~6,400 tokens
	hist = append(hist, asst(huge))
	mustAppend(t, s, hist...)
	counter := s.counter

	follow := func(tool, args string, each func(ans map[string]any)) int {
		calls := 0
		for args != "" {
			calls++
			require.Less(t, calls, 500, "paging never ends")
			out, err := callRaw(s, tool, args)
			require.NoError(t, err)
			assert.LessOrEqual(t, counter.CountText(string(out)), budget, "answer %d of %s is over budget", calls, tool)
			var ans map[string]any
			require.NoError(t, json.Unmarshal(out, &ans))
			require.NotContains(t, ans, "error")
			each(ans)
			args = ""
			if next, ok := ans["next"]; ok {
				b, _ := json.Marshal(next)
				args = string(b)
			}
		}
		return calls
	}

	var seen []int
	calls := follow(ToolSearch, `{"query":"FAIL example.com","limit":100}`, func(ans map[string]any) {
		seen = append(seen, seqsOf(t, ans, "matches")...)
	})
	var want []int
	for i := 1; i <= 30; i++ {
		want = append(want, 2+2*i)
	}
	assert.Equal(t, want, seen, "every match, once, in order")
	assert.Greater(t, calls, 1, "the budget made it page")

	texts := map[int]string{}
	follow(ToolExpand, fmt.Sprintf(`{"from":1,"to":%d}`, len(hist)), func(ans map[string]any) {
		for _, m := range ans["messages"].([]any) {
			mm := m.(map[string]any)
			seq := int(mm["seq"].(float64))
			if p, ok := mm["part"].(map[string]any); ok {
				assert.Equal(t, float64(len(texts[seq])), p["from_byte"], "parts follow each other")
			}
			texts[seq] += mm["text"].(string)
		}
	})
	require.Len(t, texts, len(hist))
	for i, m := range hist {
		assert.Equal(t, expandText(m), texts[i+1], "seq %d comes back verbatim", i+1)
	}
}

func TestRecallExpand(t *testing.T) {
	s := newRecallSession(t, "exp", nil)
	hist := agentHistory("exp", 5)
	mustAppend(t, s, hist...)
	n := len(hist)

	for _, tc := range []struct {
		name, args string
		want       []int
		missing    []any
	}{
		{"a range", `{"from":2,"to":4}`, []int{2, 3, 4}, nil},
		{"to defaults to from", `{"from":3}`, []int{3}, nil},
		{"a list, sorted and once each", `{"seq":[5,3,5]}`, []int{3, 5}, nil},
		{"a range past the end stops at it", fmt.Sprintf(`{"from":%d,"to":1000000000}`, n-1), []int{n - 1, n}, nil},
		{"a list names what the archive lacks", fmt.Sprintf(`{"seq":[1,%d]}`, n+5), []int{1}, []any{float64(n + 5)}},
		{"a range wholly past the end", `{"from":900,"to":901}`, nil, nil},
		{"the cursor skips what was read", `{"from":1,"to":4,"cursor":"3"}`, []int{3, 4}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ans := useTool(t, s, ToolExpand, tc.args)
			require.NotContains(t, ans, "error")
			assert.Equal(t, tc.want, seqsOf(t, ans, "messages"))
			if tc.missing == nil {
				assert.NotContains(t, ans, "missing")
			} else {
				assert.Equal(t, tc.missing, ans["missing"])
			}
		})
	}

	ans := useTool(t, s, ToolExpand, `{"seq":[3,4]}`)
	call := ans["messages"].([]any)[0].(map[string]any)
	assert.Equal(t, []any{map[string]any{"id": "call_exp_1", "name": "bash"}}, call["calls"])
	assert.Equal(t, expandText(hist[2]), call["text"])
	res := ans["messages"].([]any)[1].(map[string]any)
	assert.Equal(t, "bash", res["tool"], "a tool result names its tool")
	assert.Equal(t, "call_exp_1", res["tool_call_id"])
}

func TestRecallToolNameIsFoundBeforeThePage(t *testing.T) {
	s := newRecallSession(t, "back", nil)
	msgs := []compact.Message{
		{Role: compact.RoleAssistant, ToolCalls: []openai.ToolCall{{ID: "far", Type: openai.ToolTypeFunction,
			Function: openai.FunctionCall{Name: "slow_tool", Arguments: "{}"}}}},
	}
	for i := 0; i < 100; i++ {
		msgs = append(msgs, user(fmt.Sprintf("chatter %d", i)))
	}
	msgs = append(msgs, result("far", "the slow tool's output"))
	mustAppend(t, s, msgs...)
	ans := useTool(t, s, ToolSearch, `{"query":"slow tool's output","tool":"slow_tool"}`)
	assert.Equal(t, []int{102}, seqsOf(t, ans, "matches"))
	ans = useTool(t, s, ToolExpand, `{"seq":[102]}`)
	assert.Equal(t, "slow_tool", ans["messages"].([]any)[0].(map[string]any)["tool"])
}

func TestRecallSearchRunsOnAStoreWithoutASearcher(t *testing.T) {
	st := plainStore{store.NewMemory()}
	s := newRecallSession(t, "plain-store", st)
	mustAppend(t, s, agentHistory("plain-store", 8)...)
	for _, q := range []string{`{"query":"symbol_plain_store_5"}`, `{"query":"symbol_plain_store_5$","regex":true}`} {
		ans := useTool(t, s, ToolSearch, q)
		assert.Equal(t, []int{12}, seqsOf(t, ans, "matches"), q)
	}
}

// plainStore hides every optional interface of the Store it wraps.
type plainStore struct{ store.Store }

func TestRecallSearchStopsInTimeAndSaysWhereToGoOn(t *testing.T) {
	s := newRecallSession(t, "slow", slowStore{Store: plainStore{store.NewMemory()}})
	mustAppend(t, s, agentHistory("slow", 200)...)
	s.searchTimeout = 50 * time.Millisecond
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// The search's own deadline is SearchTimeout; a store slower than it
	// makes the search stop with what it has.
	out, err := s.Tools()[0].Handle(ctx, `{"query":"no such text"}`)
	require.NoError(t, err)
	var ans map[string]any
	require.NoError(t, json.Unmarshal(out, &ans))
	assert.Equal(t, true, ans["stopped"], "%s", out)
	require.Contains(t, ans, "next")
	assert.Contains(t, ans["note"], "stopped")
}

// slowStore answers each Read only when its context's deadline passes.
type slowStore struct{ store.Store }

func (s slowStore) Read(ctx context.Context, id string, from, to int64) ([]store.Record, error) {
	if _, ok := ctx.Deadline(); ok {
		<-ctx.Done()
		return nil, fmt.Errorf("slow: %w", ctx.Err())
	}
	return s.Store.Read(ctx, id, from, to)
}

func TestRequiredLiterals(t *testing.T) {
	for _, tc := range []struct {
		re   string
		want []string
	}{
		{`index out of range \[\d+\]`, []string{"index out of range ["}},
		{`(KeyError|ValueError): \w+`, []string{"KeyError", "ValueError"}},
		{`FAIL: (Test\w+)`, []string{"FAIL: "}},
		{`(?i)undefined: \w+`, []string{"UNDEFINED: "}}, // lower-cased by newMatcher
		{`(?i)missing key`, nil},                        // RE2 folds k and s beyond ToLower
		{`ab|cd`, nil},                                  // too short to look up
		{`error|x*`, nil},                               // a branch needs nothing
		{`(panic: .*)+`, []string{"panic: "}},
		{`(abc)?xyz1`, []string{"xyz1"}},
		{`[0-9a-f]{4}\)$`, nil},
		{`a|bb|ccc|dddd|eeeee|ffffff|ggggggg|hhhhhhhh|iiiiiiiii`, nil},
	} {
		tree, err := syntax.Parse(tc.re, syntax.Perl)
		require.NoError(t, err)
		assert.Equal(t, tc.want, requiredLiterals(tree), tc.re)
	}
}

// TestRecallSearchIndexAgreesWithTheScan: a search through the store's
// Searcher (narrowed by the literals a pattern needs) finds exactly what
// reading the whole log finds.
func TestRecallSearchIndexAgreesWithTheScan(t *testing.T) {
	indexed := newRecallSession(t, "agree", nil)
	scanned := newRecallSession(t, "agree", plainStore{store.NewMemory()})
	hist := agentHistory("agree", 150)
	hist = append(hist, user("KeyError: 'x'\nValueError: y\nkeyerror lower"))
	for _, s := range []*Session{indexed, scanned} {
		mustAppend(t, s, hist...)
	}
	for _, q := range []string{
		`{"query":"symbol_agree_1","limit":100}`,
		`{"query":"(sub3|sub5)  0\\.0[0-9]+s$","regex":true,"limit":100}`,
		`{"query":"(KeyError|ValueError): \\S+","regex":true}`,
		`{"query":"(?i)keyerror","regex":true}`,
		`{"query":"pkg1[0-9]+/file","regex":true,"limit":7}`,
		`{"query":"undefined: symbol_agree_(1|2)\\d\\b","regex":true,"limit":100,"cursor":"40"}`,
	} {
		a, b := useTool(t, indexed, ToolSearch, q), useTool(t, scanned, ToolSearch, q)
		assert.NotEmpty(t, a["matches"], q)
		assert.Equal(t, b, a, q)
	}
}
