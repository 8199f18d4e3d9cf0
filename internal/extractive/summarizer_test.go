package extractive

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/contextkit/compact/internal/msg"
	"github.com/contextkit/compact/redact"
	openai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// option changes a Summarizer a test builds.
type option func(*Summarizer)

// withLimits sets the caps on each list.
func withLimits(l Limits) option { return func(s *Summarizer) { s.limits = l } }

// withCounter measures the summary with tc.
func withCounter(tc interface{ CountText(string) int }) option {
	return func(s *Summarizer) { s.count = tc.CountText }
}

// summarize runs a Summarizer with opts and reads its output back.
func summarize(t *testing.T, req Request, opts ...option) (string, parsedSummary) {
	t.Helper()
	s := New(Limits{}, nil)
	for _, opt := range opts {
		opt(s)
	}
	out, err := s.Summarize(context.Background(), req)
	require.NoError(t, err)
	p, ok := parseExtractive(out)
	require.True(t, ok, "output reads back as extractive:\n%s", out)
	return out, p
}

// tcall is an assistant turn making one tool call with JSON arguments.
func tcall(id, name, args string) Message {
	return Message{Role: msg.RoleAssistant, ToolCalls: []openai.ToolCall{{
		ID: id, Type: openai.ToolTypeFunction, Function: openai.FunctionCall{Name: name, Arguments: args}}}}
}

func TestExtractiveAsks(t *testing.T) {
	long := "Please fix the parser. " + strings.Repeat("Some detail. ", 400) + "The END marker."
	tests := []struct {
		name      string
		turns     []Message
		task      string
		requests  []string
		checkTask func(t *testing.T, task string)
	}{
		{"latest real user message is the task, earlier ones listed in order",
			[]Message{user("first ask"), asst("ok"), user("second\nask"), asst("ok"), user("third ask")},
			"third ask", []string{"first ask", "second ⏎ ask"}, nil},
		{"a standalone summary is no ask",
			[]Message{user("real ask"), asst("ok"), user(msg.PrefixSummary("old notes"))},
			"real ask", nil, nil},
		{"a summary merged before a user message leaves that message",
			[]Message{user(msg.MergedSummaryText("old notes") + msg.MergedSummarySep + "the user's words")},
			"the user's words", nil, nil},
		{"a long task keeps its head and tail",
			[]Message{user(long)}, "", nil, func(t *testing.T, task string) {
				assert.True(t, strings.HasPrefix(task, "Please fix the parser."))
				assert.True(t, strings.HasSuffix(task, "The END marker."))
				assert.Contains(t, task, strings.TrimSpace(shortenMark))
				assert.LessOrEqual(t, len(task), defaultLimits.TaskChars)
			}},
		{"a repeated ask is listed once, where it was last asked",
			[]Message{user("run the tests"), asst("ok"), user("fix it"), asst("ok"), user("run the tests"), asst("ok"), user("now ship")},
			"now ship", []string{"fix it", "run the tests"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, p := summarize(t, Request{Turns: tt.turns})
			if tt.checkTask != nil {
				tt.checkTask(t, p.blocks[secTask])
			} else {
				assert.Equal(t, tt.task, p.blocks[secTask])
			}
			assert.Equal(t, tt.requests, p.items[secRequests])
		})
	}
}

