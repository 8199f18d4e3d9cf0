package genai

import (
	"encoding/json"
	"testing"

	openai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	sdk "google.golang.org/genai"

	"github.com/contextkit/compact"
)

// Each test here plays an engine by hand: it takes the converted messages,
// changes them the way a compaction does, and checks what Restore makes of
// the result.

func TestRestoreGivesBackKeptContentsAndWritesTheRest(t *testing.T) {
	h := decode(t, everyPartJSON)
	conv, err := Convert(h)
	require.NoError(t, err)
	v := conv.Messages
	sys := v[0]
	sys.MultiContent = append(sys.MultiContent, textPart(compact.CompactionNote))
	summary := compact.Message{Role: compact.RoleUser, Content: "Summary: the notes were checked."}
	out := append([]compact.Message{sys, summary}, v[5:]...)

	got, err := conv.Restore(out)
	require.NoError(t, err)
	require.NoError(t, Validate(got))
	require.Len(t, got.System.Parts, 3, "the system instruction keeps its parts and gains the note as one more")
	assert.Equal(t, h.System.Parts, got.System.Parts[:2])
	assert.Equal(t, h.System.Role, got.System.Role)
	assert.Equal(t, compact.CompactionNote, got.System.Parts[2].Text)
	assert.Len(t, h.System.Parts, 2, "the input's system instruction is not modified")

	require.Len(t, got.Contents, 6)
	assert.Equal(t, []*sdk.Part{{Text: summary.Content}, h.Contents[2].Parts[2]}, got.Contents[0].Parts,
		"the summary and the user text after the summarised responses share one user content")
	for k := 1; k < 6; k++ {
		assert.Same(t, h.Contents[k+2], got.Contents[k], "content %d comes back as the same pointer", k+2)
	}
}

func TestAChangedFunctionResponseKeepsItsOtherFields(t *testing.T) {
	h := decode(t, everyPartJSON)
	conv, err := Convert(h)
	require.NoError(t, err)
	out := compact.Clone(conv.Messages)
	out[4] = compact.Message{Role: compact.RoleTool, ToolCallID: out[4].ToolCallID, Content: "[pruned: 1 image, 27 bytes]"}

	got, err := conv.Restore(out)
	require.NoError(t, err)
	content := got.Contents[2]
	require.Len(t, content.Parts, 3, "the content keeps its three parts")
	assert.Same(t, h.Contents[2].Parts[0], content.Parts[0])
	assert.Same(t, h.Contents[2].Parts[2], content.Parts[2])
	assert.JSONEq(t, `{"functionResponse":{"name":"read_file","response":{"error":"[pruned: 1 image, 27 bytes]"},
		"willContinue":false,"scheduling":"WHEN_IDLE"}}`, jsonOf(t, content.Parts[1]),
		"the response keeps its key and fields; the pruned image is gone")
	assert.Len(t, h.Contents[2].Parts[1].FunctionResponse.Parts, 1, "the input's part is not modified")
	for k, c := range h.Contents {
		if k != 2 {
			assert.Same(t, c, got.Contents[k])
		}
	}
}

func TestShortenedArgumentsKeepTheRestOfTheContent(t *testing.T) {
	h := decode(t, everyPartJSON)
	conv, err := Convert(h)
	require.NoError(t, err)
	out := compact.Clone(conv.Messages)
	out[2].ToolCalls[0].Function.Arguments = `{"path":"CHANGE…md"}`

	got, err := conv.Restore(out)
	require.NoError(t, err)
	parts, orig := got.Contents[1].Parts, h.Contents[1].Parts
	require.Len(t, parts, len(orig))
	for _, i := range []int{0, 1, 3} {
		assert.Same(t, orig[i], parts[i], "part %d (the thought, the text, the other call) is kept", i)
	}
	assert.JSONEq(t, `{"functionCall":{"name":"read_file","args":{"path":"CHANGE…md"}},"thoughtSignature":"Cq0CAdHtim9x"}`,
		jsonOf(t, parts[2]), "the call keeps its signature and its missing id")
}

func TestAChangedModelTextKeepsItsThoughtsAndCallFields(t *testing.T) {
	h := decode(t, everyPartJSON)
	conv, err := Convert(h)
	require.NoError(t, err)
	out := compact.Clone(conv.Messages)
	out[2].Content = "Reading."

	got, err := conv.Restore(out)
	require.NoError(t, err)
	parts, orig := got.Contents[1].Parts, h.Contents[1].Parts
	require.Len(t, parts, 4)
	assert.Same(t, orig[0], parts[0], "the signed thought is kept")
	assert.Equal(t, "Reading.", parts[1].Text)
	assert.Equal(t, orig[2], parts[2], "an unchanged call keeps its arguments and signature")
	assert.Equal(t, orig[3], parts[3])

	out[2].ReasoningContent = "Changed my mind."
	got, err = conv.Restore(out)
	require.NoError(t, err)
	assert.Len(t, got.Contents[1].Parts, 3, "a thought whose reasoning changed is not the model's any more: it goes")
}

