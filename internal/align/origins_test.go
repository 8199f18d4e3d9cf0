package align

import (
	"testing"

	openai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/assert"

	"github.com/contextkit/compact"
)

func TestOriginsFindTheMessageBehindAChangedOne(t *testing.T) {
	call := func(id string) openai.ToolCall { return openai.ToolCall{ID: id, Type: "function"} }
	in := []compact.Message{
		{Role: "system", Content: "s"},
		{Role: "assistant", ToolCalls: []openai.ToolCall{call("a"), call("b")}},
		{Role: "tool", ToolCallID: "a", Content: "ra"},
		{Role: "tool", ToolCallID: "b", Content: "rb"},
		{Role: "assistant", ToolCalls: []openai.ToolCall{call("c")}},
		{Role: "tool", ToolCallID: "c", Content: "rc"},
		{Role: "assistant", ToolCalls: []openai.ToolCall{call("c")}},
	}
	o := NewOrigins(in, []int{0, -1, 3}, func(j int) bool { return j == 5 })
	j, ok := o.Of(compact.Message{Role: "tool", ToolCallID: "a", Content: "[pruned]"})
	assert.True(t, ok)
	assert.Equal(t, 2, j, "a result by its call id")
	_, ok = o.Of(compact.Message{Role: "tool", ToolCallID: "a"})
	assert.False(t, ok, "an input message stands behind one output message at most")
	_, ok = o.Of(compact.Message{Role: "tool", ToolCallID: "b"})
	assert.False(t, ok, "a message the output reproduced is taken")
	_, ok = o.Of(compact.Message{Role: "assistant", ToolCalls: []openai.ToolCall{call("x"), call("a")}})
	assert.False(t, ok, "a turn is found by its first call only")
	j, ok = o.Of(compact.Message{Role: "assistant", ToolCalls: []openai.ToolCall{call("a")}})
	assert.True(t, ok)
	assert.Equal(t, 1, j)
	_, ok = o.Of(compact.Message{Role: "assistant", ToolCalls: []openai.ToolCall{call("c")}})
	assert.False(t, ok, "an id two messages hold names neither")
	_, ok = o.Of(compact.Message{Role: "tool", ToolCallID: "c"})
	assert.False(t, ok, "a skipped message is never an origin")
	assert.True(t, o.Free(4))
	assert.True(t, o.Claim(4))
	assert.False(t, o.Claim(4))
	assert.False(t, o.Free(-1))
}
