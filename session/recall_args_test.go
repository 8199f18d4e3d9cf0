package session

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/contextkit/compact/session/store"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRecallBadArgumentsAreAnsweredNotThrown: every mistake a model can
// make in a call gets a JSON answer with an error that says what to fix,
// and a nil error for the host.
func TestRecallBadArgumentsAreAnsweredNotThrown(t *testing.T) {
	s := newRecallSession(t, "bad", nil)
	mustAppend(t, s, agentHistory("bad", 5)...)
	for _, tc := range []struct {
		name, tool, args, says string
	}{
		{"malformed JSON", ToolSearch, `{"query":`, "not valid JSON"},
		{"not an object", ToolSearch, `["query"]`, "JSON object"},
		{"trailing data", ToolSearch, `{"query":"x"} {}`, "nothing after it"},
		{"an unknown field", ToolSearch, `{"query":"x","session":"other"}`, `unknown field "session"`},
		{"a field of the wrong type", ToolSearch, `{"query":7}`, `"query" must be a string`},
		{"no query", ToolSearch, `{}`, `"query" is empty`},
		{"an overlong query", ToolSearch, `{"query":"` + strings.Repeat("x", maxQuery+1) + `"}`, "at most 1000"},
		{"a bad regular expression", ToolSearch, `{"query":"(unclosed","regex":true}`, "not a valid RE2"},
		{"a backreference RE2 refuses", ToolSearch, `{"query":"(a)\\1","regex":true}`, "not a valid RE2"},
		{"a regular expression too large", ToolSearch, `{"query":"(((a{100}){100}){100})","regex":true}`, "RE2"},
		{"an unknown role", ToolSearch, `{"query":"x","role":"robot"}`, `"role" must be one of`},
		{"a limit of zero", ToolSearch, `{"query":"x","limit":0}`, `"limit" must be between 1 and 100`},
		{"a limit too large", ToolSearch, `{"query":"x","limit":1000}`, `"limit" must be between 1 and 100`},
		{"a cursor no tool gave", ToolSearch, `{"query":"x","cursor":"abc"}`, "cursor"},
		{"a negative cursor", ToolSearch, `{"query":"x","cursor":-4}`, "cursor"},
		{"arguments too long", ToolSearch, `{"query":"x","tool":"` + strings.Repeat("t", maxArguments) + `"}`, "at most"},
		{"an inverted range", ToolExpand, `{"from":9,"to":3}`, "inverted"},
		{"a range from zero", ToolExpand, `{"from":0,"to":3}`, "seqs start at 1"},
		{"to without from", ToolExpand, `{"to":3}`, `"to" needs "from"`},
		{"a range and a list", ToolExpand, `{"from":1,"to":3,"seq":[2]}`, "not both"},
		{"neither", ToolExpand, `{}`, `give "from" and "to"`},
		{"an empty list", ToolExpand, `{"seq":[]}`, "between 1 and 100"},
		{"a list too long", ToolExpand, `{"seq":[` + strings.Repeat("1,", 100) + `1]}`, "between 1 and 100"},
		{"a seq below one", ToolExpand, `{"seq":[3,-1]}`, "seqs start at 1"},
		{"a fractional seq", ToolExpand, `{"from":1.5}`, `"from" must be an integer`},
		{"a session for expand", ToolExpand, `{"from":1,"id":"other"}`, `unknown field "id"`},
		{"an argument describe lacks", ToolDescribe, `{"snapshot":"a~snapshot-1"}`, `unknown field "snapshot"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := callRaw(s, tc.tool, tc.args)
			require.NoError(t, err, "a model's mistake is no error for the host")
			var ans map[string]any
			require.NoError(t, json.Unmarshal(out, &ans), "%s", out)
			require.Contains(t, ans, "error", "%s", out)
			assert.Contains(t, ans["error"], tc.says)
			assert.True(t, strings.HasPrefix(ans["error"].(string), tc.tool+": "), "the error names the tool: %s", ans["error"])
			assert.Len(t, ans, 1, "an error answer holds the error alone")
		})
	}
}

// TestRecallCatastrophicPatternsRunInLinearTime: the patterns that send a
// backtracking engine into exponential time are ordinary work for RE2; the
// search answers, over a text built to trip them.
func TestRecallCatastrophicPatternsRunInLinearTime(t *testing.T) {
	s := newRecallSession(t, "redos", nil)
	mustAppend(t, s, user(strings.Repeat("a", 50_000)+"!"), user(strings.Repeat("ab", 20_000)))
	for _, q := range []string{`(a+)+$`, `(a|a)*c`, `(a|aa)+c`, `(.*a){20}x`, `((ab)*)*c`} {
		ans := useTool(t, s, ToolSearch, `{"regex":true,"query":"`+q+`"}`)
		assert.NotContains(t, ans, "error", q)
		assert.Empty(t, ans["matches"], q)
	}
}

func TestRecallStoreFailureIsAnAnswerAndAnError(t *testing.T) {
	s := newRecallSession(t, "broken", brokenStore{store.NewMemory()})
	for _, tc := range []struct{ tool, args string }{
		{ToolSearch, `{"query":"x"}`}, {ToolExpand, `{"from":1}`}, {ToolDescribe, `{}`},
	} {
		out, err := callRaw(s, tc.tool, tc.args)
		require.Error(t, err, tc.tool)
		assert.ErrorIs(t, err, errBroken)
		assert.Contains(t, err.Error(), `session: "broken": `+tc.tool)
		var ans map[string]any
		require.NoError(t, json.Unmarshal(out, &ans))
		assert.Contains(t, ans["error"], "could not be read", "the model is told too")
		assert.NotContains(t, ans["error"], "disk on fire", "but not the store's internals")
	}
}

func TestRecallHonoursACancelledContext(t *testing.T) {
	s := newRecallSession(t, "cancel", nil)
	mustAppend(t, s, agentHistory("cancel", 5)...)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, tool := range s.Tools() {
		args := `{"query":"x"}`
		if tool.Definition.Function.Name == ToolExpand {
			args = `{"from":1}`
		} else if tool.Definition.Function.Name == ToolDescribe {
			args = `{}`
		}
		_, err := tool.Handle(ctx, args)
		assert.ErrorIs(t, err, context.Canceled, tool.Definition.Function.Name)
	}
}

var errBroken = errorString("disk on fire")

type errorString string

func (e errorString) Error() string { return string(e) }

// brokenStore fails every read.
type brokenStore struct{ store.Store }

func (brokenStore) Read(context.Context, string, int64, int64) ([]store.Record, error) {
	return nil, errBroken
}
func (brokenStore) Compactions(context.Context, string) ([]store.Compaction, error) {
	return nil, errBroken
}
