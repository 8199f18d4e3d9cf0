package prune

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/contextkit/compact/internal/msg"
	"github.com/contextkit/compact/internal/msgtest"
	"github.com/contextkit/compact/tokens"
	openai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// changedIndexes lists the indexes a result reports, in order.
func changedIndexes(res *Result) []int {
	var out []int
	for _, c := range res.Changes {
		out = append(out, c.Index)
	}
	return out
}

// Old tool results become one-line stand-ins that keep the call's id and
// say what ran, how it ended and how big it was; the last few tool uses
// and the protected tail stay.
func TestPruneMasksOldToolResults(t *testing.T) {
	in := agentRun(6) // results at 3, 5, 7, 9, 11, 13; the tail starts at 10
	before := msg.Clone(in)
	res := Apply(in, WithClearAtLeast(0))
	require.NoError(t, checkPrune(in, res, WithClearAtLeast(0)))
	assert.True(t, reflect.DeepEqual(before, in), "input unchanged")
	assert.Equal(t, []int{3, 5, 7}, changedIndexes(res), "uses 3, 4 and 5 are the last three")
	for _, c := range res.Changes {
		assert.Equal(t, Masked, c.Kind)
		assert.Equal(t, "bash", c.Tool)
		assert.Equal(t, in[c.Index].ToolCallID, c.ToolCallID)
	}
	m := res.Messages[5]
	assert.Equal(t, msg.RoleTool, m.Role)
	assert.Equal(t, "call_1", m.ToolCallID)
	assert.Equal(t, "[pruned] Output of bash (command: go test ./pkg/store -run Test1) removed to save space "+
		"(exit status 1, 26 lines, 1106 bytes). Call the tool again if you need it.", m.Content)
	assert.Len(t, in[5].Content, 1106)
	assert.True(t, isPruned(m))
	assert.Equal(t, in[4], res.Messages[4], "the call stays")
	assert.Equal(t, res.TokensBefore-res.TokensAfter, res.Reclaimable)
}

func TestPruneKeepToolUses(t *testing.T) {
	for _, tt := range []struct {
		keep int
		want []int
	}{
		{0, []int{3, 5, 7, 9}}, // 11 and 13 are in the tail
		{1, []int{3, 5, 7, 9}},
		{2, []int{3, 5, 7, 9}},
		{3, []int{3, 5, 7}},
		{5, []int{3}},
		{6, nil},
	} {
		t.Run(fmt.Sprint("keep ", tt.keep), func(t *testing.T) {
			opts := []Option{WithKeepToolUses(tt.keep), WithClearAtLeast(0)}
			res := Apply(agentRun(6), opts...)
			require.NoError(t, checkPrune(agentRun(6), res, opts...))
			assert.Equal(t, tt.want, changedIndexes(res))
		})
	}
}

