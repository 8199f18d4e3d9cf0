package session

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	openai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/session/store"
	"github.com/contextkit/compact/tokens"
)

// This file holds the cases of issue 23 items 4 to 6: the recall tools at
// the edges of their arguments.

// toolCall is a recall call with raw JSON arguments, as a model sends it.
func toolCall(id, name, args string) compact.Message {
	return compact.Message{Role: compact.RoleAssistant, ToolCalls: []openai.ToolCall{{
		ID: id, Type: openai.ToolTypeFunction, Function: openai.FunctionCall{Name: name, Arguments: args}}}}
}

// Item 4: numbers near the int64 maximum are refused as the arguments'
// mistake, never wrapped into a store's error or a list of negative seqs.
func TestRecallNumbersNearTheTopOfInt64(t *testing.T) {
	s := newRecallSession(t, "edges", nil)
	mustAppend(t, s, agentHistory("edges", 3)...)
	for _, tc := range []struct{ tool, args, want string }{
		{ToolExpand, `{"from":9223372036854775807}`, "seqs go up to 9007199254740991"},
		{ToolExpand, `{"from":1,"to":9223372036854775807}`, "seqs go up to 9007199254740991"},
		{ToolExpand, `{"seq":[9223372036854775807]}`, "seqs go up to 9007199254740991"},
		{ToolExpand, `{"from":9223372036854775808}`, "must be an integer"},
		{ToolExpand, `{"from":1,"cursor":"9223372036854775807:9223372036854775807"}`, "is not one this tool gave"},
		{ToolSearch, `{"query":".","regex":true,"cursor":"9223372036854775807"}`, "is not one this tool gave"},
		{ToolDescribe, `{"cursor":"9223372036854775807"}`, "is not one this tool gave"},
		{ToolExpand, `{"from":1,"line":9223372036854775807}`, "lines count from 1 up to"},
		{ToolExpand, `{"from":1,"offset":-1}`, "offsets go from 0 up to"},
	} {
		out, err := callRaw(s, tc.tool, tc.args)
		require.NoError(t, err, "%s %s: the store is fine; the host hears nothing", tc.tool, tc.args)
		var ans map[string]any
		require.NoError(t, json.Unmarshal(out, &ans))
		assert.Contains(t, ans["error"], tc.want, "%s %s", tc.tool, tc.args)
	}
	// At the bound, the calls are answered: nothing there.
	ans := useTool(t, s, ToolExpand, `{"seq":[9007199254740991]}`)
	assert.Equal(t, []any{float64(9007199254740991)}, ans["missing"], "the one seq asked for is missing, and only it")
	ans = useTool(t, s, ToolExpand, `{"from":9007199254740990,"to":9007199254740991}`)
	assert.Empty(t, ans["messages"])
	assert.Contains(t, ans["note"], "no archived message")
	ans = useTool(t, s, ToolSearch, `{"query":".","regex":true,"cursor":"9007199254740991"}`)
	assert.NotContains(t, ans, "error")
	assert.Empty(t, ans["matches"])
}

// Item 4: every number a schema takes has bounds, and so does every string
// and list a model could make long.
func TestRecallSchemasBoundTheirNumbers(t *testing.T) {
	s := newRecallSession(t, "schemas", nil)
	for _, tool := range s.Tools() {
		var schema struct {
			Properties map[string]map[string]any `json:"properties"`
		}
		require.NoError(t, json.Unmarshal(tool.Definition.Function.Parameters.(json.RawMessage), &schema))
		for name, p := range schema.Properties {
			where := tool.Definition.Function.Name + "." + name
			switch p["type"] {
			case "integer":
				assert.Contains(t, p, "minimum", where)
				require.Contains(t, p, "maximum", where)
				assert.LessOrEqual(t, p["maximum"].(float64), float64(maxSeq), where)
			case "array":
				assert.Contains(t, p, "maxItems", where)
				items := p["items"].(map[string]any)
				assert.Contains(t, items, "maximum", where)
			case "string":
				if _, enum := p["enum"]; !enum {
					assert.Contains(t, p, "maxLength", where)
				}
			}
		}
	}
}

