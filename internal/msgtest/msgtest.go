// Package msgtest builds the histories the tests of every package share:
// message constructors that keep table tests short, random and synthetic
// histories, the repository's own transcripts and the shared real ones, a
// token counter whose sizes are easy to reason about, a summarizer that
// records its requests, and comparisons.
//
// It imports no package of compact's above internal/msg, so the root's own
// tests can use it as well as those of prune, handoff and the rest.
package msgtest

import (
	"encoding/json"
	"reflect"
	"strings"

	"github.com/contextkit/compact/internal/msg"
	openai "github.com/sashabaranov/go-openai"
)

// Message is go-openai's chat message, as compact.Message aliases it.
type Message = msg.Message

// Sys is a system message.
func Sys(text string) Message {
	return Message{Role: msg.RoleSystem, Content: text}
}

// User is a user message.
func User(text string) Message {
	return Message{Role: msg.RoleUser, Content: text}
}

// Asst is an assistant message.
func Asst(text string) Message {
	return Message{Role: msg.RoleAssistant, Content: text}
}

// Call is an assistant turn making tool calls, each given as id and name
// pairs: Call("", "c1", "bash", "c2", "read").
func Call(text string, idName ...string) Message {
	m := Message{Role: msg.RoleAssistant, Content: text}
	for i := 0; i+1 < len(idName); i += 2 {
		m.ToolCalls = append(m.ToolCalls, openai.ToolCall{
			ID: idName[i], Type: openai.ToolTypeFunction,
			Function: openai.FunctionCall{Name: idName[i+1], Arguments: `{"arg":"` + idName[i] + `"}`},
		})
	}
	return m
}

// Result is a tool result answering the call id.
func Result(id, text string) Message {
	return Message{Role: msg.RoleTool, ToolCallID: id, Content: text}
}

// Parts is a message of text parts, and image parts for texts that start
// with "img:".
func Parts(role string, texts ...string) Message {
	m := Message{Role: role}
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

// Roles is a compact picture of a history's roles, such as "s u a t a".
func Roles(msgs []Message) string {
	var b strings.Builder
	for i, m := range msgs {
		if i > 0 {
			b.WriteByte(' ')
		}
		if m.Role == "" {
			b.WriteByte('?')
			continue
		}
		b.WriteByte(m.Role[0])
	}
	return b.String()
}

// ByteCounter counts a token per four bytes plus a fixed overhead per
// message, so sizes in tests are easy to reason about.
type ByteCounter struct{}

// CountText counts a token per four bytes, rounded up.
func (ByteCounter) CountText(s string) int { return (len(s) + 3) / 4 }

// CountMessage counts the message's text, tool calls and call id, plus 4.
func (b ByteCounter) CountMessage(m Message) int {
	return 4 + b.CountText(msg.Text(m)) + b.CountText(msg.ToolCallText(m)) + b.CountText(m.ToolCallID)
}

// Equal reports whether two histories hold the same messages.
func Equal(a, b []Message) bool {
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

// SamePairing reports whether a and b have the same role, tool_call_id and
// tool call ids and names.
func SamePairing(a, b Message) bool {
	if a.Role != b.Role || a.ToolCallID != b.ToolCallID || len(a.ToolCalls) != len(b.ToolCalls) {
		return false
	}
	for k, c := range a.ToolCalls {
		if c.ID != b.ToolCalls[k].ID || c.Function.Name != b.ToolCalls[k].Function.Name {
			return false
		}
	}
	return true
}

// JSONString is s as a JSON string literal.
func JSONString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