func TestExtractiveFiles(t *testing.T) {
	turns := []Message{
		user("fix internal/a.go please"),
		tcall("1", "str_replace_editor", `{"command":"view","path":"/repo/a.go"}`), result("1", "package a"),
		tcall("2", "str_replace_editor", `{"command":"str_replace","path":"/repo/a.go","old_str":"x","new_str":"y"}`), result("2", "edited"),
		tcall("3", "read_file", `{"path":"/repo/b.go"}`), result("3", "package b"),
		tcall("4", "bash", `{"command":"cat /repo/c.go && sed -i 's/a/b/' /repo/d.go"}`), result("4", "/repo/e.go:12:3: undefined: z"),
		tcall("5", "create", `{"filename":"reproduce.py"}`), result("5", "[File: /testbed/reproduce.py (1 lines total)]"),
		tcall("6", "insert", `{"text":"print(1)"}`), result("6", "[File: /testbed/reproduce.py (2 lines total)]"),
		asst("Done; see https://example.com/docs/x.go and e.g. v1.2.3 notes."),
	}
	_, p := summarize(t, Request{Turns: turns})
	assert.Equal(t, []string{"/repo/a.go", "/repo/d.go", "reproduce.py", "/testbed/reproduce.py"}, p.items[secModified],
		"a file read then edited is listed as modified only")
	assert.Equal(t, []string{"/repo/b.go", "/repo/c.go"}, p.items[secRead])
	assert.Equal(t, []string{"internal/a.go", "/repo/e.go"}, p.items[secReferenced],
		"prose mentions and located output; no URL, abbreviation or version")
}

// Issue 23: the index lists a path as it was written, ./ and all, so a
// reader finds it verbatim; ./x and x are one file, listed in the ./ form.
func TestExtractiveFilesKeepDotSlash(t *testing.T) {
	turns := []Message{
		user("style App.css and check src/index.js"),
		tcall("1", "read_file", `{"path":"./App.css"}`), result("1", "body {}"),
		tcall("2", "edit_file", `{"path":"src/index.js"}`), result("2", "edited"),
		tcall("3", "read_file", `{"path":"./src/index.js"}`), result("3", "import './App.css'"),
		tcall("4", "bash", `{"command":"cat ./package.json"}`), result("4", "{}"),
	}
	out, p := summarize(t, Request{Turns: turns})
	assert.Contains(t, out, "- Modified: ./src/index.js\n", "the facts index")
	assert.Contains(t, out, "- Read: ./App.css, ./package.json\n", "the facts index")
	assert.Equal(t, []string{"./src/index.js"}, p.items[secModified], "one file, in the form written whole")
	assert.Equal(t, []string{"./App.css", "./package.json"}, p.items[secRead], "the ./ a tool was given is kept")
	assert.NotContains(t, p.items[secReferenced], "App.css", "a mention of a file listed whole is not listed again")
}

func TestExtractiveCommands(t *testing.T) {
	var turns []Message
	outs := []string{"ok", "--- FAIL: TestX (0.00s)\nFAIL\nexit status 1", "Traceback (most recent call last):\n  File \"a\"\nKeyError: 1", "[Command finished with exit code 0]", "error: linker failed"}
	for i, out := range outs {
		id := fmt.Sprint(i)
		turns = append(turns, tcall(id, "execute_bash", fmt.Sprintf(`{"command":"step %d"}`, i)), result(id, out))
	}
	turns = append(turns, tcall("x", "get_weather", `{"city":"Oslo"}`), result("x", "Error: city service down"))
	_, p := summarize(t, Request{Turns: turns})
	assert.Equal(t, []string{"step 0", "step 1 → exit 1", "step 2 → Traceback", "step 3 → exit 0", "step 4 → error"}, p.items[secCommands])
	assert.Equal(t, []string{`get_weather({"city":"Oslo"}) → error`}, p.items[secCalls], "other tools are listed as calls")

	_, p = summarize(t, Request{Turns: turns}, withLimits(Limits{Commands: 2}))
	assert.Equal(t, []string{"step 3 → exit 0", "step 4 → error"}, p.items[secCommands], "over the cap the last commands stay, in order")
}

func TestExtractiveErrors(t *testing.T) {
	var turns []Message
	for i := 0; i < 6; i++ {
		id := fmt.Sprint(i)
		turns = append(turns, tcall(id, "bash", `{"command":"go build"}`), result(id, fmt.Sprintf("./main.go:%d:1: undefined: v%d\nerror: same line", i+1, i)))
	}
	_, p := summarize(t, Request{Turns: turns}, withLimits(Limits{Errors: 3}))
	assert.Equal(t, []string{"./main.go:5:1: undefined: v4", "./main.go:6:1: undefined: v5", "error: same line"}, p.items[secErrors],
		"deduplicated, capped, the most recent kept")
}

