package eino

import (
	"context"
	"strings"
	"testing"

	"github.com/cloudwego/eino/schema"
	openai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/internal/align"
)

// restoreEdited converts the every-kind fixture, lets edit change the
// converted messages as an engine would, and restores them.
func restoreEdited(t *testing.T, edit func(msgs []compact.Message) []compact.Message) (in, out []*schema.Message) {
	t.Helper()
	in = decode(t, everyKindJSON)
	before := encode(t, in)
	conv, err := Convert(in)
	require.NoError(t, err)
	out, err = conv.Restore(edit(compact.Clone(conv.Messages)))
	require.NoError(t, err)
	require.Equal(t, before, encode(t, in), "the input is not modified")
	return in, out
}

func TestRestoreAPrunedToolResultKeepsItsOtherFields(t *testing.T) {
	in, out := restoreEdited(t, func(m []compact.Message) []compact.Message {
		m[3].Content = "[pruned]"
		m[4].MultiContent = []openai.ChatMessagePart{align.TextPart("[pruned]")}
		return m
	})
	assert.Equal(t, "[pruned]", out[3].Content)
	assert.Equal(t, in[3].ToolName, out[3].ToolName)
	assert.Equal(t, "call_2", out[4].ToolCallID)
	assert.Equal(t, "read_file", out[4].ToolName)
	assert.Equal(t, []schema.MessageInputPart{{Type: schema.ChatMessagePartTypeText, Text: "[pruned]"}},
		out[4].UserInputMultiContent, "a result held as parts stays parts")
	assert.Empty(t, out[4].Content)
}

func TestRestoreShortenedArgumentsKeepTheRestOfTheTurn(t *testing.T) {
	in, out := restoreEdited(t, func(m []compact.Message) []compact.Message {
		m[2].ToolCalls[1].Function.Arguments = `{"path":"flags.go"}`
		return m
	})
	a, b := in[2], out[2]
	assert.Equal(t, a.ToolCalls[0], b.ToolCalls[0], "the unchanged call is the original")
	assert.Equal(t, `{"path":"flags.go"}`, b.ToolCalls[1].Function.Arguments)
	assert.Equal(t, a.ToolCalls[1].Extra, b.ToolCalls[1].Extra, "a changed call keeps its Extra")
	assert.Equal(t, a.ToolCalls[1].Index, b.ToolCalls[1].Index)
	assert.Equal(t, a.ReasoningContent, b.ReasoningContent)
	assert.Same(t, a.ResponseMeta, b.ResponseMeta)
	assert.Equal(t, a.Extra, b.Extra)
}

func TestRestoreAUserTurnWithItsImagesPrunedKeepsItsOtherParts(t *testing.T) {
	in, out := restoreEdited(t, func(m []compact.Message) []compact.Message {
		var lines []string
		for _, p := range m[1].MultiContent {
			if p.ImageURL != nil {
				lines = append(lines, "[image removed]")
				continue
			}
			lines = append(lines, p.Text)
		}
		m[1].Content, m[1].MultiContent = strings.Join(lines, "\n"), nil
		return m
	})
	u, w := in[1], out[1]
	assert.Equal(t, u.Content, w.Content)
	assert.Equal(t, u.Name, w.Name)
	require.Len(t, w.UserInputMultiContent, len(u.UserInputMultiContent))
	for i, p := range w.UserInputMultiContent {
		if u.UserInputMultiContent[i].Image != nil {
			assert.Equal(t, "[image removed]", p.Text, "part %d: the image is the note", i)
			continue
		}
		assert.Equal(t, u.UserInputMultiContent[i], p, "part %d is the original part", i)
	}
}

func TestRestoreASystemPromptWithANoteKeepsItsParts(t *testing.T) {
	in, out := restoreEdited(t, func(m []compact.Message) []compact.Message {
		m[0].MultiContent = append(m[0].MultiContent, align.TextPart("Earlier turns were compacted."))
		return m
	})
	require.Len(t, out[0].MultiContent, len(in[0].MultiContent)+1)
	assert.Equal(t, in[0].MultiContent, out[0].MultiContent[:len(in[0].MultiContent)])
	assert.Equal(t, "Earlier turns were compacted.", out[0].MultiContent[len(in[0].MultiContent)].Text)
}

func TestRestoreASummaryIsAPlainMessage(t *testing.T) {
	in, out := restoreEdited(t, func(m []compact.Message) []compact.Message {
		summary := compact.Message{Role: compact.RoleUser, Content: "Summary: v2 drops --legacy."}
		return append([]compact.Message{m[0], summary}, m[len(m)-2:]...)
	})
	require.Len(t, out, 4)
	assert.Equal(t, &schema.Message{Role: schema.User, Content: "Summary: v2 drops --legacy."}, out[1])
	assert.Equal(t, encode(t, in[len(in)-2:]), encode(t, out[2:]))
}

func TestRestoreRefusesAMessageWithNoRole(t *testing.T) {
	conv, err := Convert(decode(t, everyKindJSON))
	require.NoError(t, err)
	_, err = conv.Restore([]compact.Message{{Content: "who?"}})
	require.ErrorIs(t, err, compact.ErrInvalidHistory)
	assert.Contains(t, err.Error(), "message 0")
}

func TestConvertRefusesANilMessage(t *testing.T) {
	_, err := Convert([]*schema.Message{schema.UserMessage("hi"), nil})
	require.ErrorIs(t, err, compact.ErrInvalidHistory)
	assert.Contains(t, err.Error(), "message 1")
}

// reusedIDHistory is issue 35's repro: an agent that numbers its calls
// afresh each turn (tau-bench style) calls c1 twice; the first result is
// long enough that a compaction at an 8k window prunes it.
func reusedIDHistory() []*schema.Message {
	call := &schema.Message{Role: schema.Assistant, ToolCalls: []schema.ToolCall{{ID: "c1", Type: "function",
		Function: schema.FunctionCall{Name: "search", Arguments: `{"q":"flags"}`}}}}
	result := func(text string) *schema.Message {
		return &schema.Message{Role: schema.Tool, ToolCallID: "c1", ToolName: "search", Content: text,
			Extra: map[string]any{"k": "v"}}
	}
	return []*schema.Message{
		schema.UserMessage("Find where the flags are parsed."), call, result(strings.Repeat("flags.go:12: parse the --legacy flag here\n", 300)),
		schema.UserMessage("And the defaults?"), call, result("defaults.go:3: var legacy = false"),
	}
}

func TestCompressAPrunedResultWhoseCallIDRepeatsKeepsItsFields(t *testing.T) {
	in := reusedIDHistory()
	out, res, err := Compress(context.Background(), compact.New(compact.WithContextWindow(8000)), in, compact.Force())
	require.NoError(t, err)
	require.NotEmpty(t, res.Pruned, "the long result is pruned")
	var pruned *schema.Message
	for _, u := range out {
		if u.Role == schema.Tool && strings.HasPrefix(u.Content, "[pruned]") {
			pruned = u
		}
	}
	require.NotNil(t, pruned, "the pruned result is in the output")
	assert.Equal(t, "c1", pruned.ToolCallID)
	assert.Equal(t, "search", pruned.ToolName, "the pruned result keeps its ToolName though c1 is used twice")
	assert.Equal(t, map[string]any{"k": "v"}, pruned.Extra, "and its Extra")
	requireIdentical(t, in[len(in)-1:], out[len(out)-1:])
}
