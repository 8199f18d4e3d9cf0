package memo

import (
	"hash/maphash"
	"strings"
	"testing"

	openai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// distinct are messages that differ in one field, or only in where their
// text falls between fields: no two may share a hash, be Equal, or be
// served one another's value.
func distinct() []Message {
	text := func(s string) openai.ChatMessagePart {
		return openai.ChatMessagePart{Type: openai.ChatMessagePartTypeText, Text: s}
	}
	img := func(url string, d openai.ImageURLDetail) openai.ChatMessagePart {
		return openai.ChatMessagePart{Type: openai.ChatMessagePartTypeImageURL, ImageURL: &openai.ChatMessageImageURL{URL: url, Detail: d}}
	}
	call := func(id, name, args string) []openai.ToolCall {
		return []openai.ToolCall{{ID: id, Type: openai.ToolTypeFunction, Function: openai.FunctionCall{Name: name, Arguments: args}}}
	}
	one, two := 1, 2
	return []Message{
		{},
		{Role: "user"},
		{Role: "use", Content: "r"},
		{Role: "user", Content: "ab"},
		{Role: "user", Content: "ba"},
		{Role: "user", Content: "a", Name: "b"},
		{Role: "user", Name: "ab"},
		{Role: "user", Refusal: "ab"},
		{Role: "user", ReasoningContent: "ab"},
		{Role: "user", ToolCallID: "ab"},
		{Role: "user", MultiContent: []openai.ChatMessagePart{text("ab")}},
		{Role: "user", MultiContent: []openai.ChatMessagePart{text("a"), text("b")}},
		{Role: "user", MultiContent: []openai.ChatMessagePart{text("ab"), img("u", "")}},
		{Role: "user", MultiContent: []openai.ChatMessagePart{text("ab"), img("v", "")}},
		{Role: "user", MultiContent: []openai.ChatMessagePart{text("ab"), img("u", openai.ImageURLDetailLow)}},
		{Role: "user", ToolCalls: call("", "ab", "")},
		{Role: "user", ToolCalls: call("", "a", "b")},
		{Role: "user", ToolCalls: call("", "", "ab")},
		{Role: "user", ToolCalls: call("c1", "", "ab")},
		{Role: "user", ToolCalls: []openai.ToolCall{{Index: &one}}},
		{Role: "user", ToolCalls: []openai.ToolCall{{Index: &two}}},
		{Role: "user", ToolCalls: append(call("", "a", ""), call("", "b", "")...)},
		{Role: "user", FunctionCall: &openai.FunctionCall{Name: "ab"}},
		{Role: "user", FunctionCall: &openai.FunctionCall{}},
		// The same lengths and the same first, middle and last bytes: the
		// Table's key cannot tell these apart, Equal must.
		{Role: "tool", Content: "0123456789" + "x" + strings.Repeat("m", 20) + "y" + "0123456789"},
		{Role: "tool", Content: "0123456789" + "y" + strings.Repeat("m", 20) + "x" + "0123456789"},
	}
}

func TestHashAndEqualTellEveryFieldApart(t *testing.T) {
	seed := maphash.MakeSeed()
	msgs := distinct()
	seen := map[uint64]int{}
	for i, m := range msgs {
		h := Hash(seed, m)
		if j, ok := seen[h]; ok {
			assert.Failf(t, "two messages share a hash", "messages %d and %d", j, i)
		}
		seen[h] = i
		assert.Equal(t, h, Hash(seed, Clone(m)), "a copy of message %d hashes the same", i)
		assert.True(t, Equal(m, Clone(m)), "message %d equals its copy", i)
		for j, o := range msgs {
			assert.Equal(t, i == j, Equal(m, o), "messages %d and %d", i, j)
		}
	}
}

// A Table serves a value only to a message equal to the one it was put
// for: not to another message that shares its key, nor to a message a host
// changed in place after the Put (a tool call's arguments in the slice the
// Table was given, an image's URL through its pointer), nor after the host
// put another message at the same index of a reused slice.
func TestTableNeverServesAChangedMessage(t *testing.T) {
	msgs := distinct()
	tab := NewTable[int](100)
	for i, m := range msgs {
		tab.Put(m, i)
	}
	hits := 0
	for i, m := range msgs {
		if v, ok := tab.Get(Clone(m)); ok {
			hits++
			assert.Equal(t, i, v, "message %d is served another's value", i)
		}
	}
	// Messages that share a key (the last two, among others) take turns
	// in its slot: the later was served.
	assert.Greater(t, hits, len(msgs)/2, "served")

	history := []Message{
		{Role: "assistant", ToolCalls: []openai.ToolCall{{ID: "c1", Function: openai.FunctionCall{Name: "bash", Arguments: `{"cmd":"ls"}`}}}},
		{Role: "user", MultiContent: []openai.ChatMessagePart{{Type: openai.ChatMessagePartTypeImageURL, ImageURL: &openai.ChatMessageImageURL{URL: "a.png"}}}},
		{Role: "tool", ToolCallID: "c1", Content: "ok"},
	}
	roles := NewTable[string](100)
	for _, m := range history {
		roles.Put(m, m.Role)
	}
	history[0].ToolCalls[0].Function.Arguments = `{"cmd":"rm"}` // in place, in the slice the Put saw
	_, ok := roles.Get(history[0])
	assert.False(t, ok, "arguments changed in place")
	history[1].MultiContent[0].ImageURL.URL = "b.png" // through the pointer the Put saw
	_, ok = roles.Get(history[1])
	assert.False(t, ok, "an image changed through its pointer")
	history[2] = Message{Role: "tool", ToolCallID: "c1", Content: "no"} // replaced at its index
	_, ok = roles.Get(history[2])
	assert.False(t, ok, "a message replaced at the same index")
	// A message decoded afresh (new strings, same bytes) is served.
	fresh := Message{Role: "tool", ToolCallID: strings.Clone("c1"), Content: strings.Clone("ok")}
	role, ok := roles.Get(fresh)
	assert.True(t, ok)
	assert.Equal(t, "tool", role)
}

// A Table forgets what its last two rounds did not see, and holds at most
// its limit.
func TestTableRoundsAndLimit(t *testing.T) {
	tab := NewTable[int](4)
	a, b := Message{Role: "user", Content: "a"}, Message{Role: "user", Content: "b"}
	tab.Put(a, 1)
	tab.Put(b, 2)
	tab.Round()
	_, ok := tab.Get(a) // seen in this round
	require.True(t, ok)
	tab.Round()
	_, ok = tab.Get(b)
	assert.False(t, ok, "b was seen two rounds ago")
	_, ok = tab.Get(a)
	assert.True(t, ok, "a was seen in the round before")
	for i := range 10 {
		tab.Put(Message{Role: "user", Content: strings.Repeat("x", i+2)}, i)
		assert.LessOrEqual(t, tab.Len(), 4)
	}
	var none *Table[int]
	none.Put(a, 1)
	none.Round()
	_, ok = none.Get(a)
	assert.False(t, ok, "a nil Table remembers nothing")
}