// Item 5: every answer fits its budget, errors included, whatever the
// query, the text it finds, and the tokenizer; answers are written without
// HTML escaping; an error quotes only the start of a bad value.
func TestRecallAnswersFitTheirBudgetAtTheEdges(t *testing.T) {
	tc, err := tokens.ForModel("gpt-4o")
	require.NoError(t, err)
	html := strings.Repeat(`<div class="x">a &amp; b</div>`, 34)[:1000]
	angles := strings.Repeat("<", 1000)
	quotes := strings.Repeat("‹", 333)
	var hist []compact.Message
	for i := 0; i < 30; i++ {
		hist = append(hist, user(fmt.Sprintf("line %d: %s\n%s\n%s", i, html, angles, quotes)),
			asst(fmt.Sprintf("reply %d: %s", i, html)))
	}
	for _, budget := range []int{minToolBudget, DefaultToolBudget} {
		for name, counter := range map[string]tokens.Counter{"o200k": tc, "bytes": byteCounter{}} {
			s := newRecallSession(t, "budget", nil, WithTokenCounter(counter), WithToolBudget(budget))
			mustAppend(t, s, hist...)
			for _, call := range []struct{ tool, args string }{
				{ToolSearch, fmt.Sprintf(`{"query":%q}`, angles)},
				{ToolSearch, fmt.Sprintf(`{"query":%q}`, quotes)},
				{ToolSearch, fmt.Sprintf(`{"query":%q}`, html)},
				{ToolSearch, fmt.Sprintf(`{"query":"div","tool":%q}`, strings.Repeat("<", maxToolName))},
				{ToolSearch, fmt.Sprintf(`{"query":"x","role":%q}`, strings.Repeat("é", 3000))},
				{ToolSearch, fmt.Sprintf(`{"query":"x","%s":1}`, strings.Repeat("é", 3000))},
				{ToolSearch, fmt.Sprintf(`{"query":"x","cursor":%q}`, strings.Repeat("9", 3000))},
				{ToolSearch, fmt.Sprintf(`{"query":%q,"regex":true}`, "("+strings.Repeat("é", 900))},
				{ToolSearch, fmt.Sprintf(`{"query":"x","limit":1%s}`, strings.Repeat("0", 3000))},
				{ToolExpand, `{"from":1,"to":60}`},
				{ToolExpand, `{"seq":[` + strings.TrimSuffix(strings.Repeat("9007199254740991,", 100), ",") + `]}`},
				{ToolDescribe, `{}`},
			} {
				what := fmt.Sprintf("%s budget %d: %s %.80s", name, budget, call.tool, call.args)
				out, err := callRaw(s, call.tool, call.args)
				require.NoError(t, err, what)
				require.True(t, json.Valid(out), what)
				assert.LessOrEqual(t, counter.CountText(string(out)), budget, what)
				assert.NotContains(t, string(out), `\u003c`, what)
				assert.False(t, strings.Contains(string(out), strings.Repeat("é", 100)), "%s: an error repeats at most the start of a bad value", what)
			}
		}
	}
}

// Item 5: a query too long to repeat in next is left out of it, and the
// note says to send it again.
func TestRecallNextLeavesOutAQueryTooLongToRepeat(t *testing.T) {
	s := newRecallSession(t, "long", nil, WithToolBudget(minToolBudget))
	query := strings.Repeat("<", 600)
	for i := 0; i < 30; i++ {
		mustAppend(t, s, user(fmt.Sprintf("%d %s", i, query)))
	}
	ans := useTool(t, s, ToolSearch, fmt.Sprintf(`{"query":%q}`, query))
	require.Contains(t, ans, "next")
	next := ans["next"].(map[string]any)
	assert.NotContains(t, next, "query")
	assert.Contains(t, next, "cursor")
	assert.Contains(t, ans["note"], "send them again")

	// Sent again with the cursor, it goes on.
	again := useTool(t, s, ToolSearch, fmt.Sprintf(`{"query":%q,"cursor":%q}`, query, next["cursor"]))
	assert.Greater(t, seqsOf(t, again, "matches")[0], seqsOf(t, ans, "matches")[0])
	// Sent without it, the error says what to do.
	bad := useTool(t, s, ToolSearch, fmt.Sprintf(`{"cursor":%q}`, next["cursor"]))
	assert.Contains(t, bad["error"], "send that search's query")
}

