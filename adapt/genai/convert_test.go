package genai

import (
	"encoding/json"
	"errors"
	"testing"

	openai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	sdk "google.golang.org/genai"

	"github.com/contextkit/compact"
)

func user(parts ...*sdk.Part) *sdk.Content  { return sdk.NewContentFromParts(parts, sdk.RoleUser) }
func model(parts ...*sdk.Part) *sdk.Content { return sdk.NewContentFromParts(parts, sdk.RoleModel) }
func text(s string) *sdk.Part               { return sdk.NewPartFromText(s) }

func fcall(id, name string) *sdk.Part {
	return &sdk.Part{FunctionCall: &sdk.FunctionCall{ID: id, Name: name, Args: map[string]any{"x": 1.0}}}
}

func fresp(id, name, out string) *sdk.Part {
	return &sdk.Part{FunctionResponse: &sdk.FunctionResponse{ID: id, Name: name, Response: map[string]any{"output": out}}}
}

func TestConvertThenRestoreGivesBackTheSameHistory(t *testing.T) {
	tests := []struct {
		name string
		h    History
	}{
		{"every part type, decoded from a request body", decode(t, everyPartJSON)},
		{"every part type, built with the SDK", everyPart()},
		{"nothing", History{}},
		{"empty but not nil", History{System: &sdk.Content{}, Contents: []*sdk.Content{}}},
		{"a system instruction and no contents", History{System: sdk.NewContentFromText("Be brief.", sdk.RoleUser)}},
		{"two user contents in a row stay two", History{Contents: []*sdk.Content{user(text("one")), user(text("two"))}}},
		{"two model contents in a row stay two", History{Contents: []*sdk.Content{
			user(text("go")), model(text("one")), model(text("two"))}}},
		{"a model content first stays first", History{Contents: []*sdk.Content{model(text("{"))}}},
		{"an empty role is the user's and stays empty", History{Contents: []*sdk.Content{
			{Parts: []*sdk.Part{text("hi")}}, model(text("hello"))}}},
		{"contents with no parts", History{Contents: []*sdk.Content{{Role: sdk.RoleUser}, {Role: sdk.RoleModel, Parts: []*sdk.Part{}}}}},
		{"a thought-only model content", History{Contents: []*sdk.Content{
			user(text("think")), model(&sdk.Part{Text: "hmm", Thought: true, ThoughtSignature: []byte("s")})}}},
		{"parts where the API refuses them", History{Contents: []*sdk.Content{
			user(text("x"), fcall("a", "f"), &sdk.Part{Text: "user thought", Thought: true}),
			model(fresp("b", "g", "misplaced"), &sdk.Part{})}}},
		{"a response before the text of its content", History{Contents: []*sdk.Content{
			user(text("q")), model(fcall("", "f"), fcall("", "f")),
			user(text("two results:"), fresp("", "f", "1"), text("and"), fresp("", "f", "2"))}}},
		{"an orphan response", History{Contents: []*sdk.Content{user(fresp("", "ghost", "boo"))}}},
		{"a pending call at the end", History{Contents: []*sdk.Content{user(text("run it")), model(fcall("", "sh"))}}},
		{"made-up ids that a real id already uses", History{Contents: []*sdk.Content{
			user(text("q")), model(fcall("fc_1_0", "f"), fcall("", "g")), user(fresp("fc_1_0", "f", "1"), fresp("", "g", "2"))}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := encode(t, tt.h)
			got := roundTrip(t, tt.h)
			requireIdentical(t, tt.h, got)
			require.Equal(t, string(before), string(encode(t, tt.h)), "the input is not modified")
			for k, c := range tt.h.Contents {
				assert.Same(t, c, got.Contents[k], "content %d comes back as the same pointer", k)
			}
			if tt.h.System != nil {
				assert.Same(t, tt.h.System, got.System)
			}
		})
	}
}

func TestConvertShowsTheEngineEveryPart(t *testing.T) {
	conv, err := Convert(decode(t, everyPartJSON))
	require.NoError(t, err)
	msgs := conv.Messages
	roles := make([]string, len(msgs))
	for i, m := range msgs {
		roles[i] = m.Role
	}
	require.Equal(t, []string{"system", "user", "assistant", "tool", "tool", "user", "assistant", "user", "assistant", "tool", "assistant"},
		roles, "one message per content, except that each function response is a tool message of its own")

	sys := msgs[0]
	assert.Equal(t, []string{"You are a careful release engineer.", "Answer in English."},
		[]string{sys.MultiContent[0].Text, sys.MultiContent[1].Text}, "the system instruction keeps its parts as parts")

	first := compact.Text(msgs[1])
	assert.Contains(t, first, "[image: image/png, ", "an inline image is an image")
	assert.Equal(t, "data:image/png;base64,iVBORw0KGgo=", msgs[1].MultiContent[1].ImageURL.URL)
	assert.Contains(t, first, "[inline data: audio/wav, 4 bytes]", "other inline data is named with its size")
	assert.Contains(t, first, "[file: notes.pdf, application/pdf, https://generativelanguage.googleapis.com/v1beta/files/abc123]")
	assert.Contains(t, first, "[file: video/mp4, gs://bucket/demo.mp4]")

	calls := msgs[2]
	assert.Equal(t, "Two files to read; read both at once.", calls.ReasoningContent, "thoughts are reasoning")
	assert.Equal(t, "Reading both files.", calls.Content)
	require.Len(t, calls.ToolCalls, 2, "parallel function calls are one turn's calls")
	assert.Equal(t, []string{"fc_1_2", "fc_1_3"}, []string{calls.ToolCalls[0].ID, calls.ToolCalls[1].ID},
		"calls without an id get one naming their content and part")
	assert.Equal(t, openai.FunctionCall{Name: "read_file", Arguments: `{"lines":[1,40],"path":"flags.go"}`}, calls.ToolCalls[1].Function)

	assert.Equal(t, "fc_1_2", msgs[3].ToolCallID, "a response without an id answers the first open call of its name")
	assert.Equal(t, "## v2\n- drop --legacy", msgs[3].Content, "an output alone reads as its text")
	assert.Equal(t, "fc_1_3", msgs[4].ToolCallID)
	assert.Equal(t, "error: open flags.go: no such file", msgs[4].MultiContent[0].Text, "a single text field reads as key: text")
	assert.True(t, hasImage(msgs[4]), "a response's image is an image")
	assert.Equal(t, "The flags live in cmd/flags.go now.", msgs[5].Content, "the text after the responses follows them")

	server := compact.Text(msgs[6])
	assert.Contains(t, server, "[executable code python]\nprint(")
	assert.Contains(t, server, "[code execution result outcome_ok]\n1024")
	assert.Contains(t, server, "[server tool call GOOGLE_SEARCH_WEB]\n"+`{"query":"legacy flag removal"}`)
	assert.Contains(t, server, `["Removing flags"]`)
	assert.Empty(t, msgs[6].ToolCalls, "server-side tool calls are not the host's to answer")

	assert.Equal(t, "call_7", msgs[8].ToolCalls[0].ID, "a call's own id is its id")
	assert.Equal(t, "call_7", msgs[9].ToolCallID)
	assert.Equal(t, `{"issues":0,"ok":true}`, msgs[9].Content, "any other response reads as its JSON")
	require.NoError(t, compact.Validate(msgs), "the conversion is a valid chat history")
}

