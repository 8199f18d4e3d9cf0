package extractive

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/contextkit/compact/internal/english"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// factsOfIndex returns the facts part of an extractive summary.
func factsOfIndex(t *testing.T, summary string) string {
	t.Helper()
	require.True(t, strings.HasPrefix(summary, headingPrefix+factsHeading+"\n"), "the index comes first:\n%s", summary)
	end := strings.Index(summary, "\n\n")
	if end < 0 {
		end = len(summary)
	}
	return summary[:end]
}

func TestFactsIndexIsWrittenFirstAndDensely(t *testing.T) {
	turns := []Message{
		user("Change my flights and fix the build."),
		tcall("1", "get_user_details", `{"user_id":"mia_li_3668"}`), result("1", `{"name":"Mia"}`),
		tcall("2", "get_reservation_details", `{"reservation_id":"ZFA04Y"}`), result("2", "{}"),
		tcall("3", "get_reservation_details", `{"reservation_id":"4OG6T3"}`), result("3", "{}"),
		tcall("4", "book_reservation", `{"user_id":"mia_li_3668","origin":"JFK","flights":[{"flight_number":"HAT082","date":"2024-05-17"}]}`),
		result("4", "Error: payment method not found"),
		tcall("5", "str_replace_editor", `{"command":"str_replace","path":"/repo/internal/a.go","old_str":"x","new_str":"y"}`), result("5", "ok"),
		tcall("6", "str_replace_editor", `{"command":"create","path":"/repo/internal/b.go","file_text":"package internal"}`), result("6", "ok"),
		tcall("7", "bash", `{"command":"cat /repo/go.mod && ls src/lib"}`), result("7", "module x"),
		tcall("8", "bash", `{"command":"go build ./..."}`), result("8", "internal/a.go:3:1: undefined: y\nexit status 1"),
		tcall("9", "bash", `{"command":"cd /repo &&\ngo vet ./internal/..."}`), result("9", "ok"),
		asst("Next I will rerun the build."),
	}
	out, p := summarize(t, Request{Turns: turns})
	assert.Equal(t, strings.Join([]string{
		"## Facts",
		"- Unresolved errors from `book_reservation(origin=JFK, user_id=mia_li_3668)`:",
		"  - Error: payment method not found",
		"- Unresolved errors from `go build ./...`:",
		"  - internal/a.go:3:1: undefined: y",
		"- Modified: /repo/internal/a.go, /repo/internal/b.go",
		"- IDs: reservation_id=ZFA04Y, 4OG6T3 (get_reservation_details); user_id=mia_li_3668 (get_user_details, book_reservation); flight_number=HAT082 (book_reservation)",
		"- Last command: cd /repo &&",
		"    go vet ./internal/...",
		"- Read: /repo/go.mod",
		"- Referenced: src/lib; /repo; ./internal/...",
	}, "\n"), factsOfIndex(t, out), "identifiers grouped by argument and tools, the groups by their latest use")

	assert.Equal(t, []string{"/repo/internal/a.go", "/repo/internal/b.go"}, p.items[secModified])
	assert.Equal(t, []string{"Error: payment method not found", "internal/a.go:3:1: undefined: y"}, p.items[secErrors])
	assert.Equal(t, "cd /repo &&\ngo vet ./internal/...", p.facts.lastCmd, "the last command reads back verbatim")
	require.Len(t, p.facts.ids, 4)
	assert.Equal(t, idEntry{value: "4OG6T3", key: "reservation_id", tools: []string{"get_reservation_details"}}, p.facts.ids[1])
}