func TestRestoreMergesOnlyTheSeamsCompactionMade(t *testing.T) {
	h := History{Contents: []*sdk.Content{user(text("a")), user(text("b")), model(text("c")), user(text("d")), model(text("e")), user(text("f"))}}
	conv, err := Convert(h)
	require.NoError(t, err)
	v := conv.Messages

	got, err := conv.Restore([]compact.Message{v[0], v[1], v[2], v[5]})
	require.NoError(t, err)
	assert.Equal(t, []*sdk.Content{h.Contents[0], h.Contents[1], h.Contents[2], h.Contents[5]}, got.Contents,
		"a and b were apart in the input and stay apart")

	got, err = conv.Restore([]compact.Message{v[0], v[1], v[3], v[5]})
	require.NoError(t, err)
	require.Len(t, got.Contents, 2, "b, d and f met only because c and e went: one content")
	assert.Same(t, h.Contents[0], got.Contents[0])
	assert.Equal(t, []*sdk.Part{h.Contents[1].Parts[0], h.Contents[3].Parts[0], h.Contents[5].Parts[0]}, got.Contents[1].Parts)
}

func TestAUserContentComesBackInItsOwnOrder(t *testing.T) {
	h := History{Contents: []*sdk.Content{
		user(text("q")), model(fcall("", "f"), fcall("", "f")),
		user(text("two results:"), fresp("", "f", "1"), text("and"), fresp("", "f", "2")),
		model(text("done")),
	}}
	conv, err := Convert(h)
	require.NoError(t, err)
	v := conv.Messages
	require.Equal(t, []string{"user", "assistant", "tool", "tool", "user", "assistant"},
		[]string{v[0].Role, v[1].Role, v[2].Role, v[3].Role, v[4].Role, v[5].Role}, "the engine sees the responses first")

	out := compact.Clone(v)
	out[3].Content = "[pruned]"
	got, err := conv.Restore(out)
	require.NoError(t, err)
	parts, orig := got.Contents[2].Parts, h.Contents[2].Parts
	require.Len(t, parts, 4)
	assert.Same(t, orig[0], parts[0], "the text before the responses is first again")
	assert.Same(t, orig[1], parts[1])
	assert.Same(t, orig[2], parts[2])
	assert.Equal(t, "[pruned]", parts[3].FunctionResponse.Response["output"])
}

func TestARestoredHistoryOpensOnAUserContent(t *testing.T) {
	h := History{
		System:   sdk.NewContentFromText("sys", sdk.RoleUser),
		Contents: []*sdk.Content{user(text("old")), model(text("old reply")), user(text("new"))},
	}
	conv, err := Convert(h)
	require.NoError(t, err)
	summary := compact.Message{Role: compact.RoleAssistant, Content: "Summary of old."}
	got, err := conv.Restore([]compact.Message{conv.Messages[0], summary, conv.Messages[3]})
	require.NoError(t, err)
	require.NoError(t, Validate(got))
	require.Len(t, got.Contents, 3)
	assert.Equal(t, continuationText, got.Contents[0].Parts[0].Text)
	assert.Equal(t, sdk.RoleModel, got.Contents[1].Role, "the summary stays the model's")
	assert.Equal(t, summary.Content, got.Contents[1].Parts[0].Text)
	assert.Same(t, h.Contents[2], got.Contents[2], "the latest user content is untouched")
}

