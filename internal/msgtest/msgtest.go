// Package msgtest builds the small histories the tests of the packages
// above the root share: message constructors that keep table tests short,
// a token counter whose sizes are easy to reason about, and comparisons.
package msgtest

import (
	"reflect"
	"strings"

	"github.com/contextkit/compact"
	openai "github.com/sashabaranov/go-openai"
)

// Sys is a system message.
func Sys(text string) compact.Message {
	return compact.Message{Role: compact.RoleSystem, Content: text}
}

// User is a user message.
func User(text string) compact.Message {
	return compact.Message{Role: compact.RoleUser, Content: text}
}

// Asst is an assistant message.
func Asst(text string) compact.Message {
	return compact.Message{Role: compact.RoleAssistant, Content: text}
}

// Call is an assistant turn making tool calls, each given as id and name
// pairs: Call("", "c1", "bash", "c2", "read").
func Call(text string, idName ...string) compact.Message {
	m := compact.Message{Role: compact.RoleAssistant, Content: text}
	for i := 0; i+1 < len(idName); i += 2 {
		m.ToolCalls = append(m.ToolCalls, openai.ToolCall{
			ID: idName[i], Type: openai.ToolTypeFunction,
			Function: openai.FunctionCall{Name: idName[i+1], Arguments: `{"arg":"` + idName[i] + `"}`},
		})
	}
	return m
}

// Result is a tool result answering the call id.
func Result(id, text string) compact.Message {
	return compact.Message{Role: compact.RoleTool, ToolCallID: id, Content: text}
}

// Parts is a message of text parts, and image parts for texts that start
// with "img:".
func Parts(role string, texts ...string) compact.Message {
	m := compact.Message{Role: role}
	for _, t := range texts {
		if strings.HasPrefix(t, "img:") {
			m.MultiContent = append(m.MultiContent, openai.ChatMessagePart{
				Type: openai.ChatMessagePartTypeImageURL, ImageURL: &openai.ChatMessageImageURL{URL: t[4:]}})
			continue
		}
		m.MultiContent = append(m.MultiContent, openai.ChatMessagePart{Type: openai.ChatMessagePartTypeText, Text: t})
	}
	return m
}

// ByteCounter counts a token per four bytes plus a fixed overhead per
// message, so sizes in tests are easy to reason about.
type ByteCounter struct{}

// CountText counts a token per four bytes, rounded up.
func (ByteCounter) CountText(s string) int { return (len(s) + 3) / 4 }

// CountMessage counts the message's text, tool calls and call id, plus 4.
func (b ByteCounter) CountMessage(m compact.Message) int {
	return 4 + b.CountText(compact.Text(m)) + b.CountText(compact.ToolCallText(m)) + b.CountText(m.ToolCallID)
}

// Equal reports whether two histories hold the same messages.
func Equal(a, b []compact.Message) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !reflect.DeepEqual(a[i], b[i]) {
			return false
		}
	}
	return true
}