func TestFactsIndexMarksResolvedErrors(t *testing.T) {
	turns := []Message{
		tcall("1", "bash", `{"command":"go test ./..."}`), result("1", "--- FAIL: TestA (0.00s)\nFAIL\nexit status 1"),
		tcall("2", "bash", `{"command":"make lint"}`), result("2", "lint.go:1:1: error: bad"),
		tcall("3", "bash", `{"command":"go test ./..."}`), result("3", "ok  \tx\t0.1s"),
		tcall("4", "get_order", `{"order_id":"W1"}`), result("4", "Error: order not found"),
		tcall("5", "get_order", `{"order_id":"W2"}`), result("5", `{"status":"shipped"}`),
		tcall("6", "bash", `{"command":"go vet"}`), result("6", "vet.go:2:1: error: worse"),
		tcall("7", "bash", `{"command":"go vet"}`), result("7", "ok"),
		tcall("8", "bash", `{"command":"go vet"}`), result("8", "vet.go:2:1: error: worse"),
	}
	out, p := summarize(t, Request{Turns: turns})
	assert.Equal(t, strings.Join([]string{
		"## Facts",
		"- Unresolved errors from `make lint`:",
		"  - lint.go:1:1: error: bad",
		"- Unresolved errors from `get_order(order_id=W1)`:",
		"  - Error: order not found",
		"- Unresolved errors from `go vet`:",
		"  - vet.go:2:1: error: worse",
		"- IDs: order_id=W1, W2 (get_order)",
		"- Last command: go vet",
		"- Resolved errors from `go test ./...`:",
		"  - --- FAIL: TestA (0.00s)",
		"- Referenced: lint.go, vet.go",
	}, "\n"), factsOfIndex(t, out),
		"a clean later run of the same command resolves; another call of the same tool does not; a line printed again after a clean run is unresolved")
	assert.True(t, p.facts.resolved["--- FAIL: TestA (0.00s)"])
	assert.Equal(t, "go test ./...", p.facts.errRun["--- FAIL: TestA (0.00s)"])

	// Merged into the next summary, the marks stand, and a new clean run
	// of go vet resolves its error.
	_, q := summarize(t, Request{PreviousSummary: out, Turns: []Message{
		tcall("9", "bash", `{"command":"go vet"}`), result("9", "ok"),
	}})
	assert.True(t, q.facts.resolved["--- FAIL: TestA (0.00s)"])
	assert.True(t, q.facts.resolved["vet.go:2:1: error: worse"])
	assert.False(t, q.facts.resolved["lint.go:1:1: error: bad"])
}

// denseHistory is a history with many facts of every kind: an unresolved
// error per step from a different command, an identifier, a modified and a
// read file.
func denseHistory(n int) []Message {
	turns := []Message{user("work through the queue")}
	for i := 0; i < n; i++ {
		id := fmt.Sprint(i)
		turns = append(turns,
			tcall("a"+id, "get_ticket", fmt.Sprintf(`{"ticket_id":"TK%04d"}`, i)), result("a"+id, "{}"),
			tcall("b"+id, "bash", fmt.Sprintf(`{"command":"sed -i 's/a/b/' pkg/m%d/fix.go && cat pkg/m%d/read.go"}`, i, i)), result("b"+id, "ok"),
			tcall("c"+id, "bash", fmt.Sprintf(`{"command":"go build ./pkg/m%d"}`, i)), result("c"+id, fmt.Sprintf("pkg/m%d/fix.go:9:2: undefined: v%d", i, i)),
		)
	}
	return turns
}

