package msg_test

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/contextkit/compact/internal/msg"
	"github.com/contextkit/compact/internal/msgtest"
	openai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestText(t *testing.T) {
	tests := []struct {
		name string
		msg  msg.Message
		want string
	}{
		{"string content", msgtest.User("hello"), "hello"},
		{"no content", msg.Message{Role: msg.RoleAssistant}, ""},
		{"one text part", msgtest.Parts(msg.RoleUser, "only"), "only"},
		{"text parts joined by newlines", msgtest.Parts(msg.RoleUser, "one", "two"), "one\ntwo"},
		{"image keeps its URL", msgtest.Parts(msg.RoleUser, "look", "img:https://x.test/a.png"), "look\n[image: https://x.test/a.png]"},
		{"data URL keeps only type and size", msgtest.Parts(msg.RoleUser, "img:data:image/png;base64,AAAA"),
			"[image: image/png, 26 bytes inline]"},
		{"image part with no URL", msg.Message{Role: msg.RoleUser, MultiContent: []openai.ChatMessagePart{{Type: openai.ChatMessagePartTypeImageURL}}}, "[image]"},
		{"Content wins when both are set", msg.Message{Role: msg.RoleUser, Content: "s", MultiContent: msgtest.Parts(msg.RoleUser, "p").MultiContent}, "s"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, msg.Text(tt.msg))
		})
	}
}

func TestToolCallText(t *testing.T) {
	assert.Equal(t, "", msg.ToolCallText(msgtest.Asst("x")))
	assert.Equal(t, `bash({"arg":"c1"})`+"\n"+`read({"arg":"c2"})`, msg.ToolCallText(msgtest.Call("", "c1", "bash", "c2", "read")))
}

func TestWithTextClearsMultiContent(t *testing.T) {
	in := msgtest.Parts(msg.RoleUser, "a", "img:https://x.test/i.png")
	out := msg.ReplaceText(in, "replaced")
	assert.Equal(t, "replaced", out.Content)
	assert.Nil(t, out.MultiContent, "Content and MultiContent must never both be set")
	_, err := json.Marshal(out)
	require.NoError(t, err, "go-openai must accept the message")
	assert.Len(t, in.MultiContent, 2, "the input is not modified")
}

func TestCloneSharesNothing(t *testing.T) {
	idx := 3
	in := []msg.Message{
		msgtest.Parts(msg.RoleUser, "text", "img:https://x.test/i.png"),
		{Role: msg.RoleAssistant, FunctionCall: &openai.FunctionCall{Name: "f", Arguments: "{}"},
			ToolCalls: []openai.ToolCall{{ID: "c", Index: &idx, Function: openai.FunctionCall{Name: "n", Arguments: "{}"}}}},
		msgtest.User("plain"),
	}
	out := msg.Clone(in)
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
	assert.Nil(t, msg.Clone(nil))
}

func TestJoinContent(t *testing.T) {
	img := "img:https://x.test/i.png"
	tests := []struct {
		name      string
		a, b      msg.Message
		wantText  string
		wantParts int // 0: string content expected
	}{
		{"two strings", msgtest.User("a"), msgtest.User("b"), "a\n\nb", 0},
		{"empty first", msgtest.User(""), msgtest.User("b"), "b", 0},
		{"empty second", msgtest.User("a"), msgtest.User(""), "a", 0},
		{"string then parts", msgtest.User("a"), msgtest.Parts(msg.RoleUser, "b", img), "a\nb\n[image: https://x.test/i.png]", 3},
		{"parts then string", msgtest.Parts(msg.RoleUser, img), msgtest.User("b"), "[image: https://x.test/i.png]\nb", 2},
		{"parts then parts", msgtest.Parts(msg.RoleUser, "a"), msgtest.Parts(msg.RoleUser, "b"), "a\nb", 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got msg.Message
			msg.JoinContent(&got, tt.a, tt.b, "\n\n")
			assert.Equal(t, tt.wantText, msg.Text(got))
			assert.Len(t, got.MultiContent, tt.wantParts)
			assert.False(t, got.Content != "" && got.MultiContent != nil, "both content fields set")
		})
	}
}

func TestEqualMessage(t *testing.T) {
	a := msgtest.Call("x", "c1", "bash")
	assert.True(t, msg.EqualMessage(a, msg.CloneMessage(a)))
	b := msg.CloneMessage(a)
	b.ToolCalls[0].Function.Arguments = "{}"
	assert.False(t, msg.EqualMessage(a, b))
	assert.True(t, msg.EqualMessage(msg.Message{Role: msg.RoleUser, MultiContent: []openai.ChatMessagePart{}}, msg.Message{Role: msg.RoleUser}),
		"nil and empty parts lists are the same message")
	assert.False(t, msg.EqualMessage(msgtest.Parts(msg.RoleUser, "img:u1"), msgtest.Parts(msg.RoleUser, "img:u2")))
}
