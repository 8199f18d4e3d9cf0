package compact

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/contextkit/compact/internal/msg"
	"github.com/contextkit/compact/internal/secrettest"
	"github.com/contextkit/compact/internal/textcut"
	"github.com/contextkit/compact/redact"
	openai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRenderTurnsLabels(t *testing.T) {
	named := user("hi")
	named.Name = "alice"
	refusal := Message{Role: RoleAssistant, Refusal: "I can't help with that."}
	legacy := Message{Role: RoleAssistant, FunctionCall: &openai.FunctionCall{Name: "lookup", Arguments: `{"q":"x"}`}}
	tests := []struct {
		name string
		msgs []Message
		want string
	}{
		{"plain exchange", []Message{sys("be brief"), user("fix the bug"), asst("done")},
			"[system]\nbe brief\n\n[user]\nfix the bug\n\n[assistant]\ndone"},
		{"developer and named user", []Message{{Role: msg.RoleDeveloper, Content: "d"}, named},
			"[developer]\nd\n\n[user (alice)]\nhi"},
		{"tool calls and their results", []Message{call("let me look", "c1", "bash", "c2", "read"), result("c1", "ok"), result("c2", "text")},
			"[assistant]\nlet me look\n[tool call c1] bash({\"arg\":\"c1\"})\n[tool call c2] read({\"arg\":\"c2\"})\n\n" +
				"[tool result c1 (bash)]\nok\n\n[tool result c2 (read)]\ntext"},
		{"results out of order", []Message{call("", "c1", "bash", "c2", "read"), result("c2", "b"), result("c1", "a")},
			"[assistant]\n[tool call c1] bash({\"arg\":\"c1\"})\n[tool call c2] read({\"arg\":\"c2\"})\n\n" +
				"[tool result c2 (read)]\nb\n\n[tool result c1 (bash)]\na"},
		{"an id reused by a later call pairs with the nearest", []Message{call("", "c1", "bash"), result("c1", "a"), call("", "c1", "read"), result("c1", "b")},
			"[assistant]\n[tool call c1] bash({\"arg\":\"c1\"})\n\n[tool result c1 (bash)]\na\n\n" +
				"[assistant]\n[tool call c1] read({\"arg\":\"c1\"})\n\n[tool result c1 (read)]\nb"},
		{"an id answered twice names only the first answer", []Message{call("", "c1", "bash"), result("c1", "a"), result("c1", "again")},
			"[assistant]\n[tool call c1] bash({\"arg\":\"c1\"})\n\n[tool result c1 (bash)]\na\n\n[tool result c1]\nagain"},
		{"a result after another turn started answers nothing", []Message{call("", "c1", "bash"), user("wait"), result("c1", "late")},
			"[assistant]\n[tool call c1] bash({\"arg\":\"c1\"})\n\n[user]\nwait\n\n[tool result c1]\nlate"},
		{"a result without an id", []Message{{Role: RoleTool, Content: "x"}}, "[tool result]\nx"},
		{"legacy function call and result", []Message{legacy, {Role: "function", Name: "lookup", Content: "found"}},
			"[assistant]\n[function call] lookup({\"q\":\"x\"})\n\n[function result (lookup)]\nfound"},
		{"refusal", []Message{refusal}, "[assistant]\n[refusal] I can't help with that."},
		{"empty turns", []Message{{Role: RoleAssistant}, user("  ")}, "[assistant]\n(empty)\n\n[user]\n(empty)"},
		{"missing role", []Message{{Content: "x"}}, "[unknown role]\nx"},
		{"images are placeholders", []Message{partsMsg(RoleUser, "look", "img:data:image/png;base64,iVBORw0KGgo=", "img:https://x.test/a.png")},
			"[user]\nlook\n[image: image/png, 34 bytes inline]\n[image: https://x.test/a.png]"},
		{"no turns", nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, RenderTurns(tt.msgs, RenderOptions{}))
		})
	}
}