// What a stand-in says about the call: the tool, its key arguments (or
// the arguments themselves), and what a rule describes.
func TestPruneDescribesTheCall(t *testing.T) {
	out := shellOutput("x", 30, 2)
	tests := []struct {
		name  string
		args  string
		tool  string
		rules []ToolRule
		want  string
	}{
		{"command", `{"command":"ls -la /repo"}`, "bash", nil, "bash (command: ls -la /repo)"},
		{"two key arguments", `{"command":"view","path":"/src/a.go","view_range":[1,50]}`, "str_replace_editor", nil,
			"str_replace_editor (command: view, path: /src/a.go)"},
		{"multi-line code on one line", `{"code":"import os\n\tprint(os.getcwd())"}`, "run_ipython", nil,
			"run_ipython (code: import os ⏎ print(os.getcwd()))"},
		{"no key argument: the arguments", `{"reservation_id": "JG7FMM"}`, "get_reservation_details", nil,
			`get_reservation_details ({"reservation_id": "JG7FMM"})`},
		{"no arguments", `{}`, "list_files", nil, "list_files"},
		{"not JSON", `ls -la`, "shell", nil, "shell (ls -la)"},
		{"a number", `{"query": 42}`, "lookup", nil, "lookup (query: 42)"},
		{"long value clipped", `{"path":"` + strings.Repeat("a", 150) + `"}`, "read", nil,
			"read (path: " + strings.Repeat("a", 97) + "...)"},
		{"rule: key arguments", `{"origin":"JFK","destination":"SFO","date":"2024-05-16"}`, "search_direct_flight",
			[]ToolRule{{Name: "search_direct_flight", KeyArgs: []string{"origin", "destination"}}},
			"search_direct_flight (origin: JFK, destination: SFO)"},
		{"rule: describe", `{"city":"Paris"}`, "weather",
			[]ToolRule{{Name: "weather", Describe: func(args map[string]any, result string) string {
				return fmt.Sprintf("the weather\nin %v (%d bytes)", args["city"], len(result))
			}}}, fmt.Sprintf("the weather ⏎ in Paris (%d bytes)", len(out))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := append([]Message{user("go")}, toolRound("c1", tt.tool, tt.args, out)...)
			in = append(in, asst("a"), user("b"), asst("c"), user("d"), asst("e"))
			res := Apply(in, WithKeepToolUses(0), WithClearAtLeast(0), WithToolRules(tt.rules...))
			require.Equal(t, []int{2}, changedIndexes(res))
			assert.Equal(t, "[pruned] Output of "+tt.want+" removed to save space (exit status 2, 31 lines, "+
				fmt.Sprint(len(out))+" bytes). Call the tool again if you need it.", res.Messages[2].Content)
		})
	}
	t.Run("result answering no call", func(t *testing.T) {
		in := []Message{user("go"), result("orphan_1", out), asst("a"), user("b"), asst("c"), user("d"), asst("e")}
		res := Apply(in, WithKeepToolUses(0), WithClearAtLeast(0))
		require.Equal(t, []int{1}, changedIndexes(res))
		assert.Contains(t, res.Messages[1].Content, "Output of tool call orphan_1 removed")
	})
}

func TestExitStatus(t *testing.T) {
	long := strings.Repeat("some output line\n", 100)
	tests := []struct{ out, want string }{
		{"ok\nexit status 1", "1"},
		{"FAIL\nexit code: 2", "2"},
		{"Exit code 127", "127"},
		{"[Command finished with exit code 0]", "0"},
		{"...\n[The command completed with exit code 1.]\n[Current working directory: /w]", "1"},
		{"Process exited with code 137", "137"},
		{`{"returncode": 3, "stdout": ""}`, "3"},
		{"returncode=4", "4"},
		{`{"exit_code": -1, "output": "` + long + `"}`, "-1"},
		{"[exit 5]", "5"},
		{"Hello///PROCESS-DONE:0:PROCESS-DONE///\n(Open file: n/a)\nbash-$", "0"},
		{"first exit code 1 then\nexit code 0", "0"},
		{long + "exit code 9 mentioned far from either end" + long, ""},
		{"no status here", ""},
		{"nonexit code 1", ""},
		{"EXIT STATUS 4", "4"},
		{"[exit 6] [exit 7]", "7"},
		{"exit codes are documented", ""},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, exitStatusOf(tt.out), "%.60q", tt.out)
	}
}

func TestResultSize(t *testing.T) {
	assert.Equal(t, "0 lines, 0 bytes", resultSize(""))
	assert.Equal(t, "1 line, 2 bytes", resultSize("ok"))
	assert.Equal(t, "2 lines, 4 bytes", resultSize("a\nb\n"))
	assert.Equal(t, "2 lines, 3 bytes", resultSize("a\nb"))
}