func TestFromMessagesBuildsAHistoryWithTheAPIsShape(t *testing.T) {
	msgs := []compact.Message{
		{Role: compact.RoleSystem, Content: "sys"},
		{Role: roleDeveloper, Content: "dev"},
		{Role: compact.RoleAssistant, Content: "hello", ReasoningContent: "unsigned thoughts"},
		{Role: compact.RoleUser, MultiContent: []openai.ChatMessagePart{
			textPart("look"), imageURLPart("data:image/png;base64,AAAA"), imageURLPart("https://x.test/a.png"), textPart("  ")}},
		{Role: compact.RoleUser, Content: "again"},
		{Role: compact.RoleAssistant, ToolCalls: []openai.ToolCall{
			{ID: "c1", Function: openai.FunctionCall{Name: "f", Arguments: `{"a":1}`}},
			{ID: "c2", Function: openai.FunctionCall{Name: "g", Arguments: `not json`}}}},
		{Role: compact.RoleTool, ToolCallID: "c1", Content: "first"},
		{Role: compact.RoleTool, ToolCallID: "c2", Content: `{"ok":true}`},
		{Role: compact.RoleSystem, Content: "late rule"},
		{Role: compact.RoleAssistant, Content: "done", Refusal: "but not that"},
	}
	before := compact.Clone(msgs)
	h, err := FromMessages(msgs)
	require.NoError(t, err)
	require.Equal(t, before, msgs, "the input is not modified")
	require.NoError(t, Validate(h))
	want := `{"systemInstruction":{"parts":[{"text":"sys"},{"text":"dev"}]},"contents":[
	 {"role":"user","parts":[{"text":"` + continuationText + `"}]},
	 {"role":"model","parts":[{"text":"hello"}]},
	 {"role":"user","parts":[{"text":"look"},{"inlineData":{"data":"AAAA","mimeType":"image/png"}},
	   {"text":"[image: https://x.test/a.png]"},{"text":"again"}]},
	 {"role":"model","parts":[
	   {"functionCall":{"id":"c1","name":"f","args":{"a":1}}},
	   {"functionCall":{"id":"c2","name":"g","args":{"arguments":"not json"}}}]},
	 {"role":"user","parts":[
	   {"functionResponse":{"id":"c1","name":"f","response":{"output":"first"}}},
	   {"functionResponse":{"id":"c2","name":"g","response":{"output":"{\"ok\":true}"}}},
	   {"text":"late rule"}]},
	 {"role":"model","parts":[{"text":"done"},{"text":"but not that"}]}]}`
	assert.JSONEq(t, want, string(encode(t, h)))
}

func TestRestoreRefusesARoleWithNoPlace(t *testing.T) {
	_, err := FromMessages([]compact.Message{{Role: "critic", Content: "no"}})
	require.ErrorIs(t, err, compact.ErrInvalidHistory)
	assert.Equal(t, `genai: message 0: compact: invalid history: role "critic" has no place in a Gemini history`, err.Error())
}

func TestCallArgsAreAlwaysAnObject(t *testing.T) {
	for args, want := range map[string]string{
		`{"a":1}`:   `{"a":1}`,
		` {"a":1} `: `{"a":1}`,
		``:          `null`,
		`[1,2]`:     `{"arguments":"[1,2]"}`,
		`{"a":`:     `{"arguments":"{\"a\":"}`,
	} {
		data, err := json.Marshal(callArgs(args))
		require.NoError(t, err)
		assert.JSONEq(t, want, string(data), "arguments %q", args)
	}
}

func TestAChangedUserContentKeepsThePartsItKept(t *testing.T) {
	h := decode(t, everyPartJSON)
	conv, err := Convert(h)
	require.NoError(t, err)
	orig := h.Contents[0].Parts

	// An engine that keeps the parts and rewrites the image, as the
	// Compressor's pruning writes it: the parts joined by newlines.
	out := compact.Clone(conv.Messages)
	var lines []string
	for i, p := range conv.Messages[1].MultiContent {
		if i == 1 {
			lines = append(lines, "[image dropped]")
			continue
		}
		lines = append(lines, p.Text)
	}
	out[1] = compact.Message{Role: compact.RoleUser, Content: joinLines(lines)}
	got, err := conv.Restore(out)
	require.NoError(t, err)
	parts := got.Contents[0].Parts
	require.Len(t, parts, len(orig))
	for i := range orig {
		if i == 1 {
			assert.Equal(t, "[image dropped]", parts[i].Text)
			continue
		}
		assert.Same(t, orig[i], parts[i], "part %d is kept: text, audio, files with their metadata", i)
	}

	// A summary in the same place keeps nothing of the content it replaces.
	out = compact.Clone(conv.Messages)
	out[1] = compact.Message{Role: compact.RoleUser, Content: conv.Messages[1].MultiContent[0].Text}
	got, err = conv.Restore(out)
	require.NoError(t, err)
	assert.Equal(t, []*sdk.Part{{Text: out[1].Content}}, got.Contents[0].Parts,
		"a message that does not read part for part as the content is new")
}

func joinLines(lines []string) string {
	s := ""
	for i, l := range lines {
		if i > 0 {
			s += "\n"
		}
		s += l
	}
	return s
}
