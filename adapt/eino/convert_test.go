package eino

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/contextkit/compact"
)

// TestWhatTheEngineSees pins the view of every kind of message in the
// every-kind fixture: the table in the README.
func TestWhatTheEngineSees(t *testing.T) {
	conv, err := Convert(decode(t, everyKindJSON))
	require.NoError(t, err)
	tests := []struct {
		name  string
		index int
		check func(t *testing.T, m compact.Message)
	}{
		{"system prompt as MultiContent: a text part each", 0, func(t *testing.T, m compact.Message) {
			assert.Equal(t, compact.RoleSystem, m.Role)
			assert.Equal(t, []string{"You are a careful release engineer.", "Answer in English."}, texts(m))
		}},
		{"user input parts: Content first, images as images, other media named", 1, func(t *testing.T, m compact.Message) {
			assert.Equal(t, "mia", m.Name)
			require.Len(t, m.MultiContent, 6)
			assert.Equal(t, "Check these release notes against the screenshot.", m.MultiContent[0].Text)
			assert.Equal(t, "https://example.com/shot.png", m.MultiContent[1].ImageURL.URL)
			assert.Equal(t, "high", string(m.MultiContent[1].ImageURL.Detail))
			assert.Equal(t, "data:image/png;base64,iVBORw0KGgo=", m.MultiContent[2].ImageURL.URL)
			assert.Equal(t, "[audio: https://example.com/note.wav]", m.MultiContent[3].Text)
			assert.Equal(t, "[video: video/mp4, 4 bytes inline]", m.MultiContent[4].Text)
			assert.Equal(t, "[file: notes.pdf, https://example.com/notes.pdf]", m.MultiContent[5].Text)
		}},
		{"assistant tool calls and reasoning content", 2, func(t *testing.T, m compact.Message) {
			require.Len(t, m.ToolCalls, 2)
			assert.Equal(t, "call_2", m.ToolCalls[1].ID)
			assert.Equal(t, `{"path":"flags.go","lines":[1,40]}`, m.ToolCalls[1].Function.Arguments)
			assert.Equal(t, 1, *m.ToolCalls[1].Index)
			assert.Equal(t, "Two files to read; read both at once.", m.ReasoningContent)
		}},
		{"tool result string", 3, func(t *testing.T, m compact.Message) {
			assert.Equal(t, compact.RoleTool, m.Role)
			assert.Equal(t, "call_1", m.ToolCallID)
			assert.Equal(t, "## v2\n- drop --legacy", m.Content)
		}},
		{"tool result as input parts", 4, func(t *testing.T, m compact.Message) {
			require.Len(t, m.MultiContent, 2)
			assert.Equal(t, "https://example.com/err.png", m.MultiContent[1].ImageURL.URL)
		}},
		{"deprecated MultiContent parts", 5, func(t *testing.T, m compact.Message) {
			require.Len(t, m.MultiContent, 3)
			assert.Equal(t, "https://example.com/tree.png", m.MultiContent[1].ImageURL.URL)
			assert.Equal(t, "[file: flags.go]", m.MultiContent[2].Text)
		}},
		{"assistant output parts: reasoning as reasoning, media", 6, func(t *testing.T, m compact.Message) {
			assert.Equal(t, "The notes match the code.", m.ReasoningContent)
			require.Len(t, m.MultiContent, 3)
			assert.Equal(t, "The notes match the code.", m.MultiContent[0].Text)
			assert.Equal(t, "https://example.com/diagram.png", m.MultiContent[1].ImageURL.URL)
			assert.Equal(t, "[audio: audio/wav, 8 bytes inline]", m.MultiContent[2].Text)
		}},
		{"tool search result named by its tools", 7, func(t *testing.T, m compact.Message) {
			assert.Equal(t, "[tool search result: grep]", m.MultiContent[0].Text)
		}},
		{"an assistant turn with reasoning alone reads as a placeholder", 8, func(t *testing.T, m compact.Message) {
			assert.Equal(t, reasoningPlaceholder, m.Content)
			assert.Equal(t, "Nothing left to say.", m.ReasoningContent)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { tt.check(t, conv.Messages[tt.index]) })
	}
}

func texts(m compact.Message) []string {
	var out []string
	for _, p := range m.MultiContent {
		out = append(out, p.Text)
	}
	return out
}

func TestConversionMessagesAreTheCallersToChange(t *testing.T) {
	in := decode(t, everyKindJSON)
	conv, err := Convert(in)
	require.NoError(t, err)
	conv.Messages[3].Content = "changed by the caller"
	out, err := conv.Restore(mustConvert(t, in))
	require.NoError(t, err)
	requireIdentical(t, in, out)
}
