package align

import (
	"fmt"
	"testing"

	openai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/assert"

	"github.com/contextkit/compact"
)

func msg(role, text string) compact.Message { return compact.Message{Role: role, Content: text} }

func TestMessages(t *testing.T) {
	sys, u1, a1, u2, a2, u3 := msg("system", "s"), msg("user", "u1"), msg("assistant", "a1"),
		msg("user", "u2"), msg("assistant", "a2"), msg("user", "u3")
	summary := msg("user", "summary")
	tests := []struct {
		name    string
		in, out []compact.Message
		match   []int
		sub     []int
	}{
		{"unchanged", []compact.Message{sys, u1, a1}, []compact.Message{sys, u1, a1}, []int{0, 1, 2}, []int{-1, -1, -1}},
		{"a compaction: head and tail kept, the middle replaced", []compact.Message{sys, u1, a1, u2, a2, u3},
			[]compact.Message{sys, summary, a2, u3}, []int{0, -1, 4, 5}, []int{-1, 1, -1, -1}},
		{"a message dropped", []compact.Message{sys, u1, a1, u2}, []compact.Message{sys, u1, u2}, []int{0, 1, 3}, []int{-1, -1, -1}},
		{"a message added at the end", []compact.Message{sys, u1}, []compact.Message{sys, u1, a1}, []int{0, 1, -1}, []int{-1, -1, -1}},
		{"nothing in common", []compact.Message{u1}, []compact.Message{a1}, []int{-1}, []int{0}},
		{"empty output", []compact.Message{u1, a1}, nil, []int{}, []int{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			match, sub := Messages(tt.in, tt.out)
			assert.Equal(t, tt.match, match, "match")
			assert.Equal(t, tt.sub, sub, "sub")
		})
	}
}

// TestMessagesPrefersTheLatestCopy: of two equal input messages, the one
// kept is taken to be the later, since a compaction keeps a history's end.
func TestMessagesPrefersTheLatestCopy(t *testing.T) {
	ok := msg("tool", "ok")
	in := []compact.Message{msg("user", "u"), ok, msg("assistant", "a"), ok}
	match, _ := Messages(in, []compact.Message{msg("user", "summary"), ok})
	assert.Equal(t, 3, match[1])
}

// TestMessagesFallsBackToMatchingInOrder: a middle too large for the
// table is matched greedily, still in order, with no replacements.
func TestMessagesFallsBackToMatchingInOrder(t *testing.T) {
	n := 2100 // (n+1)^2 cells is over maxAlignCells
	in, out := make([]compact.Message, n), make([]compact.Message, n)
	for i := range in {
		in[i] = msg("user", fmt.Sprint("in ", i))
		out[i] = msg("user", fmt.Sprint("out ", i))
	}
	out[n/2] = in[n/3]
	out[n-2] = in[n/2]
	match, sub := Messages(in, out)
	assert.Equal(t, n/3, match[n/2])
	assert.Equal(t, n/2, match[n-2])
	for i, s := range sub {
		assert.Equal(t, -1, s, "sub[%d]", i)
	}
}

func TestSameMessage(t *testing.T) {
	idx := 0
	base := compact.Message{Role: "assistant", ToolCalls: []openai.ToolCall{{ID: "c", Type: "function", Index: &idx,
		Function: openai.FunctionCall{Name: "f", Arguments: "{}"}}}}
	other := 1
	tests := []struct {
		name string
		b    func() compact.Message
		same bool
	}{
		{"a copy", func() compact.Message { return base }, true},
		{"an equal index behind another pointer", func() compact.Message {
			m := base
			i := 0
			m.ToolCalls = []openai.ToolCall{base.ToolCalls[0]}
			m.ToolCalls[0].Index = &i
			return m
		}, true},
		{"another index", func() compact.Message {
			m := base
			m.ToolCalls = []openai.ToolCall{base.ToolCalls[0]}
			m.ToolCalls[0].Index = &other
			return m
		}, false},
		{"other arguments", func() compact.Message {
			m := base
			m.ToolCalls = []openai.ToolCall{base.ToolCalls[0]}
			m.ToolCalls[0].Function.Arguments = `{"a":1}`
			return m
		}, false},
		{"another role", func() compact.Message { m := base; m.Role = "user"; return m }, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.same, SameMessage(base, tt.b()))
		})
	}
	assert.True(t, SameMessage(compact.Message{Role: "user"}, compact.Message{Role: "user", MultiContent: []openai.ChatMessagePart{}}),
		"nil and empty parts are alike")
	img := func(u string) openai.ChatMessagePart {
		return openai.ChatMessagePart{Type: openai.ChatMessagePartTypeImageURL, ImageURL: &openai.ChatMessageImageURL{URL: u}}
	}
	assert.True(t, SamePart(img("a"), img("a")))
	assert.False(t, SamePart(img("a"), img("b")))
}
