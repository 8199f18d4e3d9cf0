package langchaingo

import (
	"strings"
	"testing"

	openai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tmc/langchaingo/llms"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/internal/align"
)

// Each test here plays an engine by hand: it takes the converted messages,
// changes them the way a compaction does, and checks what Restore makes of
// the result.

func TestRestoreGivesBackKeptMessagesAndWritesTheRest(t *testing.T) {
	in := decode(t, everyPartJSON)
	conv, err := Convert(in)
	require.NoError(t, err)
	v := conv.Messages
	sys := v[0]
	sys.MultiContent = append(sys.MultiContent, align.TextPart(compact.CompactionNote))
	summary := compact.Message{Role: compact.RoleUser, Content: "Summary: the notes were checked."}
	out := append([]compact.Message{sys, summary}, v[5:]...)

	got, err := conv.Restore(out)
	require.NoError(t, err)
	require.NoError(t, Validate(got))
	require.Len(t, got, 8)
	assert.Equal(t, append(in[0].Parts[:2:2], llms.TextContent{Text: compact.CompactionNote}), got[0].Parts,
		"the system prompt keeps its parts and gains the note as one more")
	assert.Equal(t, []llms.ContentPart{llms.TextContent{Text: summary.Content}}, got[1].Parts)
	assert.Equal(t, llms.ChatMessageTypeHuman, got[1].Role)
	for k := 2; k < 8; k++ {
		assert.Equal(t, in[k+2], got[k], "message %d comes back as it was", k+2)
	}
	assert.Len(t, in[0].Parts, 2, "the input is not modified")
}

func TestAChangedToolResponseKeepsItsNameAndItsMessage(t *testing.T) {
	in := decode(t, everyPartJSON)
	conv, err := Convert(in)
	require.NoError(t, err)
	out := compact.Clone(conv.Messages)
	out[4].Content = "[pruned: 27 bytes]"

	got, err := conv.Restore(out)
	require.NoError(t, err)
	require.Len(t, got, len(in), "the two responses stay in one message")
	assert.Equal(t, []llms.ContentPart{in[3].Parts[0], response("call_2", "read_file", "[pruned: 27 bytes]")}, got[3].Parts)
	for k := range in {
		if k != 3 {
			assert.Equal(t, in[k], got[k])
		}
	}
}

func TestShortenedArgumentsKeepTheRestOfTheMessage(t *testing.T) {
	in := decode(t, everyPartJSON)
	conv, err := Convert(in)
	require.NoError(t, err)
	out := compact.Clone(conv.Messages)
	out[2].ToolCalls[1].Function.Arguments = `{"path":"fl…go"}`

	got, err := conv.Restore(out)
	require.NoError(t, err)
	assert.Equal(t, []llms.ContentPart{in[2].Parts[0], in[2].Parts[1], call("call_2", "read_file", `{"path":"fl…go"}`)}, got[2].Parts)

	out[2].Content = "Reading."
	got, err = conv.Restore(out)
	require.NoError(t, err)
	assert.Equal(t, []llms.ContentPart{llms.TextContent{Text: "Reading."}, in[2].Parts[1], call("call_2", "read_file", `{"path":"fl…go"}`)},
		got[2].Parts, "new text, then the calls")
}

func TestAResponseWhoseSiblingWasSummarisedComesBackAlone(t *testing.T) {
	in := decode(t, everyPartJSON)
	conv, err := Convert(in)
	require.NoError(t, err)
	v := conv.Messages
	// An engine that drops the first response (and keeps the call, so the
	// history is no longer valid: this checks Restore only).
	got, err := conv.Restore(append(compact.Clone(v[:3]), v[4:]...))
	require.NoError(t, err)
	assert.Equal(t, llms.MessageContent{Role: llms.ChatMessageTypeTool, Parts: []llms.ContentPart{in[3].Parts[1]}}, got[3])
}

func TestAChangedHumanMessageKeepsThePartsItKept(t *testing.T) {
	in := decode(t, everyPartJSON)
	conv, err := Convert(in)
	require.NoError(t, err)
	var lines []string
	for i, p := range conv.Messages[1].MultiContent {
		if align.IsImage(p) {
			lines = append(lines, "[image pruned]")
			continue
		}
		lines = append(lines, conv.Messages[1].MultiContent[i].Text)
	}
	out := compact.Clone(conv.Messages)
	out[1] = compact.Message{Role: compact.RoleUser, Content: strings.Join(lines, "\n")}

	got, err := conv.Restore(out)
	require.NoError(t, err)
	assert.Equal(t, []llms.ContentPart{in[1].Parts[0], llms.TextContent{Text: "[image pruned]"}, llms.TextContent{Text: "[image pruned]"},
		in[1].Parts[3]}, got[1].Parts, "text and the PDF kept, the images notes now")
}