func TestConvertPairsResponsesAsGeminiDoes(t *testing.T) {
	h := History{Contents: []*sdk.Content{
		user(text("q")),
		model(fcall("", "a"), fcall("", "b"), fcall("", "a"), fcall("x1", "c")),
		user(fresp("", "a", "1"), fresp("x1", "c", "2"), fresp("", "a", "3"), fresp("", "b", "4")),
	}}
	conv, err := Convert(h)
	require.NoError(t, err)
	ids := func(m compact.Message) (out []string) {
		for _, c := range m.ToolCalls {
			out = append(out, c.ID)
		}
		return out
	}
	require.Equal(t, []string{"fc_1_0", "fc_1_1", "fc_1_2", "x1"}, ids(conv.Messages[1]))
	var answered []string
	for _, m := range conv.Messages[2:] {
		answered = append(answered, m.ToolCallID)
	}
	assert.Equal(t, []string{"fc_1_0", "x1", "fc_1_2", "fc_1_1"}, answered,
		"by id when the response has one, else the first open call of its name, each once")
	require.NoError(t, compact.Validate(conv.Messages))
}

// FromMessages of what Convert made gives back a Gemini history whose
// calls and responses came without ids: the ids Convert made up are
// dropped again, the model's own kept.
func TestFromMessagesDropsTheIDsConvertMadeUp(t *testing.T) {
	h := History{Contents: []*sdk.Content{
		user(text("q")),
		model(fcall("", "a"), fcall("", "b"), fcall("", "a"), fcall("x1", "c")),
		user(fresp("", "a", "1"), fresp("x1", "c", "2"), fresp("", "a", "3"), fresp("", "b", "4")),
	}}
	conv, err := Convert(h)
	require.NoError(t, err)
	again, err := FromMessages(conv.Messages)
	require.NoError(t, err)
	want, err := json.Marshal(toWire(h))
	require.NoError(t, err)
	got, err := json.Marshal(toWire(again))
	require.NoError(t, err)
	assert.JSONEq(t, string(want), string(got))
	assert.Equal(t, "x1", again.Contents[1].Parts[3].FunctionCall.ID, "the model's own id stays")
}

func TestConvertFailsOnlyWhereNoMessageCanSay(t *testing.T) {
	tests := []struct {
		name string
		h    History
		want string
	}{
		{"a role the API does not have", History{Contents: []*sdk.Content{user(text("hi")), {Role: "tool", Parts: []*sdk.Part{text("x")}}}},
			`genai: content 1: compact: invalid history: role "tool"`},
		{"a nil content", History{Contents: []*sdk.Content{user(text("hi")), nil}},
			`genai: content 1: compact: invalid history: nil content`},
		{"a nil part", History{Contents: []*sdk.Content{user(text("hi"), nil)}},
			`genai: content 0: compact: invalid history: part 1: nil part`},
		{"a nil part in the system instruction", History{System: &sdk.Content{Parts: []*sdk.Part{nil}}},
			`genai: system instruction: compact: invalid history: part 0: nil part`},
		{"arguments that do not encode", History{Contents: []*sdk.Content{user(text("hi")),
			model(&sdk.Part{FunctionCall: &sdk.FunctionCall{Name: "f", Args: map[string]any{"c": make(chan int)}}})}},
			`genai: content 1: compact: invalid history: part 0: function call "f" arguments: json: unsupported type: chan int`},
		{"a response that does not encode", History{Contents: []*sdk.Content{
			user(&sdk.Part{FunctionResponse: &sdk.FunctionResponse{Name: "f", Response: map[string]any{"a": 1, "c": make(chan int)}}})}},
			`genai: content 0: compact: invalid history: part 0: function response "f": json: unsupported type: chan int`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Convert(tt.h)
			require.Error(t, err)
			assert.True(t, errors.Is(err, compact.ErrInvalidHistory))
			assert.Equal(t, tt.want, err.Error())
		})
	}
}