// A result identical to a newer one that stays becomes a back-reference to
// it; identical results that are both masked are both masked, so a
// back-reference never points at a stand-in.
func TestPruneDeduplicates(t *testing.T) {
	same := shellOutput("status", 20, 0)
	other := shellOutput("other", 20, 0)
	var in []Message
	in = append(in, sys("s"), user("task"))
	in = append(in, bashRound("a", "git status", same)...)  // 3: same as "d", which stays
	in = append(in, bashRound("b", "git log", other)...)    // 5: same as "c", masked too
	in = append(in, bashRound("c", "git log", other)...)    // 7: masked
	in = append(in, bashRound("d", "git status", same)...)  // 9: kept (recent)
	in = append(in, bashRound("e", "go vet", "vet ok")...)  // 11
	in = append(in, bashRound("f", "go build", "built")...) // 13
	in = append(in, asst("done"))

	res := Apply(in, WithClearAtLeast(0))
	require.NoError(t, checkPrune(in, res, WithClearAtLeast(0)))
	require.Equal(t, []int{3, 5, 7}, changedIndexes(res))
	assert.Equal(t, Deduplicated, res.Changes[0].Kind)
	assert.Equal(t, "[pruned] Output of bash (command: git status) removed: identical to the result of d "+
		"further down (21 lines, 891 bytes).", res.Messages[3].Content)
	assert.Len(t, same, 891)
	assert.Equal(t, Masked, res.Changes[1].Kind)
	assert.Equal(t, Masked, res.Changes[2].Kind)

	// Without masking, c's result stays, so b's refers to it.
	only := Apply(in, WithClearAtLeast(0), WithKinds(Deduplicated))
	require.NoError(t, checkPrune(in, only, WithClearAtLeast(0), WithKinds(Deduplicated)))
	assert.Equal(t, []int{3, 5}, changedIndexes(only))
	assert.Contains(t, only.Messages[5].Content, "identical to the result of c further down")
}

// Tools marked NeverMask keep their results whole, whatever their age.
func TestPruneNeverMask(t *testing.T) {
	in := agentRun(6)
	in[5] = result("call_1", in[5].Content)
	in[4].ToolCalls[0].Function.Name = "todo"
	opts := []Option{WithClearAtLeast(0), WithToolRules(ToolRule{Name: "todo", NeverMask: true})}
	res := Apply(in, opts...)
	require.NoError(t, checkPrune(in, res, opts...))
	assert.Equal(t, []int{3, 7}, changedIndexes(res))
}

// The system prompt, summaries, the latest real user message, a pending
// group at the end and messages outside the range are never touched.
func TestPruneLeavesProtectedMessagesAlone(t *testing.T) {
	big := shellOutput("x", 40, 0)
	img := partsMsg(msg.RoleUser, "look", "img:https://example.com/a.png")
	in := []Message{
		sys(big), // 0 system
		{Role: msg.RoleUser, Content: msg.PrefixSummary(big)}, // 1 summary
		asst("ok"), // 2
		img,        // 3 latest real user, with an image
	}
	in = append(in, bashRound("a", "cat a", big)...)                               // 4, 5
	in = append(in, bashRound("b", "cat b", big)...)                               // 6, 7
	in = append(in, Message{Role: msg.RoleAssistant, ToolCalls: []openai.ToolCall{ // 8: pending
		{ID: "p1", Type: openai.ToolTypeFunction, Function: openai.FunctionCall{Name: "bash", Arguments: `{"command":"x"}`}},
		{ID: "p2", Type: openai.ToolTypeFunction, Function: openai.FunctionCall{Name: "bash", Arguments: `{"command":"y"}`}},
	}}, result("p1", big)) // 9: a result of the pending group
	require.NoError(t, msg.Validate(in))

	opts := []Option{WithKeepToolUses(0), WithClearAtLeast(0), WithRange(0, len(in))}
	res := Apply(in, opts...)
	require.NoError(t, checkPrune(in, res, opts...))
	assert.Equal(t, []int{5, 7}, changedIndexes(res))

	opts = []Option{WithKeepToolUses(0), WithClearAtLeast(0), WithRange(6, 8)}
	res = Apply(in, opts...)
	assert.Equal(t, []int{7}, changedIndexes(res), "only the range")
}

