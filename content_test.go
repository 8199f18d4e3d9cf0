package compact

import (
	"encoding/json"
	"reflect"
	"testing"

	openai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestText(t *testing.T) {
	tests := []struct {
		name string
		msg  Message
		want string
	}{
		{"string content", user("hello"), "hello"},
		{"no content", Message{Role: RoleAssistant}, ""},
		{"one text part", partsMsg(RoleUser, "only"), "only"},
		{"text parts joined by newlines", partsMsg(RoleUser, "one", "two"), "one\ntwo"},
		{"image keeps its URL", partsMsg(RoleUser, "look", "img:https://x.test/a.png"), "look\n[image: https://x.test/a.png]"},
		{"data URL keeps only type and size", partsMsg(RoleUser, "img:data:image/png;base64,AAAA"),
			"[image: image/png, 26 bytes inline]"},
		{"image part with no URL", Message{Role: RoleUser, MultiContent: []openai.ChatMessagePart{{Type: openai.ChatMessagePartTypeImageURL}}}, "[image]"},
		{"Content wins when both are set", Message{Role: RoleUser, Content: "s", MultiContent: partsMsg(RoleUser, "p").MultiContent}, "s"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, Text(tt.msg))
		})
	}
}

func TestToolCallText(t *testing.T) {
	assert.Equal(t, "", ToolCallText(asst("x")))
	assert.Equal(t, `bash({"arg":"c1"})`+"\n"+`read({"arg":"c2"})`, ToolCallText(call("", "c1", "bash", "c2", "read")))
}

func TestWithTextClearsMultiContent(t *testing.T) {
	in := partsMsg(RoleUser, "a", "img:https://x.test/i.png")
	out := replaceText(in, "replaced")
	assert.Equal(t, "replaced", out.Content)
	assert.Nil(t, out.MultiContent, "Content and MultiContent must never both be set")
	_, err := json.Marshal(out)
	require.NoError(t, err, "go-openai must accept the message")
	assert.Len(t, in.MultiContent, 2, "the input is not modified")
}

func TestCloneSharesNothing(t *testing.T) {
	idx := 3
	in := []Message{
		partsMsg(RoleUser, "text", "img:https://x.test/i.png"),
		{Role: RoleAssistant, FunctionCall: &openai.FunctionCall{Name: "f", Arguments: "{}"},
			ToolCalls: []openai.ToolCall{{ID: "c", Index: &idx, Function: openai.FunctionCall{Name: "n", Arguments: "{}"}}}},
		user("plain"),
	}
	out := Clone(in)
	require.True(t, reflect.DeepEqual(in, out), "a clone equals its original")

	out[0].MultiContent[0].Text = "changed"
	out[0].MultiContent[1].ImageURL.URL = "changed"
	out[1].FunctionCall.Name = "changed"
	out[1].ToolCalls[0].Function.Name = "changed"
	*out[1].ToolCalls[0].Index = 9
	out[2].Content = "changed"

	assert.Equal(t, "text", in[0].MultiContent[0].Text)
	assert.Equal(t, "https://x.test/i.png", in[0].MultiContent[1].ImageURL.URL)
	assert.Equal(t, "f", in[1].FunctionCall.Name)
	assert.Equal(t, "n", in[1].ToolCalls[0].Function.Name)
	assert.Equal(t, 3, *in[1].ToolCalls[0].Index)
	assert.Equal(t, "plain", in[2].Content)
	assert.Nil(t, Clone(nil))
}

func TestJoinContent(t *testing.T) {
	img := "img:https://x.test/i.png"
	tests := []struct {
		name      string
		a, b      Message
		wantText  string
		wantParts int // 0: string content expected
	}{
		{"two strings", user("a"), user("b"), "a\n\nb", 0},
		{"empty first", user(""), user("b"), "b", 0},
		{"empty second", user("a"), user(""), "a", 0},
		{"string then parts", user("a"), partsMsg(RoleUser, "b", img), "a\nb\n[image: https://x.test/i.png]", 3},
		{"parts then string", partsMsg(RoleUser, img), user("b"), "[image: https://x.test/i.png]\nb", 2},
		{"parts then parts", partsMsg(RoleUser, "a"), partsMsg(RoleUser, "b"), "a\nb", 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got Message
			joinContent(&got, tt.a, tt.b, "\n\n")
			assert.Equal(t, tt.wantText, Text(got))
			assert.Len(t, got.MultiContent, tt.wantParts)
			assert.False(t, got.Content != "" && got.MultiContent != nil, "both content fields set")
		})
	}
}

func TestEqualMessage(t *testing.T) {
	a := call("x", "c1", "bash")
	assert.True(t, equalMessage(a, cloneMessage(a)))
	b := cloneMessage(a)
	b.ToolCalls[0].Function.Arguments = "{}"
	assert.False(t, equalMessage(a, b))
	assert.True(t, equalMessage(Message{Role: RoleUser, MultiContent: []openai.ChatMessagePart{}}, Message{Role: RoleUser}),
		"nil and empty parts lists are the same message")
	assert.False(t, equalMessage(partsMsg(RoleUser, "img:u1"), partsMsg(RoleUser, "img:u2")))
}
