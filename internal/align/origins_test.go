package align

import (
	"testing"

	openai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/contextkit/compact"
)

func callTurn(ids ...string) compact.Message {
	m := compact.Message{Role: compact.RoleAssistant}
	for _, id := range ids {
		m.ToolCalls = append(m.ToolCalls, openai.ToolCall{ID: id, Type: openai.ToolTypeFunction,
			Function: openai.FunctionCall{Name: "search", Arguments: `{"q":"` + id + `"}`}})
	}
	return m
}

func toolResult(id, text string) compact.Message {
	return compact.Message{Role: compact.RoleTool, ToolCallID: id, Content: text}
}

func userTurn(text string) compact.Message {
	return compact.Message{Role: compact.RoleUser, Content: text}
}

func TestOriginsNameTheOneMessageThatHoldsAnID(t *testing.T) {
	in := []compact.Message{
		{Role: compact.RoleSystem, Content: "s"},
		callTurn("a", "b"),
		toolResult("a", "A"),
		toolResult("b", "B"),
		toolResult("skipped", "S"),
	}
	out := compact.Clone(in)
	out[2].Content, out[3].Content = "[pruned]", "[pruned]"
	out[1].ToolCalls[0].Function.Arguments = "{}"
	o := NewOrigins(in, out, func(j int) bool { return j == 4 })
	assert.Equal(t, []int{0, -1, -1, -1, 4}, o.Match)
	j, ok := o.Call(1, "a")
	assert.True(t, ok)
	assert.Equal(t, 1, j)
	j, ok = o.Result(2, "a")
	assert.True(t, ok)
	assert.Equal(t, 2, j)
	_, ok = o.Result(3, "a")
	assert.False(t, ok, "a message is given back once")
	j, ok = o.Result(3, "b")
	assert.True(t, ok)
	assert.Equal(t, 3, j)
	_, ok = o.Result(4, "skipped")
	assert.False(t, ok, "a skipped message is no origin")
	_, ok = o.Result(4, "nobody")
	assert.False(t, ok)
}

// reusedIDs is a history that numbers its calls afresh each turn, as
// tau-bench style agents do: every call is c1.
func reusedIDs() []compact.Message {
	return []compact.Message{
		userTurn("find x"), callTurn("c1"), toolResult("c1", "first result"),
		userTurn("again"), callTurn("c1"), toolResult("c1", "second result"),
		userTurn("and once more"), callTurn("c1"), toolResult("c1", "third result"),
	}
}

func TestOriginsFallBackToThePositionWhenAnIDRepeats(t *testing.T) {
	pruned := func(m compact.Message) compact.Message { m.Content = "[pruned]"; return m }
	shortened := func(m compact.Message) compact.Message {
		m = compact.Clone([]compact.Message{m})[0]
		m.ToolCalls[0].Function.Arguments = "{}"
		return m
	}
	summary := compact.Message{Role: compact.RoleUser, Content: "Summary of the conversation so far: x was found."}
	in := reusedIDs()
	cases := []struct {
		name string
		out  []compact.Message
		// want maps each output message asked about to the input message
		// it must come from.
		want map[int]int
	}{
		{"the first result pruned", []compact.Message{in[0], in[1], pruned(in[2]), in[3], in[4], in[5], in[6], in[7], in[8]},
			map[int]int{2: 2}},
		{"every result pruned", []compact.Message{in[0], in[1], pruned(in[2]), in[3], in[4], pruned(in[5]), in[6], in[7], pruned(in[8])},
			map[int]int{2: 2, 5: 5, 8: 8}},
		{"the middle turn changed whole", []compact.Message{in[0], in[1], in[2], in[3], shortened(in[4]), pruned(in[5]), in[6], in[7], in[8]},
			map[int]int{4: 4, 5: 5}},
		{"the head folded, the next turn changed", []compact.Message{summary, shortened(in[4]), pruned(in[5]), in[6], in[7], in[8]},
			map[int]int{1: 4, 2: 5}},
		{"the head folded, two turns changed", []compact.Message{summary, in[3], shortened(in[4]), pruned(in[5]),
			in[6], shortened(in[7]), pruned(in[8])},
			map[int]int{2: 4, 3: 5, 5: 7, 6: 8}},
		{"everything folded but changed results", []compact.Message{summary, pruned(in[5]), pruned(in[8])},
			map[int]int{1: 5, 2: 8}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			o := NewOrigins(in, tc.out, nil)
			for i, m := range tc.out {
				want, asked := tc.want[i]
				if !asked {
					continue
				}
				var j int
				var ok bool
				if m.Role == compact.RoleTool {
					j, ok = o.Result(i, m.ToolCallID)
				} else {
					j, ok = o.Call(i, m.ToolCalls[0].ID)
				}
				require.True(t, ok, "output message %d finds no origin", i)
				assert.Equal(t, want, j, "output message %d", i)
			}
		})
	}
}

func TestOriginsGiveEachCandidateOnce(t *testing.T) {
	in := reusedIDs()
	out := []compact.Message{toolResult("c1", "x"), toolResult("c1", "y"), toolResult("c1", "z"), toolResult("c1", "w")}
	o := NewOrigins(in, out, nil)
	seen := map[int]bool{}
	for i := range 3 {
		j, ok := o.Result(i, "c1")
		require.True(t, ok, "message %d", i)
		assert.False(t, seen[j], "input message %d given back twice", j)
		seen[j] = true
	}
	_, ok := o.Result(3, "c1")
	assert.False(t, ok, "no candidate is left for a fourth")
}