// Long arguments of old calls are shortened; JSON stays JSON with every key
// and every other value as it was.
func TestPruneArguments(t *testing.T) {
	long := strings.Repeat("line of a file with \"quotes\", tabs\t and ünïcödé\n", 80)
	tests := []struct {
		name, args string
		changed    bool
		check      func(t *testing.T, got string)
	}{
		{"short arguments stay", `{"path":"a.go","file_text":"package a"}`, false, nil},
		{"a long JSON value is cut in its middle", `{"path": "a.go", "n": 1.50, "file_text": ` + msgtest.JSONString(long) + `}`, true,
			func(t *testing.T, got string) {
				require.True(t, json.Valid([]byte(got)))
				assert.True(t, strings.HasPrefix(got, `{"path": "a.go", "n": 1.50, "file_text": "line of a file`), "untouched bytes stay: %.80s", got)
				var v map[string]any
				require.NoError(t, json.Unmarshal([]byte(got), &v))
				assert.Contains(t, v["file_text"], "characters cut")
				assert.LessOrEqual(t, len([]rune(msgtest.JSONString(v["file_text"].(string)))), minArgValueChars)
			}},
		{"nested values and long keys", `{"edits":[{"old":` + msgtest.JSONString(long) + `,"new":` + msgtest.JSONString(long) + `}],` +
			msgtest.JSONString(strings.Repeat("k", 300)) + `:1}`, true,
			func(t *testing.T, got string) {
				require.True(t, json.Valid([]byte(got)))
				assert.Contains(t, got, strings.Repeat("k", 300), "keys are never cut")
				assert.Less(t, len(got), 600)
			}},
		{"not JSON: head and tail around a marker", "patch <<EOF\n" + long + "EOF", true,
			func(t *testing.T, got string) {
				assert.LessOrEqual(t, len([]rune(got)), 100)
				assert.True(t, strings.HasPrefix(got, "patch <<EOF"))
				assert.True(t, strings.HasSuffix(got, "EOF"))
				assert.Contains(t, got, "characters cut")
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := append([]Message{user("go")}, toolRound("c1", "write", tt.args, "done")...)
			in = append(in, toolRound("c2", "write", tt.args, "done")...)
			in = append(in, asst("a"), user("b"), asst("c"), user("d"), asst("e"))
			opts := []Option{WithKeepToolUses(1), WithClearAtLeast(0), WithArgumentChars(100)}
			res := Apply(in, opts...)
			require.NoError(t, checkPrune(in, res, opts...))
			if !tt.changed {
				assert.Empty(t, res.Changes)
				return
			}
			require.Equal(t, []int{1}, changedIndexes(res), "the kept use (c2) keeps its arguments")
			assert.Equal(t, ArgumentsShortened, res.Changes[0].Kind)
			assert.Equal(t, "c1", res.Changes[0].ToolCallID)
			tt.check(t, res.Messages[1].ToolCalls[0].Function.Arguments)
		})
	}
}

// Images older than the newest message with an image become notes; the
// newest keeps its image.
func TestPruneImages(t *testing.T) {
	in := []Message{
		sys("s"),
		partsMsg(msg.RoleUser, "first screenshot", "img:https://example.com/1.png"), // 1
		asst("I see a login form."),
		partsMsg(msg.RoleUser, "img:data:image/png;base64,"+strings.Repeat("A", 400)), // 3
		asst("A dashboard."),
		partsMsg(msg.RoleUser, "and now?", "img:https://example.com/3.png"), // 5: newest image
		asst("An error page."),
		user("thanks"), // 7: latest real user
		asst("welcome"),
	}
	opts := []Option{WithClearAtLeast(0), WithRange(0, len(in))}
	res := Apply(in, opts...)
	require.NoError(t, checkPrune(in, res, opts...))
	require.Equal(t, []int{1, 3}, changedIndexes(res))
	assert.Equal(t, ImagesReplaced, res.Changes[0].Kind)
	assert.Equal(t, "first screenshot\n[pruned] [image: https://example.com/1.png]", res.Messages[1].Content)
	assert.Nil(t, res.Messages[1].MultiContent)
	assert.Equal(t, "[pruned] [image: image/png, 422 bytes inline]", res.Messages[3].Content)
	assert.Equal(t, in[5], res.Messages[5])
	assert.Greater(t, res.Changes[0].saved(), 765-50, "an image costs its per-image figure, a note a few tokens")
}

// Pruning that reclaims less than the clear-at-least figure is not
// committed: the input comes back as it was, and the result says what was
// found.
func TestPruneClearAtLeast(t *testing.T) {
	in := agentRun(6)
	all := Apply(in, WithClearAtLeast(0))
	require.True(t, all.Committed)
	found := all.Reclaimable

	under := Apply(in, WithClearAtLeast(found+1))
	assert.False(t, under.Committed)
	assert.Empty(t, under.Changes)
	assert.Equal(t, found, under.Reclaimable)
	assert.Equal(t, under.TokensBefore, under.TokensAfter)
	assert.Equal(t, in, under.Messages)
	under.Messages[3].Content = "changed by the caller"
	assert.NotEqual(t, in[3].Content, under.Messages[3].Content, "a copy, not the input")

	at := Apply(in, WithClearAtLeast(found))
	assert.True(t, at.Committed)
	assert.Equal(t, found, at.TokensBefore-at.TokensAfter)

	none := Apply([]Message{user("hi")}, WithClearAtLeast(0))
	assert.False(t, none.Committed, "nothing found is nothing committed")
}

