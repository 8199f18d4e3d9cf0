package compact

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/contextkit/compact/handoff"
	"github.com/contextkit/compact/internal/msgtest"
	"github.com/contextkit/compact/internal/secrettest"
	"github.com/stretchr/testify/require"
)

// FuzzSecretsInArguments: a secret of any generated shape, planted anywhere
// in a tool call's JSON arguments or a tool's JSON output (a shell command,
// an array, under a name that says secret, JSON inside a string, a line of
// output), beside whatever else the arguments hold, survives in nothing
// that leaves the process: what RenderTurns lays out (with any argument
// cap, so shortening after redaction cannot cut a secret loose), the
// summarizer prompt, the extractive summary and a handoff packet.
func FuzzSecretsInArguments(f *testing.F) {
	f.Add(`{"path": "a.go"}`, uint8(0), uint8(0), []byte("seed"), uint16(0))
	f.Add(`[1, {"a": [true, null, "x"]}]`, uint8(3), uint8(1), []byte{1, 2}, uint16(60))
	f.Add(`not json`, uint8(21), uint8(4), []byte{9}, uint16(300))
	for i := range secrettest.Makers {
		f.Add(`{"cwd": "/srv"}`, uint8(i), uint8(i), []byte{byte(i), 7}, uint16(i*40))
	}
	ctx := context.Background()
	f.Fuzz(func(t *testing.T, doc string, kind, where uint8, seed []byte, maxArgs uint16) {
		secret, core := secrettest.Makers[int(kind)%len(secrettest.Makers)](seed)
		args := plantInJSON(doc, secret, where)
		msgs := []Message{
			sys("s"), user("go"),
			toolCall("c1", "bash", args), result("c1", "ok"),
			toolCall("c2", "http_request", `{"url": "https://example.com"}`), result("c2", args),
			asst("done"), user("next"),
		}
		req := SummaryRequest{Turns: msgs, TargetTokens: 800}
		summary, err := NewExtractiveSummarizer(nil).Summarize(ctx, req)
		require.NoError(t, err)
		_, material := SummaryPrompt(req)
		emitted := map[string]string{
			"RenderTurns":        RenderTurns(msgs, RenderOptions{MaxArgumentChars: int(maxArgs) - 1}),
			"SummaryPrompt":      material,
			"extractive summary": summary,
			"handoff.Build":      handoff.Build(handoff.Input{Messages: msgs, Summary: summary}),
		}
		escaped := jsonEscape(core)
		for name, out := range emitted {
			for _, c := range []string{core, escaped} {
				require.LessOrEqual(t, strings.Count(out, c), strings.Count(doc, c), "%s: secret %s (planted at %d) survived in %s",
					name, msgtest.Excerpt(c), where%6, msgtest.Around(out, c))
			}
		}
	})
}

// plantInJSON returns JSON arguments holding secret at a place where
// selects, beside doc (as a string when doc is not JSON).
func plantInJSON(doc, secret string, where uint8) string {
	other := msgtest.JSONString(doc)
	if json.Valid([]byte(doc)) {
		other = doc
	}
	switch where % 6 {
	case 0:
		return `{"command": ` + msgtest.JSONString("cd /srv && "+secret) + `, "other": ` + other + `}`
	case 1:
		return `[` + other + `, ` + msgtest.JSONString(secret) + `]`
	case 2:
		return `{"env": {"API_TOKEN": ` + msgtest.JSONString(secret) + `}, "other": ` + other + `}`
	case 3:
		return `{"payload": ` + msgtest.JSONString(`{"input": `+msgtest.JSONString(secret)+`}`) + `, "other": ` + other + `}`
	case 4:
		return `{"stdout": ` + msgtest.JSONString("line one\n"+secret+"\nline three") + `, "exit": 0, "other": ` + other + `}`
	}
	return `{"args": ["--verbose", ` + msgtest.JSONString(secret) + `], "other": ` + other + `}`
}

// jsonEscape is s as it reads inside a JSON string literal.
func jsonEscape(s string) string {
	q := msgtest.JSONString(s)
	return q[1 : len(q)-1]
}
