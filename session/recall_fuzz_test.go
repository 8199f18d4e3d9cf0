package session

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/internal/msgtest"
	"github.com/contextkit/compact/tokens"
	"github.com/stretchr/testify/require"
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
		name := tool.Definition.Function.Name
		require.NoError(t, err, "%s(%s): the host got an error", name, msgtest.Excerpt(args))
		require.NoError(t, checkAnswer(s.counter, budget, out), "%s(%s)", name, msgtest.Excerpt(args))
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
		require.True(t, ok && f == from && tt == to, "parse(add(%s, %d, %d)) = %d, %d, %v", msgtest.Excerpt(body), from, to, f, tt, ok)
		again := addRecallLine(with, recallLine(to, from))
		n := strings.Count(compact.Text(again), recallMark)
		require.Equal(t, strings.Count(compact.Text(m), recallMark)+1-countEndLine(m), n, "adding a line twice: %s", msgtest.Excerpt(compact.Text(again)))
		stripped, ok := stripRecallLine(with)
		require.True(t, ok && compact.IsSummary(stripped), "strip(add(%s)) failed", msgtest.Excerpt(body))
		_, _, still := parseRecallLine(stripped)
		require.False(t, still && countEndLine(m) == 0, "strip left a line at the end: %s", msgtest.Excerpt(compact.Text(stripped)))
		require.False(t, m.Content != with.Content && !strings.HasPrefix(with.Content, strings.TrimRight(stripped.Content, "\n")),
			"the summary changed beyond its last line: %s", msgtest.Difference(m.Content, stripped.Content))
	})
}

// countEndLine is 1 when m already ends with a recall line.
func countEndLine(m compact.Message) int {
	if _, _, ok := parseRecallLine(m); ok {
		return 1
	}
	return 0
}
