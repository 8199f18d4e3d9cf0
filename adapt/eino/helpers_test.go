package eino

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/cloudwego/eino/schema"
	"github.com/stretchr/testify/require"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/internal/sharedtest"
)

// ownTranscriptDir holds the small transcripts the root module wrote
// itself; they are always there.
const ownTranscriptDir = "../../testdata/transcripts"

func encode(t testing.TB, msgs []*schema.Message) string {
	t.Helper()
	data, err := json.Marshal(msgs)
	require.NoError(t, err)
	return string(data)
}

func decode(t testing.TB, data string) []*schema.Message {
	t.Helper()
	var msgs []*schema.Message
	require.NoError(t, json.Unmarshal([]byte(data), &msgs))
	return msgs
}

// requireIdentical fails unless got is want: the same Go values and the
// same bytes on the wire.
func requireIdentical(t testing.TB, want, got []*schema.Message) {
	t.Helper()
	require.Equal(t, encode(t, want), encode(t, got), "the encoded histories differ")
	require.True(t, reflect.DeepEqual(want, got), "the histories encode alike but are different values")
}

// roundTrip converts msgs and restores the conversion's own messages.
func roundTrip(t testing.TB, msgs []*schema.Message) []*schema.Message {
	t.Helper()
	conv, err := Convert(msgs)
	require.NoError(t, err)
	out, err := conv.Restore(conv.Messages)
	require.NoError(t, err)
	return out
}

// readTranscripts returns the OpenAI-style transcripts of files by name.
func readTranscripts(t testing.TB, files []string) map[string][]compact.Message {
	t.Helper()
	out := make(map[string][]compact.Message, len(files))
	for _, f := range files {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		var msgs []compact.Message
		require.NoError(t, json.Unmarshal(data, &msgs), f)
		out[filepath.Base(f)] = msgs
	}
	return out
}

// allTranscripts returns the root module's own transcripts and the shared
// ones (see internal/sharedtest: without them the test skips, or fails in
// CI).
func allTranscripts(t *testing.T) map[string][]compact.Message {
	t.Helper()
	own, _ := filepath.Glob(filepath.Join(ownTranscriptDir, "*.json"))
	out := map[string][]compact.Message{}
	for n, m := range readTranscripts(t, own) {
		out["own/"+n] = m
	}
	for n, m := range readTranscripts(t, sharedtest.Files(t)) {
		out["shared/"+n] = m
	}
	return out
}

func sortedNames(m map[string][]compact.Message) []string {
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// fromTranscript converts an OpenAI-style transcript to eino messages, then
// decorates them with the fields only eino has, so that round trips and
// compactions carry every kind: usage and a finish reason on every
// assistant turn, Extra on every third message and on every other tool
// call, tool names on results, the first user message as input parts with
// an image and a file, every fourth assistant turn's text as output parts
// after a signed reasoning part, and reasoning content on every fifth.
func fromTranscript(t testing.TB, msgs []compact.Message) []*schema.Message {
	t.Helper()
	out, err := FromMessages(msgs)
	require.NoError(t, err)
	names := map[string]string{}
	users, assistants, calls := 0, 0, 0
	for i, u := range out {
		if i%3 == 2 {
			u.Extra = map[string]any{"trace": "t" + strings.Repeat("x", i%5)}
		}
		switch u.Role {
		case schema.User:
			users++
			if users == 1 && u.Content != "" {
				data := "iVBORw0KGgo="
				u.UserInputMultiContent = []schema.MessageInputPart{
					{Type: schema.ChatMessagePartTypeText, Text: u.Content},
					{Type: schema.ChatMessagePartTypeImageURL, Image: &schema.MessageInputImage{
						MessagePartCommon: schema.MessagePartCommon{Base64Data: &data, MIMEType: "image/png"}, Detail: schema.ImageURLDetailLow}},
					{Type: schema.ChatMessagePartTypeFileURL, File: &schema.MessageInputFile{
						MessagePartCommon: schema.MessagePartCommon{Base64Data: &data, MIMEType: "application/pdf"}, Name: "notes.pdf"}},
				}
				u.Content = ""
			}
		case schema.Assistant:
			assistants++
			u.ResponseMeta = &schema.ResponseMeta{FinishReason: "stop",
				Usage: &schema.TokenUsage{PromptTokens: 1000 * assistants, CompletionTokens: 50, TotalTokens: 1000*assistants + 50}}
			for k := range u.ToolCalls {
				calls++
				names[u.ToolCalls[k].ID] = u.ToolCalls[k].Function.Name
				if calls%2 == 0 {
					u.ToolCalls[k].Extra = map[string]any{"provider_id": "p" + u.ToolCalls[k].ID}
				}
			}
			if assistants%4 == 0 && u.Content != "" {
				u.AssistantGenMultiContent = []schema.MessageOutputPart{
					{Type: schema.ChatMessagePartTypeReasoning, Reasoning: &schema.MessageOutputReasoning{Text: "Think first.", Signature: "sig"}},
					{Type: schema.ChatMessagePartTypeText, Text: u.Content},
				}
				u.Content = ""
			}
			if assistants%5 == 0 {
				u.ReasoningContent = "Weigh the options."
			}
		case schema.Tool:
			u.ToolName = names[u.ToolCallID]
		}
	}
	return out
}