func TestExtractiveDecisionsStateAndPending(t *testing.T) {
	turns := []Message{
		user("make it faster"),
		asst("The root cause is a quadratic loop. I'll switch to a map instead."),
		tcall("1", "edit_file", `{"path":"a.go"}`), result("1", "ok"),
		asst("Switched to a map; the benchmark is 40x faster."),
		tcall("2", "bash", `{"command":"go test ./..."}`),
	}
	_, p := summarize(t, Request{Turns: turns})
	assert.Equal(t, []string{"The root cause is a quadratic loop.", "I'll switch to a map instead."}, p.items[secDecisions])
	assert.Equal(t, "Switched to a map; the benchmark is 40x faster.", p.blocks[secState])
	assert.Equal(t, []string{`bash({"command":"go test ./..."})`}, p.items[secPending])
}

func TestExtractiveFocusOutranksRecency(t *testing.T) {
	var turns []Message
	for i := 0; i < 6; i++ {
		id := fmt.Sprint(i)
		cmd := fmt.Sprintf("make step%d", i)
		if i == 0 {
			cmd = "make migrate-DATABASE"
		}
		turns = append(turns, tcall(id, "bash", `{"command":"`+cmd+`"}`), result(id, "done"))
	}
	out, p := summarize(t, Request{Turns: turns, Focus: "database"}, withLimits(Limits{Commands: 2}))
	assert.True(t, strings.HasPrefix(out, focusPrefix+"database\n"), "the focus is named at the top")
	assert.Equal(t, []string{"make migrate-DATABASE", "make step5"}, p.items[secCommands],
		"the turn mentioning the focus survives the cap, written in order")
}

func TestExtractiveMergesItsOwnPreviousSummary(t *testing.T) {
	first := []Message{
		user("port the parser"),
		tcall("1", "bash", `{"command":"go test ./parser"}`), result("1", "--- FAIL: TestParse (0.00s)"),
		tcall("2", "edit_file", `{"path":"parser.go"}`), result("2", "ok"),
		asst("Parser ported."),
	}
	prev, _ := summarize(t, Request{Turns: first})
	second := []Message{
		user("now the lexer"),
		tcall("3", "edit_file", `{"path":"lexer.go"}`), result("3", "ok"),
		tcall("4", "bash", `{"command":"go test ./parser"}`), result("4", "--- FAIL: TestParse (0.00s)"),
	}
	_, p := summarize(t, Request{Turns: second, PreviousSummary: prev})
	assert.Equal(t, "now the lexer", p.blocks[secTask])
	assert.Equal(t, []string{"port the parser"}, p.items[secRequests], "the previous task becomes an earlier request")
	assert.Equal(t, []string{"parser.go", "lexer.go"}, p.items[secModified], "old entries first, then new")
	assert.Equal(t, []string{"go test ./parser → FAIL"}, p.items[secCommands], "a repeat is listed once")
	assert.Equal(t, []string{"--- FAIL: TestParse (0.00s)"}, p.items[secErrors])
	assert.Equal(t, "Parser ported.", p.blocks[secState], "the state stands until the turns show a newer one")
	assert.Empty(t, p.blocks[secEarlier], "an extractive summary is merged, not quoted")

	again, _ := summarize(t, Request{PreviousSummary: prev})
	assert.Equal(t, prev, again, "with no turns the previous summary comes back as it was")
	prefixed, _ := summarize(t, Request{PreviousSummary: msg.PrefixSummary(prev)})
	assert.Equal(t, prev, prefixed, "a summary prefix is stripped before merging")
}