// Item 6: a hit deep in a long tool result is shown by one expand call
// that starts at its line, or at its offset (in a text of one long line).
func TestRecallExpandStartsAroundAHit(t *testing.T) {
	s := newRecallSession(t, "around", nil)
	var lines []string
	for i := 1; i <= 300; i++ {
		lines = append(lines, fmt.Sprintf("ok   example.com/around/pkg%03d  0.%03ds  all good, nothing to see", i, i))
	}
	lines[249] = "FAIL example.com/around/pkg250: the needle broke the build"
	long := strings.Repeat("x", 12000) + " the haystack needle " + strings.Repeat("y", 3000)
	mustAppend(t, s, call("", "c1", "bash"), result("c1", strings.Join(lines, "\n")),
		call("", "c2", "cat"), result("c2", long))
	require.Greater(t, len(strings.Join(lines, "\n")), 15_000)

	hits := useTool(t, s, ToolSearch, `{"query":"needle"}`)["matches"].([]any)
	require.Len(t, hits, 2)
	first := hits[0].(map[string]any)["hits"].([]any)[0].(map[string]any)
	second := hits[1].(map[string]any)["hits"].([]any)[0].(map[string]any)
	assert.Equal(t, float64(250), first["line"])

	plain := useTool(t, s, ToolExpand, `{"from":2}`)
	require.NotContains(t, text(plain), "the needle", "the first page of the result ends long before the hit")

	for _, tc := range []struct{ args, want string }{
		{fmt.Sprintf(`{"from":2,"line":%v}`, first["line"]), "the needle broke the build"},
		{fmt.Sprintf(`{"from":2,"offset":%v}`, first["offset"]), "the needle broke the build"},
		{fmt.Sprintf(`{"seq":[2],"line":%v}`, first["line"]), "the needle broke the build"},
		{fmt.Sprintf(`{"from":4,"offset":%v}`, second["offset"]), "the haystack needle"},
	} {
		ans := useTool(t, s, ToolExpand, tc.args)
		require.NotContains(t, ans, "error", tc.args)
		assert.Contains(t, text(ans), tc.want, tc.args)
		part := ans["messages"].([]any)[0].(map[string]any)["part"].(map[string]any)
		assert.Positive(t, part["from_byte"], tc.args)
	}
	ans := useTool(t, s, ToolExpand, `{"from":2,"line":250}`)
	part := ans["messages"].([]any)[0].(map[string]any)["part"].(map[string]any)
	assert.Equal(t, float64(249), part["from_line"], "the answer starts with the line before the hit")
	assert.True(t, strings.HasPrefix(text(ans), lines[248]+"\n"+lines[249]))
	assert.Contains(t, text(ans), lines[299], "and runs to the end, which fits")
	// Where the rest does not fit, the cursor it gives goes on from where
	// it stopped.
	early := useTool(t, s, ToolExpand, `{"from":2,"line":20}`)
	require.Contains(t, early, "next")
	stop := early["messages"].([]any)[0].(map[string]any)["part"].(map[string]any)["to_byte"]
	rest := useTool(t, s, ToolExpand, fmt.Sprintf(`{"from":2,"cursor":%q}`, early["next"].(map[string]any)["cursor"]))
	assert.Equal(t, stop, rest["messages"].([]any)[0].(map[string]any)["part"].(map[string]any)["from_byte"])

	assert.Contains(t, useTool(t, s, ToolExpand, `{"from":2,"line":1,"offset":3}`)["error"], `"line" or "offset", not both`)
	assert.Contains(t, useTool(t, s, ToolExpand, `{"from":2,"line":0}`)["error"], "lines count from 1")
	past := useTool(t, s, ToolExpand, `{"from":2,"line":100000}`)
	assert.Contains(t, text(past), lines[299], "a line past the end starts at the last")
}

