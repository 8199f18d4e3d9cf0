package msgtest

import (
	"fmt"
	"strings"
	"testing"

	"github.com/contextkit/compact/internal/msg"
	openai "github.com/sashabaranov/go-openai"
)

// MaxFuzzMessages bounds the fuzz input used to build a history: the
// property checks compare every message with every other, and a history of
// a few hundred messages exercises every shape already.
const MaxFuzzMessages = 300

// Random builds a history from fuzz input: each byte picks the next
// message's shape. Histories come out valid and invalid alike; the shapes
// cover everything the guards must handle (reused ids, parts, images, empty
// turns, pending calls, unknown roles).
func Random(data []byte) []Message {
	var msgs []Message
	id := 0
	nextID := func(b byte) string {
		if b&0x40 != 0 && id > 0 {
			return "call_" + string(rune('a'+(id-1)%26)) // reuse the previous id
		}
		id++
		return "call_" + string(rune('a'+(id-1)%26))
	}
	lastIDs := []string{}
	for i, b := range data {
		text := strings.Repeat(string(rune('a'+i%26)), int(b%7))
		switch b % 13 {
		case 0:
			msgs = append(msgs, Sys("system "+text))
		case 1, 2:
			msgs = append(msgs, User("user "+text))
		case 3:
			msgs = append(msgs, Asst("assistant "+text))
		case 4:
			ids := []string{}
			args := []string{}
			for k := 0; k < 1+int(b>>6); k++ {
				c := nextID(b)
				ids = append(ids, c)
				args = append(args, c, "tool"+text)
			}
			lastIDs = ids
			msgs = append(msgs, Call(text, args...))
		case 5, 6:
			if len(lastIDs) > 0 {
				msgs = append(msgs, Result(lastIDs[int(b>>4)%len(lastIDs)], "out "+text))
			} else {
				msgs = append(msgs, Result("call_z", "stray "+text))
			}
		case 7:
			msgs = append(msgs, Parts(msg.RoleUser, "part "+text, "img:https://example.com/"+text+".png"))
		case 8:
			msgs = append(msgs, Parts(msg.RoleAssistant, "parts "+text))
		case 9:
			msgs = append(msgs, Message{Role: msg.RoleAssistant}) // empty turn
		case 10:
			msgs = append(msgs, Result("", "no id "+text))
		case 11:
			msgs = append(msgs, Message{Role: "function", Content: "legacy " + text})
		case 12:
			// answer every open call of the last group, in order
			for _, c := range lastIDs {
				msgs = append(msgs, Result(c, "done "+text))
			}
		}
	}
	return msgs
}

// Synthetic builds an agent-like history of n messages, each one
// different: user turns, assistant tool calls and tool results.
func Synthetic(n int) []Message {
	out := make([]Message, 0, n)
	out = append(out, Message{Role: msg.RoleSystem, Content: "You are a coding agent. Use the tools to inspect and edit the repository."})
	for i := 1; len(out) < n; i++ {
		id := fmt.Sprintf("call_%d", i)
		turn := []Message{
			{Role: msg.RoleUser, Content: fmt.Sprintf("Step %d: please look at file_%d.go and fix the failing test TestThing%d.", i, i, i)},
			{Role: msg.RoleAssistant, Content: "Let me read the file first.", ToolCalls: []openai.ToolCall{{ID: id, Type: openai.ToolTypeFunction, Function: openai.FunctionCall{Name: "read_file", Arguments: fmt.Sprintf(`{"path":"pkg/file_%d.go"}`, i)}}}},
			{Role: msg.RoleTool, ToolCallID: id, Name: "read_file", Content: fmt.Sprintf("package pkg\n\n// Thing%d does a thing.\nfunc Thing%d(a, b int) int {\n\treturn a + b*%d\n}\n", i, i, i)},
			{Role: msg.RoleAssistant, Content: fmt.Sprintf("The bug is in Thing%d: it multiplies b by %d instead of adding it. I will fix it.", i, i)},
		}
		for _, m := range turn {
			if len(out) < n {
				out = append(out, m)
			}
		}
	}
	return out
}

// Seeds adds to f the inputs for Random every fuzz target of a history
// starts from: an empty history, a plain exchange with a call group, an
// answer given twice and a reused id, a result after a user turn with an
// empty turn, a missing id and an unknown role, and parts, images and a
// pending group at the end.
func Seeds(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{0, 1, 4, 12, 3, 1})        // system, user, call, results, assistant, user
	f.Add([]byte{1, 4, 5, 5, 1, 68, 5})     // answered twice, then a reused id
	f.Add([]byte{1, 4, 1, 5, 3, 9, 10, 11}) // result after a user turn, empty turn, no id, unknown role
	f.Add([]byte{7, 8, 7, 1, 132, 12, 4})   // parts and images, two-call group, pending end
}

// Clashes counts the user-user and assistant-assistant seams in msgs that
// compaction must never create (see msg.Clashes).
func Clashes(msgs []Message) int {
	n := 0
	for i := 1; i < len(msgs); i++ {
		if msg.Clashes(msgs[i-1], msgs[i]) {
			n++
		}
	}
	return n
}

// JoinedText is the text of msgs, each message's followed by a NUL byte, so
// that two histories compare by what they say.
func JoinedText(msgs []Message) string {
	var b strings.Builder
	for _, m := range msgs {
		b.WriteString(msg.Text(m))
		b.WriteString("\x00")
	}
	return b.String()
}
