package session

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/tokens"
)

// FuzzRecallTools calls the recall tools with any arguments: every answer
// is one JSON object within the budget, an error alone or an answer, and
// the host never gets an error from a store that works.
func FuzzRecallTools(f *testing.F) {
	const budget = 300
	s := newRecallSession(f, "fuzz", nil, WithToolBudget(budget))
	hist := agentHistory("fuzz", 20)
	hist = append(hist, user(strings.Repeat("long line ", 400)+"\n"+strings.Repeat("é", 300)))
	if err := s.Append(context.Background(), hist...); err != nil {
		f.Fatal(err)
	}
	if _, err := s.Compress(context.Background()); err != nil {
		f.Fatal(err)
	}
	tools := s.Tools()
	for _, seed := range []struct {
		tool uint8
		args string
	}{
		{0, `{"query":"undefined"}`}, {0, `{"query":"(?i)FAIL.*pkg1\\d","regex":true,"limit":3}`},
		{0, `{"query":"bash","tool":"bash","role":"assistant","cursor":"7"}`}, {0, `{"query":"é"}`},
		{1, `{"from":1,"to":100}`}, {1, `{"seq":[43,2,43]}`}, {1, `{"from":43,"cursor":"43:1000"}`},
		{2, ``}, {2, `{"cursor":"0"}`}, {0, `{"query":`}, {1, `{"from":5,"to":1}`}, {0, `{"query":"(a+)+$","regex":true}`},
		{1, `{"from":9223372036854775807}`}, {1, `{"seq":[9223372036854775807]}`}, {0, `{"query":".","regex":true,"cursor":"9223372036854775807"}`},
		{0, `{"query":"` + strings.Repeat("<", 1000) + `"}`}, {0, `{"query":"x","role":"` + strings.Repeat("é", 3000) + `"}`},
		{1, `{"from":43,"line":3}`}, {1, `{"seq":[43],"offset":2000}`},
	} {
		f.Add(seed.tool, seed.args)
	}
	f.Fuzz(func(t *testing.T, which uint8, args string) {
		tool := tools[int(which)%len(tools)]
		out, err := tool.Handle(context.Background(), args)
		if err != nil {
			t.Fatalf("%s(%q): the host got an error: %v", tool.Definition.Function.Name, args, err)
		}
		if err := checkAnswer(s.counter, budget, out); err != nil {
			t.Fatalf("%s(%q): %v", tool.Definition.Function.Name, args, err)
		}
	})
}

// checkAnswer reports how out breaks what every recall answer keeps: one
// JSON object, an error alone or an answer, within budget tokens by tc,
// written without HTML escaping.
func checkAnswer(tc tokens.Counter, budget int, out []byte) error {
	var ans map[string]any
	if err := json.Unmarshal(out, &ans); err != nil {
		return fmt.Errorf("not a JSON object: %v: %.200s", err, out)
	}
	if _, bad := ans["error"]; bad && len(ans) != 1 {
		return fmt.Errorf("an error answer holds more than the error: %.200s", out)
	}
	if n := tc.CountText(string(out)); n > budget {
		return fmt.Errorf("%d tokens, over the budget of %d", n, budget)
	}
	if strings.Contains(string(out), `\u003c`) || strings.Contains(string(out), `\u0026`) {
		return fmt.Errorf("written with HTML escaping: %.200s", out)
	}
	return nil
}

// FuzzRecallLine: whatever a summary says, the line added to it names the
// range given, replaces any line it had, and comes off cleanly.
func FuzzRecallLine(f *testing.F) {
	f.Add("## Errors\n- x", int64(1), int64(9))
	f.Add(recallLine(3, 4), int64(5), int64(70))
	f.Add("body\n\n"+recallLine(3, 4)+"\n", int64(2), int64(2))
	f.Add("", int64(1), int64(1))
	f.Fuzz(func(t *testing.T, body string, from, to int64) {
		if from < 0 || to < 0 {
			return
		}
		m := compact.Message{Role: compact.RoleUser, Content: compact.PrefixSummary(body)}
		with := addRecallLine(m, recallLine(from, to))
		f, tt, ok := parseRecallLine(with)
		if !ok || f != from || tt != to {
			t.Fatalf("parse(add(%q, %d, %d)) = %d, %d, %v", body, from, to, f, tt, ok)
		}
		again := addRecallLine(with, recallLine(to, from))
		if n := strings.Count(compact.Text(again), recallMark); n != strings.Count(compact.Text(m), recallMark)+1-countEndLine(m) {
			t.Fatalf("adding a line twice left %d lines:\n%s", n, compact.Text(again))
		}
		stripped, ok := stripRecallLine(with)
		if !ok || !compact.IsSummary(stripped) {
			t.Fatalf("strip(add(%q)) failed", body)
		}
		if _, _, still := parseRecallLine(stripped); still && countEndLine(m) == 0 {
			t.Fatalf("strip left a line at the end: %q", compact.Text(stripped))
		}
		if m.Content != with.Content && !strings.HasPrefix(with.Content, strings.TrimRight(stripped.Content, "\n")) {
			t.Fatalf("the summary changed beyond its last line:\n%q\n%q", m.Content, stripped.Content)
		}
	})
}

// countEndLine is 1 when m already ends with a recall line.
func countEndLine(m compact.Message) int {
	if _, _, ok := parseRecallLine(m); ok {
		return 1
	}
	return 0
}