func TestExtractiveKeepsAForeignPreviousSummary(t *testing.T) {
	tests := []struct{ name, prev string }{
		{"other headings", "## Progress\n- parser done"},
		{"plain prose", "We shipped v1; v2 is next."},
		{"a model's note under the same headings", "## Task\nShip v2.\n\n## Relevant files\n- a.go — the parser"},
		{"a model's None.", "## Goal\nNone.\n\n## Errors\n- none"},
		{"an entry under a quoted heading", "## Task\n- ship v2"},
		{"a focus line that is not first", "## Task\n> x\nFocus: y"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, p := summarize(t, Request{Turns: []Message{user("next: docs")}, PreviousSummary: tt.prev})
			assert.Equal(t, tt.prev, p.blocks[secEarlier], "kept verbatim")
			assert.Equal(t, "next: docs", p.blocks[secTask])
		})
	}

	long := strings.Repeat("word ", 3000) + "LAST"
	_, p := summarize(t, Request{Turns: []Message{user("go on")}, PreviousSummary: long})
	assert.LessOrEqual(t, len(p.blocks[secEarlier]), defaultLimits.EarlierChars)
	assert.True(t, strings.HasSuffix(p.blocks[secEarlier], "LAST"), "shortened head and tail")
}

func TestParseExtractiveReadsEntriesBack(t *testing.T) {
	s := "Focus: db\n\n## Task\n> fix it\n>\n> now\n\n## Completed actions\n- go test ./... → exit 1\n" +
		"- get_user({\"id\":1}) → error\n\n## Relevant files\n- a.go (modified)\n- b.go (read)\n- c.go (referenced)\n- d.go\n\n" +
		"## Next steps\n- Wait for the result of bash({})\n"
	p, ok := parseExtractive(s)
	require.True(t, ok)
	assert.Equal(t, "fix it\n\nnow", p.blocks[secTask])
	assert.Equal(t, []string{"go test ./... → exit 1"}, p.items[secCommands])
	assert.Equal(t, []string{`get_user({"id":1}) → error`}, p.items[secCalls])
	assert.Equal(t, []string{"a.go"}, p.items[secModified])
	assert.Equal(t, []string{"b.go"}, p.items[secRead])
	assert.Equal(t, []string{"c.go", "d.go"}, p.items[secReferenced], "a path with no role is referenced")
	assert.Equal(t, []string{"bash({})"}, p.items[secPending])
}

// bigHistory is a coding history far over any small target.
func bigHistory(n int) []Message {
	turns := []Message{user("refactor everything")}
	for i := 0; i < n; i++ {
		id := fmt.Sprint(i)
		turns = append(turns,
			asst(fmt.Sprintf("I'll look at pkg/mod%d/file%d.go next because it is slow when the input is large and the cache is cold.", i, i)),
			tcall(id, "bash", fmt.Sprintf(`{"command":"go test -run 'TestMod%d/with_a_long_name' ./pkg/mod%d/... && cat pkg/mod%d/f.go"}`, i, i, i)),
			result(id, fmt.Sprintf("--- FAIL: TestMod%d/with_a_long_name (0.00s)\n    f_test.go:%d: Parse(%q) = %d, want an error for empty input\nexit status 1", i, i, "input", i)))
	}
	return turns
}

func TestExtractiveHonoursTheTarget(t *testing.T) {
	turns := bigHistory(200)
	s := New(Limits{}, nil)
	full, err := s.Summarize(context.Background(), Request{Turns: turns, TargetTokens: 100000})
	require.NoError(t, err)
	require.Greater(t, (len(full)+3)/4, 1000, "the capped lists alone exceed the smaller targets")
	for _, target := range []int{minTarget, 700, 1000} {
		out, err := s.Summarize(context.Background(), Request{Turns: turns, TargetTokens: target})
		require.NoError(t, err)
		assert.LessOrEqual(t, (len(out)+3)/4, target, "target %d", target)
		p, _ := parseExtractive(out)
		assert.Equal(t, "refactor everything", p.blocks[secTask], "the task survives trimming")
		if cmds := p.items[secCommands]; assert.NotEmpty(t, cmds, "target %d", target) {
			assert.Contains(t, cmds[len(cmds)-1], "mod199", "the newest entries survive")
		}
	}
	tiny, err := s.Summarize(context.Background(), Request{Turns: turns, TargetTokens: 10})
	require.NoError(t, err)
	assert.LessOrEqual(t, (len(tiny)+3)/4, minTarget, "a tiny target is raised to the minimum")
}

