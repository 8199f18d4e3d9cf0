package msgtest

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/contextkit/compact/internal/msg"
	openai "github.com/sashabaranov/go-openai"
)

// ToolRound is an assistant turn calling one tool, and the tool's result.
func ToolRound(id, name, args, output string) []Message {
	return []Message{
		{Role: msg.RoleAssistant, ToolCalls: []openai.ToolCall{{ID: id, Type: openai.ToolTypeFunction,
			Function: openai.FunctionCall{Name: name, Arguments: args}}}},
		Result(id, output),
	}
}

// BashRound is a round of a bash tool running command.
func BashRound(id, command, output string) []Message {
	args, _ := json.Marshal(map[string]string{"command": command})
	return ToolRound(id, "bash", string(args), output)
}

// ShellOutput is lines lines of output tagged tag, ending in an OpenHands
// style exit status line.
func ShellOutput(tag string, lines, status int) string {
	var b strings.Builder
	for i := 0; i < lines; i++ {
		fmt.Fprintf(&b, "%s: line %d of the output of a command\n", tag, i)
	}
	fmt.Fprintf(&b, "[The command completed with exit code %d.]", status)
	return b.String()
}

// AgentRun is a coding agent's history: a system prompt, the task, n bash
// uses with outputs of about 250 tokens, and a closing assistant message.
func AgentRun(n int) []Message {
	msgs := []Message{Sys("You are a coding agent."), User("Fix the failing test in pkg/store.")}
	for i := 0; i < n; i++ {
		id := fmt.Sprintf("call_%d", i)
		msgs = append(msgs, BashRound(id, fmt.Sprintf("go test ./pkg/store -run Test%d", i), ShellOutput(id, 25, i%2))...)
	}
	return append(msgs, Asst("The test passes now."))
}

// Inflate makes a random history worth pruning: data picks, per message,
// whether a tool result grows large (uniquely, or into one of two shared
// outputs, so duplicates occur), carries an image or is already a
// stand-in ("[pruned] ..."), and whether a call's arguments grow long
// (JSON with escapes and non-ASCII text, or plain text). msgs is not
// modified.
func Inflate(msgs []Message, data []byte) []Message {
	out := msg.Clone(msgs)
	if len(data) == 0 {
		return out
	}
	shared := [2]string{ShellOutput("shared-a", 30, 1), ShellOutput("shared-b", 60, 0)}
	for i := range out {
		b := data[i%len(data)]
		m := &out[i]
		switch {
		case m.Role == msg.RoleTool:
			switch b % 7 {
			case 0, 1:
				*m = msg.ReplaceText(*m, strings.Repeat(msg.Text(*m)+" ", 20+int(b)))
			case 2:
				*m = msg.ReplaceText(*m, shared[b>>7])
			case 3:
				*m = msg.ReplaceText(*m, "")
				m.MultiContent = []openai.ChatMessagePart{
					{Type: openai.ChatMessagePartTypeText, Text: shared[0]},
					{Type: openai.ChatMessagePartTypeImageURL, ImageURL: &openai.ChatMessageImageURL{URL: "data:image/png;base64,AAAA"}},
				}
			case 4:
				*m = msg.ReplaceText(*m, "[pruned] an earlier stand-in "+strings.Repeat("x", 600))
			}
		case m.Role == msg.RoleAssistant && len(m.ToolCalls) > 0:
			for k := range m.ToolCalls {
				switch (b >> k) % 4 {
				case 0:
					v, _ := json.Marshal(map[string]any{"path": "a.go", "n": 1,
						"file_text": strings.Repeat("«ünïcödé» \"q\"\t\\ line\n", 10+int(b))})
					m.ToolCalls[k].Function.Arguments = string(v)
				case 1:
					m.ToolCalls[k].Function.Arguments = "raw " + strings.Repeat("text ", 100+int(b))
				}
			}
		}
	}
	return out
}

// FailingTests is a coding agent's conversation: rounds runs of the tests,
// each printing 40 lines, then a short reply.
func FailingTests(rounds int) []Message {
	msgs := []Message{
		{Role: msg.RoleSystem, Content: "You are a coding agent."},
		{Role: msg.RoleUser, Content: "Make the store tests pass."},
	}
	for i := 1; i <= rounds; i++ {
		id := fmt.Sprintf("call_%d", i)
		out := strings.Repeat(fmt.Sprintf("--- FAIL: TestStore%d (0.01s)\n", i), 40) + "exit status 1"
		msgs = append(msgs,
			Message{Role: msg.RoleAssistant, ToolCalls: []openai.ToolCall{{
				ID: id, Type: openai.ToolTypeFunction,
				Function: openai.FunctionCall{Name: "bash", Arguments: `{"command":"go test ./store"}`},
			}}},
			Message{Role: msg.RoleTool, ToolCallID: id, Content: out})
	}
	return append(msgs, Message{Role: msg.RoleAssistant, Content: "Still failing; looking at the fixture."})
}
