package langchaingo

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tmc/langchaingo/llms"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/internal/msgtest"
)

// ownTranscriptDir holds the small transcripts the root module wrote
// itself; they are always there.
const ownTranscriptDir = "../../testdata/transcripts"

func encode(t testing.TB, msgs []llms.MessageContent) []byte {
	t.Helper()
	data, err := json.Marshal(msgs)
	require.NoError(t, err)
	return data
}

func decode(t testing.TB, data string) []llms.MessageContent {
	t.Helper()
	var msgs []llms.MessageContent
	require.NoError(t, json.Unmarshal([]byte(data), &msgs))
	return msgs
}

// requireIdentical fails unless got is want: the same Go value and the same
// bytes as langchaingo encodes them.
func requireIdentical(t testing.TB, want, got []llms.MessageContent) {
	t.Helper()
	require.Equal(t, string(encode(t, want)), string(encode(t, got)), "the encoded histories differ")
	require.True(t, reflect.DeepEqual(want, got), "the histories encode alike but are different values")
}

// roundTrip converts msgs and restores the conversion's own messages.
func roundTrip(t testing.TB, msgs []llms.MessageContent) []llms.MessageContent {
	t.Helper()
	conv, err := Convert(msgs)
	require.NoError(t, err)
	out, err := conv.Restore(conv.Messages)
	require.NoError(t, err)
	return out
}

// allTranscripts returns the root module's own transcripts and the shared
// ones (skipping without them, or failing when CI requires them).
func allTranscripts(t *testing.T) map[string][]compact.Message {
	t.Helper()
	return msgtest.AllTranscripts(t, ownTranscriptDir)
}

// fromTranscript converts an OpenAI-style transcript to langchaingo's
// messages, then decorates it with what only langchaingo has, so round
// trips and compactions carry every kind of part: the tool responses of
// every other call group in one tool message, binary data (an image and
// a PDF) in the first human message, generic messages in place of every
// fifth human one.
func fromTranscript(t testing.TB, msgs []compact.Message) []llms.MessageContent {
	t.Helper()
	in, err := FromMessages(msgs)
	require.NoError(t, err)
	var out []llms.MessageContent
	humans, groups := 0, 0
	for _, m := range in {
		switch m.Role {
		case llms.ChatMessageTypeHuman:
			humans++
			if humans == 1 {
				m.Parts = append(m.Parts[:len(m.Parts):len(m.Parts)], llms.BinaryPart("image/png", []byte("\x89PNG\r\n")),
					llms.BinaryPart("application/pdf", []byte("%PDF-1.4")))
			}
			if humans%5 == 0 {
				m.Role = llms.ChatMessageTypeGeneric
			}
		case llms.ChatMessageTypeAI:
			for _, p := range m.Parts {
				if _, ok := asCall(p); ok {
					groups++
					break
				}
			}
		case llms.ChatMessageTypeTool:
			if n := len(out); groups%2 == 0 && n > 0 && out[n-1].Role == llms.ChatMessageTypeTool {
				out[n-1].Parts = append(out[n-1].Parts[:len(out[n-1].Parts):len(out[n-1].Parts)], m.Parts...)
				continue
			}
		}
		out = append(out, m)
	}
	return out
}

func jsonOf(t testing.TB, v any) string {
	t.Helper()
	data, err := json.Marshal(v)
	require.NoError(t, err)
	return string(data)
}