// The pressure pass demotes the largest results of a tail over its budget,
// largest first, until it fits; the last messages stay.
func TestPrunePressure(t *testing.T) {
	in := []Message{sys("s"), user("task")}
	in = append(in, bashRound("a", "cat small", shellOutput("a", 40, 0))...) // 3
	in = append(in, bashRound("b", "cat huge", shellOutput("b", 400, 1))...) // 5
	in = append(in, bashRound("c", "cat big", shellOutput("c", 200, 0))...)  // 7
	in = append(in, bashRound("d", "cat last", shellOutput("d", 300, 0))...) // 9: last two messages
	tc := tokens.Estimator{}
	tail := tokens.CountMessages(tc, in[2:]) - tokens.ReplyPrimingTokens

	t.Run("off by default", func(t *testing.T) {
		assert.Empty(t, Apply(in, WithClearAtLeast(0), WithRange(0, 2)).Changes)
	})
	t.Run("largest first, until it fits", func(t *testing.T) {
		opts := []Option{WithClearAtLeast(0), WithRange(0, 2), WithPressure(tail - 100)}
		res := Apply(in, opts...)
		require.NoError(t, checkPrune(in, res, opts...))
		require.Equal(t, []int{5}, changedIndexes(res))
		assert.Equal(t, Demoted, res.Changes[0].Kind)
		got := res.Messages[5].Content
		assert.True(t, strings.HasPrefix(got, "[pruned] Output of bash (command: cat huge) shortened to fit the context window "+
			"(exit status 1, 401 lines, "), got)
		assert.Contains(t, got, "b: line 0 of the output", "the head stays")
		assert.True(t, strings.HasSuffix(got, "[The command completed with exit code 1.]"), "the tail stays")
		assert.Less(t, len(got), pressureExcerptChars+300)
	})
	t.Run("as far as it can", func(t *testing.T) {
		opts := []Option{WithClearAtLeast(0), WithRange(0, 2), WithPressure(1)}
		res := Apply(in, opts...)
		require.NoError(t, checkPrune(in, res, opts...))
		assert.Equal(t, []int{5, 7}, changedIndexes(res), "a's result saves too little; d's is among the last two")
	})
}

// Every change is reported with what it saved, and the totals add up.
func TestPruneReportsEveryChange(t *testing.T) {
	in := agentRun(8)
	in[2].ToolCalls[0].Function.Arguments = `{"command":` + msgtest.JSONString(strings.Repeat("echo hi; ", 500)) + `}`
	in = append(in[:2], append([]Message{partsMsg(msg.RoleUser, "img:https://example.com/x.png"), asst("seen")}, in[2:]...)...)
	in = append(in, partsMsg(msg.RoleUser, "img:https://example.com/y.png"))
	res := Apply(in)
	require.True(t, res.Committed)
	require.NoError(t, checkPrune(in, res))
	kinds := map[Kind]int{}
	for _, c := range res.Changes {
		kinds[c.Kind]++
		assert.NotEmpty(t, c.Note)
		assert.NotEmpty(t, c.Kind.String())
	}
	assert.Equal(t, map[Kind]int{Masked: 5, ArgumentsShortened: 1, ImagesReplaced: 1}, kinds)
	assert.Equal(t, "Kind(99)", Kind(99).String())
}