func TestFromMessagesWritesOneMessagePerMessage(t *testing.T) {
	msgs := []compact.Message{
		{Role: compact.RoleSystem, Content: "sys"},
		{Role: "developer", Content: "dev"},
		{Role: compact.RoleUser, MultiContent: []openai.ChatMessagePart{
			align.TextPart("look"), align.ImagePart("https://x.test/a.png", openai.ImageURLDetailLow), align.TextPart(" ")}},
		{Role: compact.RoleAssistant, Content: "two calls", ReasoningContent: "unsaid", ToolCalls: []openai.ToolCall{
			{ID: "c1", Function: openai.FunctionCall{Name: "f", Arguments: `{"a":1}`}},
			{ID: "c2", Type: "function", Function: openai.FunctionCall{Name: "g", Arguments: `{}`}}}},
		{Role: compact.RoleTool, ToolCallID: "c1", Content: "first"},
		{Role: compact.RoleTool, ToolCallID: "c2", Content: "second"},
		{Role: compact.RoleAssistant, Content: "  "},
		{Role: compact.RoleAssistant, Content: "done", Refusal: "but not that"},
	}
	before := compact.Clone(msgs)
	got, err := FromMessages(msgs)
	require.NoError(t, err)
	require.Equal(t, before, msgs, "the input is not modified")
	require.NoError(t, Validate(got))
	assert.Equal(t, []llms.MessageContent{
		llms.TextParts(llms.ChatMessageTypeSystem, "sys"),
		llms.TextParts(llms.ChatMessageTypeSystem, "dev"),
		msg(llms.ChatMessageTypeHuman, llms.TextPart("look"), llms.ImageURLWithDetailPart("https://x.test/a.png", "low")),
		msg(llms.ChatMessageTypeAI, llms.TextPart("two calls"), call("c1", "f", `{"a":1}`), call("c2", "g", `{}`)),
		msg(llms.ChatMessageTypeTool, response("c1", "f", "first")),
		msg(llms.ChatMessageTypeTool, response("c2", "g", "second")),
		msg(llms.ChatMessageTypeAI, llms.TextPart("done"), llms.TextPart("but not that")),
	}, got, "a blank message has nothing to send and is left out")
}

func TestRestoreRefusesARoleWithNoPlace(t *testing.T) {
	_, err := FromMessages([]compact.Message{{Role: "critic", Content: "no"}})
	require.ErrorIs(t, err, compact.ErrInvalidHistory)
	assert.Equal(t, `langchaingo: message 0: compact: invalid history: role "critic" has no place in a langchaingo history`, err.Error())
}

func TestFromMessagesNamesAResponseAfterAnAssistantsCallOnly(t *testing.T) {
	calls := []openai.ToolCall{{ID: "x", Function: openai.FunctionCall{Name: "f"}}}
	tests := []struct {
		name string
		msgs []compact.Message
		want llms.ToolCallResponse
	}{
		{"an assistant's call", []compact.Message{
			{Role: compact.RoleAssistant, ToolCalls: calls},
			{Role: compact.RoleTool, ToolCallID: "x", Content: "r"},
		}, response("x", "f", "r")},
		{"a call on a user message, which no part keeps", []compact.Message{
			{Role: compact.RoleUser, Content: "q", ToolCalls: calls},
			{Role: compact.RoleTool, ToolCallID: "x", Content: "r"},
		}, response("x", "", "r")},
		{"a call on the tool message itself", []compact.Message{
			{Role: compact.RoleTool, ToolCallID: "x", Content: "r", ToolCalls: calls},
		}, response("x", "", "r")},
		{"the tool message's own name", []compact.Message{
			{Role: compact.RoleUser, Content: "q", ToolCalls: calls},
			{Role: compact.RoleTool, ToolCallID: "x", Name: "g", Content: "r"},
		}, response("x", "g", "r")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := FromMessages(tt.msgs)
			require.NoError(t, err)
			last := got[len(got)-1]
			assert.Equal(t, []llms.ContentPart{tt.want}, last.Parts)
			conv, err := Convert(got)
			require.NoError(t, err)
			again, err := FromMessages(conv.Messages)
			require.NoError(t, err)
			assert.Equal(t, got, again, "converting the output and back changes nothing")
		})
	}
}