func TestExtractiveTrimsMentionsBeforeFacts(t *testing.T) {
	turns := []Message{user("go")}
	for i := 0; i < 25; i++ {
		turns = append(turns, asst(fmt.Sprintf("Looking at docs/a/rather/long/directory/name/for/this/test/and/then/some/more/directories/below/it/page%02d.md for context.", i)))
	}
	turns = append(turns, tcall("1", "bash", `{"command":"make build"}`), result("1", "Error: out of disk"))
	_, p := summarize(t, Request{Turns: turns, TargetTokens: minTarget},
		withLimits(Limits{TaskChars: 1, StateChars: 1}))
	assert.Equal(t, []string{"make build → error"}, p.items[secCommands])
	assert.Equal(t, []string{"Error: out of disk"}, p.items[secErrors])
	assert.Less(t, len(p.items[secReferenced]), 25, "mentions are trimmed first")
}

func TestExtractiveWithCounter(t *testing.T) {
	turns := bigHistory(50)
	perByte := counterFunc(func(s string) int { return len(s) })
	out, _ := summarize(t, Request{Turns: turns, TargetTokens: 3000}, withCounter(perByte))
	assert.LessOrEqual(t, len(out), 3000, "measured with the given counter")
}

type counterFunc func(string) int

func (f counterFunc) CountText(s string) int { return f(s) }

func (f counterFunc) CountMessage(m Message) int { return f(msg.Text(m)) }

func TestExtractiveListCanBeTurnedOff(t *testing.T) {
	_, p := summarize(t, Request{Turns: bigHistory(3)}, withLimits(Limits{Decisions: -1, Commands: -1}))
	assert.Empty(t, p.items[secDecisions])
	assert.Empty(t, p.items[secCommands])
	assert.NotEmpty(t, p.items[secErrors])
}

func TestExtractiveRedacts(t *testing.T) {
	key := "sk-" + strings.Repeat("A1b2", 8)
	turns := []Message{
		user("deploy with token " + key),
		tcall("1", "bash", `{"command":"curl -H 'Authorization: Bearer abcdefgh12345678' https://u:hunter22@api.test/x"}`),
		result("1", "Error: key "+key+" rejected"),
		asst("I'll rotate " + key + " because it leaked."),
	}
	out, _ := summarize(t, Request{Turns: turns, Focus: key, PreviousSummary: "old notes with " + key})
	for _, secret := range []string{key, "abcdefgh12345678", "hunter22"} {
		assert.NotContains(t, out, secret)
	}
	assert.Contains(t, out, redact.Marker)
}

func TestExtractiveErrorsAndLastResort(t *testing.T) {
	s := New(Limits{}, nil)
	_, err := s.Summarize(context.Background(), Request{})
	assert.ErrorIs(t, err, ErrNothing)
	_, err = s.Summarize(context.Background(), Request{PreviousSummary: " \n "})
	assert.ErrorIs(t, err, ErrNothing, "a blank previous summary is nothing")

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = s.Summarize(ctx, Request{Turns: []Message{user("x")}})
	assert.True(t, errors.Is(err, context.Canceled))

	var long []Message
	for i := 0; i < 1000; i++ {
		long = append(long, user("more"))
	}
	_, err = s.Summarize(&cancelAfter{Context: context.Background(), checks: 2}, Request{Turns: long})
	assert.ErrorIs(t, err, context.Canceled, "a long scan checks ctx as it goes")
	assert.ErrorContains(t, err, "message 256", "checked at the start, then every ctxCheckEvery turns")

	out, err := s.Summarize(context.Background(), Request{Turns: []Message{{Role: msg.RoleAssistant}, result("z", "")}})
	require.NoError(t, err)
	assert.Contains(t, out, "2 earlier messages", "turns with nothing to keep still get a summary")
}

