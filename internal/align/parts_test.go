package align

import (
	"testing"

	openai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/assert"

	"github.com/contextkit/compact"
)

func text(s string) openai.ChatMessagePart {
	return openai.ChatMessagePart{Type: openai.ChatMessagePartTypeText, Text: s}
}

func image(u string) openai.ChatMessagePart {
	return openai.ChatMessagePart{Type: openai.ChatMessagePartTypeImageURL, ImageURL: &openai.ChatMessageImageURL{URL: u}}
}

func TestReadAsParts(t *testing.T) {
	view := []openai.ChatMessagePart{text("look"), image("https://x/a.png"), text("and tell me")}
	tests := []struct {
		name string
		m    compact.Message
		want []openai.ChatMessagePart
		ok   bool
	}{
		{"as many parts: read one for one", compact.Message{MultiContent: []openai.ChatMessagePart{text("look"), text("[image]"), text("and tell me")}},
			[]openai.ChatMessagePart{text("look"), text("[image]"), text("and tell me")}, true},
		{"the parts joined, the image a line", compact.Message{Content: "look\n[image removed]\nand tell me"},
			[]openai.ChatMessagePart{text("look"), text("[image removed]"), text("and tell me")}, true},
		{"a text part changed", compact.Message{Content: "look\n[image removed]\nand tell"}, nil, false},
		{"fewer parts", compact.Message{MultiContent: []openai.ChatMessagePart{text("look")}}, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := ReadAsParts(tt.m, view)
			assert.Equal(t, tt.ok, ok)
			if tt.ok {
				assert.Equal(t, tt.want, got)
			}
		})
	}
}

func TestExtension(t *testing.T) {
	tests := []struct {
		name  string
		v, m  compact.Message
		extra []string
		ok    bool
	}{
		{"a note after the prompt", compact.Message{Content: "Be brief."}, compact.Message{Content: "Be brief.\n\n[note]"}, []string{"[note]"}, true},
		{"a part after the parts", compact.Message{MultiContent: []openai.ChatMessagePart{text("a"), text("b")}},
			compact.Message{MultiContent: []openai.ChatMessagePart{text("a"), text("b"), text("[note]")}}, []string{"[note]"}, true},
		{"the same prompt", compact.Message{Content: "Be brief."}, compact.Message{Content: "Be brief."}, nil, true},
		{"another prompt", compact.Message{Content: "Be brief."}, compact.Message{Content: "Be long."}, nil, false},
		{"an image is not text", compact.Message{MultiContent: []openai.ChatMessagePart{image("u")}}, compact.Message{Content: "x"}, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			extra, ok := Extension(tt.v, tt.m)
			assert.Equal(t, tt.ok, ok)
			assert.Equal(t, tt.extra, extra)
		})
	}
}

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