// text joins the texts of an expand answer's messages.
func text(ans map[string]any) string {
	var b strings.Builder
	for _, m := range ans["messages"].([]any) {
		b.WriteString(m.(map[string]any)["text"].(string))
	}
	return b.String()
}

// Item 6: a search leaves out the recall tools' own calls and answers,
// which quote what it looks for, unless its tool filter names one.
func TestRecallSearchLeavesOutItsOwnCalls(t *testing.T) {
	s := newRecallSession(t, "own", nil)
	both := toolCall("c2", "bash", `{"command":"grep -rn needle ."}`)
	both.ToolCalls = append(both.ToolCalls, openai.ToolCall{ID: "c3", Type: openai.ToolTypeFunction,
		Function: openai.FunctionCall{Name: ToolExpand, Arguments: `{"from":1,"note":"needle \"quoted\""}`}})
	mustAppend(t, s,
		user("the needle is in main.go"),                                                // 1
		toolCall("c1", ToolSearch, `{"query":"needle"}`),                                // 2
		result("c1", `{"matches":[{"seq":1,"hits":[{"snippet":"the needle is in"}]}]}`), // 3
		both,                              // 4: a bash call (found) and an expand call (left out)
		result("c2", "main.go:3: needle"), // 5
		result("c3", `{"messages":[{"text":"the needle is in main.go"}]}`), // 6
	)
	ans := useTool(t, s, ToolSearch, `{"query":"needle"}`)
	assert.Equal(t, []int{1, 4, 5}, seqsOf(t, ans, "matches"))
	hit := ans["matches"].([]any)[1].(map[string]any)["hits"].([]any)
	require.Len(t, hit, 1, "the bash call's line, not the expand call's")
	assert.Contains(t, hit[0].(map[string]any)["snippet"], "grep -rn needle")
	assert.NotContains(t, hit[0].(map[string]any)["snippet"], ToolExpand, "its neighbour line is left out too")

	asked := useTool(t, s, ToolSearch, fmt.Sprintf(`{"query":"needle","tool":%q}`, ToolSearch))
	assert.Equal(t, []int{2, 3}, seqsOf(t, asked, "matches"))
}

// recallSpans marks, in SearchText, exactly the lines of the recall calls
// and the argument values it adds for them.
func TestRecallSpansCoverTheRecallCallsExactly(t *testing.T) {
	m := compact.Message{Role: compact.RoleAssistant, Content: "checking\nagain", ToolCalls: []openai.ToolCall{
		{ID: "a", Function: openai.FunctionCall{Name: "bash", Arguments: `{"command":"echo \"hi\""}`}},
		{ID: "b", Function: openai.FunctionCall{Name: ToolSearch, Arguments: `{"query":"say \"hi\"\nthere"}`}},
		{ID: "c", Function: openai.FunctionCall{Name: "read", Arguments: `{"path":"a.go"}`}},
		{ID: "d", Function: openai.FunctionCall{Name: ToolExpand, Arguments: `{"from":3}`}},
	}}
	text := store.SearchText(m)
	var got []string
	for _, sp := range recallSpans(m) {
		got = append(got, text[sp.start:sp.end])
		assert.True(t, sp.start == 0 || text[sp.start-1] == '\n', "a span starts a line")
		assert.True(t, sp.end == len(text) || text[sp.end] == '\n', "a span ends a line")
	}
	assert.Equal(t, []string{
		ToolSearch + `({"query":"say \"hi\"\nthere"})`,
		ToolExpand + `({"from":3})`,
		"say \"hi\"\nthere",
	}, got)
	assert.Nil(t, recallSpans(call("", "x", "bash")))
}