// TestFactsIndexKeepsItsOrderWhenShort summarises a dense history at
// shrinking targets and checks the keep order: no entry of a kind goes
// while one of a kind kept after it stays (unresolved errors, modified
// files, identifiers, the last command, then the rest), identifiers lose
// their names before any of them goes, and the Left out line counts what
// went.
func TestFactsIndexKeepsItsOrderWhenShort(t *testing.T) {
	turns := denseHistory(30)
	full, _ := summarize(t, Request{Turns: turns, TargetTokens: 100_000})
	require.NotContains(t, full, leftOutLabel, "with room, nothing is left out")
	kinds := []int{factUnresolved, factModified, factID, factCommand, factRead}
	total := map[int]int{factUnresolved: 30, factModified: 30, factID: 30, factCommand: 1, factRead: 30}
	for _, target := range []int{300, 500, 700, 900, 1200} {
		out, p := summarize(t, Request{Turns: turns, TargetTokens: target})
		assert.LessOrEqual(t, (len(out)+3)/4, target)
		t.Logf("target %d: left out %v", target, p.facts.leftOut)
		kept := map[int]int{
			factUnresolved: len(p.items[secErrors]), factModified: len(p.items[secModified]),
			factID: len(p.facts.ids), factRead: len(p.items[secRead]),
		}
		if p.facts.lastCmd != "" {
			kept[factCommand] = 1
		}
		for i, k := range kinds {
			assert.Equal(t, total[k]-kept[k], p.facts.leftOut[k], "target %d: %s left out are counted", target, english.Noun(2, factKindNames[k]))
			if kept[k] == total[k] {
				continue
			}
			for _, later := range kinds[i+1:] {
				assert.Zero(t, kept[later], "target %d: %s go before any of the %s", target, english.Noun(2, factKindNames[later]), english.Noun(2, factKindNames[k]))
			}
		}
		if kept[factCommand] == 0 && len(p.facts.ids) > 0 {
			assert.Empty(t, p.facts.ids[0].key, "target %d: identifiers lose their names before the last command goes", target)
		}
		if n := len(p.facts.ids); n > 0 && n < 30 {
			assert.Equal(t, "TK0029", p.facts.ids[n-1].value, "target %d: the newest identifiers stay", target)
		}
	}
}

func TestFactsIndexGivesWayToAFloorOfProse(t *testing.T) {
	out, p := summarize(t, Request{Turns: denseHistory(40), TargetTokens: 400})
	assert.LessOrEqual(t, (len(out)+3)/4, 400)
	assert.Equal(t, "work through the queue", p.blocks[secTask], "the task stays")
	assert.NotEmpty(t, p.items[secCommands], "and the last actions")
}

func TestFactsIndexMergesAPreviousIndex(t *testing.T) {
	prev, _ := summarize(t, Request{Turns: denseHistory(30), TargetTokens: 1200})
	out, p := summarize(t, Request{PreviousSummary: prev, TargetTokens: 100_000, Turns: []Message{
		tcall("x", "get_ticket", `{"ticket_id":"TK9999"}`), result("x", "{}"),
	}})
	pp, ok := parseExtractive(prev)
	require.True(t, ok)
	assert.Equal(t, pp.items[secErrors], p.items[secErrors], "the errors carry over")
	assert.Equal(t, "TK9999", p.facts.ids[len(p.facts.ids)-1].value)
	assert.Equal(t, "go build ./pkg/m29", p.facts.lastCmd, "the last command stands when the new turns ran none")
	assert.Equal(t, pp.facts.leftOut[factRead], p.facts.leftOut[factRead], "what was left out stays counted")

	again, _ := summarize(t, Request{PreviousSummary: out, TargetTokens: 100_000})
	assert.Equal(t, out, again, "an index merged with nothing new comes back as it was")
}

func TestSplitList(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"a.go, b.go; c/d.go", []string{"a.go", "b.go", "c/d.go"}},
		{"`my, file.txt`, b.go", []string{"my, file.txt", "b.go"}},
		{"x,y.go; z", []string{"x,y.go", "z"}},
		{"`unclosed, a", []string{"`unclosed", "a"}},
		{"`` `a, b` ``; d", []string{"`a, b`", "d"}},
		{"", nil},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, splitList(tt.in), tt.in)
	}
	for _, text := range []string{"my, file.txt", "`a, b; `c``", "x;", "``", "a`b, c"} {
		q := quoteListItem(factItem{text: text})
		assert.Equal(t, []string{text, "z"}, splitList(q+"; z"), "%q written as %q reads back", text, q)
	}
}