func TestRenderTurnsReasoningIsOptIn(t *testing.T) {
	m := asst("the answer is 4")
	m.ReasoningContent = "2+2 is 4"
	assert.NotContains(t, RenderTurns([]Message{m}, RenderOptions{}), "2+2")
	assert.Equal(t, "[assistant]\nthe answer is 4\n[reasoning] 2+2 is 4", RenderTurns([]Message{m}, RenderOptions{Reasoning: true}))
}

func TestRenderTurnsCutsLongMessagesAtRuneBoundaries(t *testing.T) {
	for _, unit := range []string{"a", "é", "語", "🙂"} {
		t.Run(unit, func(t *testing.T) {
			text := "START" + strings.Repeat(unit, 10000) + "END"
			out := RenderTurns([]Message{result("c1", text)}, RenderOptions{MaxMessageChars: 300})
			body := strings.TrimPrefix(out, "[tool result c1]\n")
			require.True(t, utf8.ValidString(out))
			assert.LessOrEqual(t, utf8.RuneCountInString(body), 300)
			assert.True(t, strings.HasPrefix(body, "START"+strings.Repeat(unit, 50)), "head kept")
			assert.True(t, strings.HasSuffix(body, strings.Repeat(unit, 50)+"END"), "tail kept")
			kept := utf8.RuneCountInString(body) - utf8.RuneCountInString("\n[... 9999 characters cut ...]\n")
			cut := utf8.RuneCountInString(text) - kept
			assert.Contains(t, body, "\n[... "+itoa(cut)+" characters cut ...]\n")
			head := strings.Index(body, "\n[...")
			assert.InDelta(t, 0.6, float64(utf8.RuneCountInString(body[:head]))/float64(kept), 0.01, "head share")
		})
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

func TestRenderTurnsCutsAtALineBreakWhenNear(t *testing.T) {
	var lines []string
	for i := 0; i < 400; i++ {
		lines = append(lines, "line "+itoa(i)+" of the build log")
	}
	out := RenderTurns([]Message{result("c1", strings.Join(lines, "\n"))}, RenderOptions{MaxMessageChars: 1000})
	for _, l := range strings.Split(strings.TrimPrefix(out, "[tool result c1]\n"), "\n") {
		assert.True(t, strings.HasPrefix(l, "line ") && strings.HasSuffix(l, " of the build log") || strings.HasPrefix(l, "[... "),
			"a cut split a line: %q", l)
	}
}

func TestRenderTurnsShortensJSONArgumentsKeepingThemValid(t *testing.T) {
	content := strings.Repeat("func main() {\n\tfmt.Println(\"hello <world> & co\")\n}\n", 300)
	args, _ := json.Marshal(map[string]any{"path": "cmd/app/main.go", "content": content, "mode": 420})
	m := Message{Role: RoleAssistant, ToolCalls: []openai.ToolCall{{ID: "c1", Type: "function",
		Function: openai.FunctionCall{Name: "write_file", Arguments: string(args)}}}}

	out := RenderTurns([]Message{m}, RenderOptions{})
	prefix := "[assistant]\n[tool call c1] write_file("
	require.True(t, strings.HasPrefix(out, prefix) && strings.HasSuffix(out, ")"), out)
	shown := strings.TrimSuffix(strings.TrimPrefix(out, prefix), ")")
	assert.LessOrEqual(t, utf8.RuneCountInString(shown), defaultMaxArgumentChars)
	var got map[string]any
	require.NoError(t, json.Unmarshal([]byte(shown), &got), "shortened arguments are not JSON: %s", shown)
	assert.Equal(t, "cmd/app/main.go", got["path"])
	assert.Equal(t, 420.0, got["mode"])
	assert.True(t, strings.HasPrefix(got["content"].(string), "func main() {"))
	assert.Contains(t, got["content"], " characters cut ...]")
	assert.Contains(t, shown, "<world> & co", "HTML characters stay readable")
}

func TestShortenArguments(t *testing.T) {
	long := strings.Repeat("x", 3000)
	manyKeys := map[string]int{}
	for i := 0; i < 400; i++ {
		manyKeys["key_"+itoa(i)] = i
	}
	manyJSON, _ := json.Marshal(manyKeys)
	tests := []struct {
		name      string
		args      string
		limit     int
		wantValid bool // still JSON after shortening
	}{
		{"short arguments are kept", `{"a":1}`, 100, true},
		{"one long string", `{"cmd":"` + long + `"}`, 200, true},
		{"escapes count against the limit", `{"s":"` + strings.Repeat(`\"\n`, 2000) + `"}`, 300, true},
		{"several long strings share the room", `{"a":"` + long + `","b":"` + long + `","c":"short"}`, 400, true},
		{"too many keys falls back to head and tail", string(manyJSON), 300, false},
		{"not JSON", "rm -rf " + long, 200, false},
		{"no limit", long, -1, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := textcut.Arguments(tt.args, tt.limit, defaultHeadShare)
			if tt.limit >= 0 {
				assert.LessOrEqual(t, utf8.RuneCountInString(got), tt.limit)
			} else {
				assert.Equal(t, tt.args, got)
			}
			if tt.wantValid {
				assert.True(t, json.Valid([]byte(got)), "not JSON: %s", got)
			}
			if len(tt.args) <= tt.limit {
				assert.Equal(t, tt.args, got)
			}
		})
	}
}

func TestRenderTurnsRedacts(t *testing.T) {
	c := call("deploying with "+secrettest.FakeGitHub, "c1", "bash")
	c.ToolCalls[0].Function.Arguments = `{"command":"curl -H \"Authorization: Bearer s3cr3t-tok3n\" https://api.example.com"}`
	msgs := []Message{
		user("my key is " + secrettest.FakeOpenAIProj),
		c,
		result("c1", "export DB_PASSWORD=hunter2\n\x1b[32mOK\x1b[0m"),
	}
	out := RenderTurns(msgs, RenderOptions{})
	for _, secret := range []string{secrettest.FakeOpenAIProj[8:], secrettest.FakeGitHub[4:], "s3cr3t-tok3n", "hunter2", "\x1b"} {
		assert.NotContains(t, out, secret)
	}
	assert.Contains(t, out, `Authorization: Bearer [REDACTED]\"`)
	assert.Contains(t, out, "export DB_PASSWORD=[REDACTED]\nOK")

	custom := RenderTurns(msgs, RenderOptions{Redact: func(s string) string {
		return strings.ReplaceAll(redact.String(s), "api.example.com", "[HOST]")
	}})
	assert.Contains(t, custom, "[HOST]")
	assert.NotContains(t, custom, "hunter2")
	assert.NotContains(t, RenderTurns(msgs, RenderOptions{Redact: func(s string) string { return s + "\x07" }}), "\x07",
		"control characters are stripped after a custom redactor")
}

// capHistory is a long session: an ask, then many tool round trips, then a
// last exchange.
func capHistory(rounds int) []Message {
	msgs := []Message{sys("you are a coding agent"), user("ORIGINAL ASK: migrate the database")}
	for i := 0; i < rounds; i++ {
		id := "c" + itoa(i)
		msgs = append(msgs, call("step "+itoa(i), id, "bash"), result(id, strings.Repeat("output "+itoa(i)+" ", 100)))
	}
	return append(msgs, user("LATEST: also update the docs"), asst("FINAL: will do"))
}

func TestRenderTurnsCapKeepsTheAskAndTheNewestTurns(t *testing.T) {
	msgs := capHistory(200)
	before := Clone(msgs)
	full := RenderTurns(msgs, RenderOptions{MaxChars: -1})
	require.Greater(t, utf8.RuneCountInString(full), 20000)

	out := RenderTurns(msgs, RenderOptions{MaxChars: 20000})
	assert.LessOrEqual(t, utf8.RuneCountInString(out), 20000)
	assert.True(t, equalHistory(before, msgs), "input modified")
	assert.Contains(t, out, "[user]\nORIGINAL ASK: migrate the database")
	assert.True(t, strings.HasSuffix(out, "[user]\nLATEST: also update the docs\n\n[assistant]\nFINAL: will do"))
	assert.Equal(t, 1, strings.Count(out, " cut to fit ...]"), "one gap")
	// The gap is a contiguous run: blocks before it are a prefix of the
	// full rendering, blocks after it a suffix.
	gap := strings.Index(out, "[... ")
	end := gap + strings.Index(out[gap:], "]\n\n") + 3
	assert.True(t, strings.HasPrefix(full, out[:gap]))
	assert.True(t, strings.HasSuffix(full, out[end:]))
	assert.Contains(t, out[end:], "step 199", "the newest round trips are kept")
	assert.Contains(t, out[:gap], "step 0", "what follows the ask fills the room left")
}

func TestRenderTurnsCapEdgeCases(t *testing.T) {
	t.Run("a late ask keeps the ask and drops what came before", func(t *testing.T) {
		msgs := append([]Message{asst(strings.Repeat("preamble ", 500))}, capHistory(50)[1:]...)
		out := RenderTurns(msgs, RenderOptions{MaxChars: 5000})
		assert.LessOrEqual(t, utf8.RuneCountInString(out), 5000)
		assert.True(t, strings.HasPrefix(out, "[... 1 message ("), out[:100])
		assert.Contains(t, out, "ORIGINAL ASK")
		assert.Contains(t, out, "FINAL: will do")
	})
	t.Run("no user message keeps the newest", func(t *testing.T) {
		var msgs []Message
		for i := 0; i < 100; i++ {
			msgs = append(msgs, asst("note "+itoa(i)+" "+strings.Repeat("z", 100)))
		}
		out := RenderTurns(msgs, RenderOptions{MaxChars: 2000})
		assert.LessOrEqual(t, utf8.RuneCountInString(out), 2000)
		assert.Contains(t, out, "note 99 ")
		assert.NotContains(t, out, "note 0 ")
	})
	t.Run("an ask longer than the cap is cut to fit", func(t *testing.T) {
		msgs := []Message{user("ASK " + strings.Repeat("w", 5000)), asst("ok")}
		out := RenderTurns(msgs, RenderOptions{MaxMessageChars: -1, MaxChars: 1000})
		assert.LessOrEqual(t, utf8.RuneCountInString(out), 1000)
		assert.Contains(t, out, "[user]\nASK ")
	})
	t.Run("a tiny cap counts as the minimum", func(t *testing.T) {
		out := RenderTurns(capHistory(10), RenderOptions{MaxChars: 10})
		assert.LessOrEqual(t, utf8.RuneCountInString(out), minRenderChars)
		assert.Contains(t, out, "ORIGINAL ASK")
	})
}

func TestRenderOptionsDefaults(t *testing.T) {
	o := RenderOptions{}.withDefaults()
	assert.Equal(t, defaultMaxMessageChars, o.MaxMessageChars)
	assert.Equal(t, defaultHeadShare, o.HeadShare)
	assert.Equal(t, defaultMaxArgumentChars, o.MaxArgumentChars)
	assert.Equal(t, defaultMaxChars, o.MaxChars)
	assert.Equal(t, defaultHeadShare, RenderOptions{HeadShare: 1.5}.withDefaults().HeadShare)
	assert.Equal(t, -1, RenderOptions{MaxChars: -1}.withDefaults().MaxChars)
}

// Real transcripts render within the default cap, deterministically, with
// every tool result labelled by the tool that produced it.
func TestRenderTurnsOnTranscripts(t *testing.T) {
	all := allTranscripts(t)
	for _, name := range sortedNames(all) {
		msgs := all[name]
		t.Run(name, func(t *testing.T) {
			before := Clone(msgs)
			out := RenderTurns(msgs, RenderOptions{})
			assert.LessOrEqual(t, utf8.RuneCountInString(out), defaultMaxChars)
			assert.Equal(t, out, RenderTurns(msgs, RenderOptions{}))
			assert.True(t, equalHistory(before, msgs))
			assert.True(t, utf8.ValidString(out))
			names := toolNames(msgs)
			for i, m := range msgs {
				if m.Role == RoleTool && Validate(msgs[:i+1]) == nil {
					assert.NotEmpty(t, names[i], "message %d: a valid result must be named", i)
				}
			}
		})
	}
}