// Every transcript, pruned with several settings, keeps Prune's contracts.
func TestPrunePropertiesOnTranscripts(t *testing.T) {
	all := msgtest.All(t)
	settings := map[string][]Option{
		"defaults":      nil,
		"aggressive":    {WithKeepToolUses(0), WithClearAtLeast(0), WithArgumentChars(200)},
		"pressure":      {WithClearAtLeast(0), WithRange(2, 12), WithPressure(500)},
		"lossless only": {WithKinds(Deduplicated, ImagesReplaced), WithClearAtLeast(0)},
	}
	for _, name := range msgtest.Names(all) {
		in := all[name]
		for setting, opts := range settings {
			t.Run(name+"/"+setting, func(t *testing.T) {
				before := msg.Clone(in)
				res := Apply(in, opts...)
				require.NoError(t, checkPrune(in, res, opts...))
				require.True(t, reflect.DeepEqual(before, in), "input unchanged")
				require.Equal(t, res, Apply(in, opts...), "deterministic")
			})
		}
	}
}

// table is a pasted table of rows lines, tagged so its head and tail can be
// told apart.
func table(tag string, rows int) string {
	var b strings.Builder
	for i := range rows {
		fmt.Fprintf(&b, "| %s row %d | 42 | 3.14 | ok |\n", tag, i)
	}
	return b.String()
}

// The fit pass trims the largest messages of any role, largest first,
// while the history is over its budget; the protected messages and those
// another rule changed stay as they are.
func TestPruneFit(t *testing.T) {
	in := []Message{sys(table("system", 300)), user("paste the data")}
	in = append(in, asst(table("answer", 2000)))            // 2: the largest
	in = append(in, user(table("pasted", 600)), asst("ok")) // 3: a user message that is not the latest
	in = append(in, bashRound("a", "cat data", shellOutput("a", 800, 0))...)
	in = append(in, user(table("latest", 1000)), asst(table("reply", 900))) // 7 latest user, 8 last
	tc := tokens.Estimator{}
	total := tokens.CountMessages(tc, in)

	t.Run("off by default", func(t *testing.T) {
		for _, c := range Apply(in, WithClearAtLeast(0), WithKeepToolUses(0)).Changes {
			assert.NotEqual(t, Trimmed, c.Kind)
		}
	})
	t.Run("largest first, until it fits", func(t *testing.T) {
		opts := []Option{WithClearAtLeast(0), WithKinds(Trimmed), WithFit(total - 100)}
		res := Apply(in, opts...)
		require.NoError(t, checkPrune(in, res, opts...))
		require.Equal(t, []int{2}, changedIndexes(res))
		assert.Equal(t, Trimmed, res.Changes[0].Kind)
		assert.Equal(t, "trimmed oversized message", res.Changes[0].Kind.String())
		got := res.Messages[2].Content
		assert.True(t, strings.HasPrefix(got, "[pruned] This assistant message was shortened to fit the context window (2000 lines, "), got)
		assert.Contains(t, got, "| answer row 0 |", "the head stays")
		assert.Contains(t, got, "| answer row 1999 |", "the tail stays")
		assert.Less(t, len(got), pressureExcerptChars+300)
		assert.LessOrEqual(t, res.TokensAfter, total-100)
	})
	t.Run("as far as it can", func(t *testing.T) {
		opts := []Option{WithClearAtLeast(0), WithKinds(Trimmed), WithFit(1)}
		res := Apply(in, opts...)
		require.NoError(t, checkPrune(in, res, opts...))
		assert.Equal(t, []int{2, 3, 6}, changedIndexes(res), "the system prompt, the latest user message and the last two stay")
		assert.True(t, strings.HasPrefix(res.Messages[6].Content, "[pruned] Output of bash (command: cat data) shortened"),
			"a tool result is described by its call")
		assert.Equal(t, "a", res.Changes[2].ToolCallID)
	})
	t.Run("after the other rules", func(t *testing.T) {
		opts := []Option{WithClearAtLeast(0), WithKeepToolUses(0), WithRange(0, 7), WithFit(1)}
		res := Apply(in, opts...)
		require.NoError(t, checkPrune(in, res, opts...))
		kinds := map[int]Kind{}
		for _, c := range res.Changes {
			kinds[c.Index] = c.Kind
		}
		assert.Equal(t, map[int]Kind{2: Trimmed, 3: Trimmed, 6: Masked}, kinds, "a masked result is not trimmed as well")
	})
	t.Run("a negative budget is invalid", func(t *testing.T) {
		res := Apply(in, WithFit(-1))
		assert.Equal(t, []string{"WithFit(-1): invalid, 0 kept"}, res.Adjusted)
	})
}
