package align

import (
	"strings"
	"testing"

	openai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/assert"

	"github.com/contextkit/compact"
)

func TestIDsNameTheOneMessageThatHoldsAnID(t *testing.T) {
	call := func(id string) openai.ToolCall {
		return openai.ToolCall{ID: id, Function: openai.FunctionCall{Name: "f"}}
	}
	views := []compact.Message{
		{Role: compact.RoleSystem, Content: "s"},
		{Role: compact.RoleAssistant, ToolCalls: []openai.ToolCall{call("a"), call("b")}},
		{Role: compact.RoleTool, ToolCallID: "a"},
		{Role: compact.RoleTool, ToolCallID: "b"},
		{Role: compact.RoleAssistant, ToolCalls: []openai.ToolCall{call("b")}},
		{Role: compact.RoleTool, ToolCallID: "b"},
		{Role: compact.RoleTool, ToolCallID: "skipped"},
	}
	x := NewIDs(views, func(j int) bool { return j == 6 })
	assert.Equal(t, map[string]int{"a": 1, "b": -1}, x.Calls, "an id two calls use names neither")
	assert.Equal(t, map[string]int{"a": 2, "b": -1}, x.Results)

	used := make([]bool, len(views))
	j, ok := Take(x.Results, "a", used)
	assert.True(t, ok)
	assert.Equal(t, 2, j)
	_, ok = Take(x.Results, "a", used)
	assert.False(t, ok, "a message is taken once")
	_, ok = Take(x.Results, "b", used)
	assert.False(t, ok)
	_, ok = Take(x.Results, "skipped", used)
	assert.False(t, ok)
}

func TestSetContentNeverSetsBothFields(t *testing.T) {
	var m compact.Message
	SetContent(&m, []openai.ChatMessagePart{TextPart("one")})
	assert.Equal(t, compact.Message{Content: "one"}, m)
	m = compact.Message{}
	SetContent(&m, []openai.ChatMessagePart{ImagePart("u", openai.ImageURLDetailLow)})
	assert.Empty(t, m.Content)
	assert.True(t, HasImage(m))
	m = compact.Message{}
	SetContent(&m, nil)
	assert.Equal(t, compact.Message{}, m)
}

// usageEngine is a ContextEngine that cannot preflight.
type usageEngine struct{ compact.ContextEngine }

func TestShouldCompressAsksThePreflightOrTheUsage(t *testing.T) {
	long := []compact.Message{{Role: compact.RoleUser, Content: strings.Repeat("word ", 10_000)}}
	assert.True(t, ShouldCompress(compact.New(compact.WithContextWindow(8000)), long), "the Compressor counts the history")
	engine := compact.New(compact.WithContextWindow(8000))
	assert.False(t, ShouldCompress(usageEngine{engine}, long), "another engine knows only the usage it was told")
	engine.UpdateUsage(compact.Usage{PromptTokens: 7900})
	assert.True(t, ShouldCompress(usageEngine{engine}, nil))
}