func TestExtractiveRedactsSecretsAtTheCuts(t *testing.T) {
	key := "sk-" + strings.Repeat("Zq9", 10)
	pem := "-----BEGIN RSA PRIVATE KEY-----\n" + strings.Repeat("MIIEowIBAAKCAQEAx\n", 200) + "-----END RSA PRIVATE KEY-----"
	filler := strings.Repeat("lorem ipsum dolor ", 2000)
	asks := []string{
		"head key " + key + filler + "tail",
		filler + " a key near the end " + key + " end",
		"a key block opens in the head " + pem + filler,
		filler + pem + " and the ask ends right after the block",
		filler[:2500] + key + filler, // around the head window's edge
	}
	for i, ask := range asks {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			// The ask is both the task (a quoted block) and, followed by
			// another ask, an earlier request (a list entry).
			for _, turns := range [][]Message{{user(ask)}, {user(ask), asst("ok"), user("next")}} {
				out, _ := summarize(t, Request{Turns: turns})
				assert.NotContains(t, out, key)
				assert.NotContains(t, out, "MIIEowIBAAKCAQEAx")
			}
		})
	}
}

// cancelAfter is a context that reports cancellation from its checks+1th
// Err call on, so a test can cancel in the middle of a scan.
type cancelAfter struct {
	context.Context
	checks int
}

func (c *cancelAfter) Err() error {
	if c.checks--; c.checks < 0 {
		return context.Canceled
	}
	return nil
}

func TestExtractiveTrimmingSharesTheRoom(t *testing.T) {
	var turns []Message
	for i := 0; i < 20; i++ {
		id := fmt.Sprint(i)
		turns = append(turns,
			user(fmt.Sprintf("request %d: %s", i, strings.Repeat("a long and detailed ask ", 12))),
			tcall(id, "bash", `{"command":"make"}`), result(id, fmt.Sprintf("Error: failure number %d", i)))
	}
	_, p := summarize(t, Request{Turns: turns, TargetTokens: 600})
	assert.Less(t, len(p.items[secRequests]), defaultLimits.Requests, "the long requests are trimmed")
	assert.Equal(t, defaultLimits.Errors, len(p.items[secErrors]), "the short error lines keep their room")
	assert.Equal(t, "Error: failure number 19", p.items[secErrors][len(p.items[secErrors])-1])
}

func TestExtractiveIsDeterministicAndLeavesItsInputAlone(t *testing.T) {
	s := New(Limits{}, nil)
	all := allTranscripts(t)
	for _, name := range sortedNames(all) {
		msgs := all[name]
		t.Run(name, func(t *testing.T) {
			before := msg.Clone(msgs)
			req := Request{Turns: msgs, Focus: "test", TargetTokens: 1500}
			a, err := s.Summarize(context.Background(), req)
			require.NoError(t, err)
			b, err := s.Summarize(context.Background(), req)
			require.NoError(t, err)
			assert.Equal(t, a, b)
			assert.True(t, equalHistory(before, msgs), "turns unchanged")
			assert.LessOrEqual(t, (len(a)+3)/4, 1500)
		})
	}
}

func TestTheZeroSummarizerWorks(t *testing.T) {
	var zero Summarizer
	out, err := zero.Summarize(context.Background(), Request{Turns: []Message{user("hi")}})
	require.NoError(t, err)
	assert.Equal(t, "## Task\n> hi", out)
}

// The summary of turns with nothing to keep counts one message, and one
// tool result, in the singular.
func TestTheLastResortSaysOneInTheSingular(t *testing.T) {
	one := lastResort(&digest{turns: 1, roles: [4]int{0, 0, 1, 0}})
	assert.Contains(t, one, "> 1 earlier message (0 from the user, 0 from the assistant, 1 tool result, 0 other) was condensed;")
	three := lastResort(&digest{turns: 3, roles: [4]int{1, 1, 0, 1}})
	assert.Contains(t, three, "> 3 earlier messages (1 from the user, 1 from the assistant, 0 tool results, 1 other) were condensed;")
}