func TestFactsIndexRejectsForeignLines(t *testing.T) {
	for _, s := range []string{
		"## Facts\n- Paths: a.go",
		"## Facts\nsome prose",
		"## Facts\n- Unresolved errors from x:\n  - e",
	} {
		_, ok := parseExtractive(s)
		assert.False(t, ok, "%q is read as a foreign summary", s)
	}
	p, ok := parseExtractive("## Facts\n- Unresolved errors the user pasted:\n  - Error: x\n- " + leftOutLabel + "2 read files, 1 last command")
	require.True(t, ok)
	assert.Equal(t, userRun, p.facts.errRun["Error: x"])
	assert.Equal(t, 2, p.facts.leftOut[factRead])
	assert.Equal(t, 1, p.facts.leftOut[factCommand])
}

func TestFactsIndexRedacts(t *testing.T) {
	key := "sk-" + strings.Repeat("A1b2", 8)
	out, _ := summarize(t, Request{Turns: []Message{
		tcall("1", "bash", `{"command":"deploy --token `+key+`"}`), result("1", "Error: token "+key+" rejected"),
		tcall("2", "lookup", `{"api_id":"`+key+`"}`), result("2", "ok"),
	}})
	assert.NotContains(t, out, key)
	_, ok := parseExtractive(out)
	assert.True(t, ok, "a redacted index still reads back:\n%s", out)
}

func TestFactsIndexIsDeterministic(t *testing.T) {
	s := New(Limits{}, nil)
	req := Request{Turns: denseHistory(20), TargetTokens: 700}
	a, err := s.Summarize(context.Background(), req)
	require.NoError(t, err)
	b, err := s.Summarize(context.Background(), req)
	require.NoError(t, err)
	assert.Equal(t, a, b)
}

func TestFactsIndexIdentifierLineReadsBack(t *testing.T) {
	out, p := summarize(t, Request{Turns: []Message{
		tcall("1", "odd(tool), name", `{"a=b":"X1Y2Z3","order_id":"W1"}`), result("1", "ok"),
	}})
	assert.Contains(t, out, "- IDs: X1Y2Z3; order_id=W1\n")
	require.Len(t, p.facts.ids, 2)
	assert.Equal(t, idEntry{value: "X1Y2Z3"}, p.facts.ids[0], "an argument or tool name that would not read back is left out")
	assert.Equal(t, idEntry{value: "W1", key: "order_id"}, p.facts.ids[1])
}

// The Left out line counts one of a kind in the singular ("1 modified
// file"), and reads back both that and the plural summaries written
// before said for one ("1 modified files").
func TestTheLeftOutLineSaysOneInTheSingular(t *testing.T) {
	short, _ := summarize(t, Request{Turns: denseHistory(30), TargetTokens: 300})
	line := regexp.MustCompile(`(?m)^- ` + leftOutLabel + `.*$`)
	require.Regexp(t, line, short, "a short summary leaves something out")
	old := line.ReplaceAllString(short, "- "+leftOutLabel+"1 unresolved errors, 1 modified files, 1 identifiers, 1 last command, 2 read files")
	p, ok := parseExtractive(old)
	require.True(t, ok)
	assert.Equal(t, [numFactKinds]int{factUnresolved: 1, factModified: 1, factID: 1, factCommand: 1, factRead: 2}, p.facts.leftOut,
		"the old wording reads back")

	out, p := summarize(t, Request{PreviousSummary: old, TargetTokens: 100_000})
	assert.Contains(t, out, "\n- "+leftOutLabel+"1 unresolved error, 1 modified file, 1 identifier, 1 last command, 2 read files\n")
	assert.Equal(t, [numFactKinds]int{factUnresolved: 1, factModified: 1, factID: 1, factCommand: 1, factRead: 2}, p.facts.leftOut,
		"the new wording reads back")
}
