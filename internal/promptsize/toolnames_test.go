package promptsize

import (
	"fmt"
	"slices"
	"testing"

	"github.com/contextkit/compact/internal/msg"
	"github.com/contextkit/compact/internal/msgtest"
	openai "github.com/sashabaranov/go-openai"
)

// oldToolNames is toolNames as it was, with a map for every group.
func oldToolNames(turns []msg.Message) []string {
	names := make([]string, len(turns))
	var group map[string]string
	for i, m := range turns {
		switch m.Role {
		case msg.RoleAssistant:
			group = make(map[string]string, len(m.ToolCalls))
			for _, c := range m.ToolCalls {
				group[c.ID] = c.Function.Name
			}
		case msg.RoleTool:
			names[i] = group[m.ToolCallID]
			delete(group, m.ToolCallID)
		default:
			group = nil
		}
	}
	return names
}

// toolHistory reads data as a history of calls and results over a few
// ids and names, so ids repeat, go unanswered and are answered twice.
func toolHistory(data []byte) []msg.Message {
	var turns []msg.Message
	for i := 0; i < len(data); i++ {
		switch c := data[i]; c % 4 {
		case 0:
			n := int(c>>2) % 20
			m := msg.Message{Role: msg.RoleAssistant}
			for k := 0; k < n && i+1 < len(data); k++ {
				i++
				m.ToolCalls = append(m.ToolCalls, openai.ToolCall{ID: fmt.Sprint("c", data[i]%24),
					Function: openai.FunctionCall{Name: fmt.Sprint("f", data[i]/24)}})
			}
			turns = append(turns, m)
		case 1, 2:
			turns = append(turns, msg.Message{Role: msg.RoleTool, ToolCallID: fmt.Sprint("c", (c>>2)%24)})
		default:
			turns = append(turns, msg.Message{Role: []string{msg.RoleUser, msg.RoleSystem, ""}[int(c>>2)%3]})
		}
	}
	return turns
}

func FuzzToolNamesSameAsBefore(f *testing.F) {
	msgtest.Seeds(f)
	f.Add([]byte{0x50, 1, 2, 1, 5, 9, 5, 6, 10, 0xfc, 3, 0x40, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 5, 9})
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, turns := range [][]msg.Message{toolHistory(data), msgtest.Random(data)} {
			if got, want := toolNames(turns), oldToolNames(turns); !slices.Equal(got, want) {
				t.Fatalf("toolNames = %q, want %q", got, want)
			}
		}
	})
}
