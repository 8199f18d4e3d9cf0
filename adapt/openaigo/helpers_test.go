package openaigo

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/stretchr/testify/require"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/internal/sharedtest"
)

// ownTranscriptDir holds the small transcripts the root module wrote
// itself; they are always there.
const ownTranscriptDir = "../../testdata/transcripts"

func encode(t testing.TB, msgs []openai.ChatCompletionMessageParamUnion) string {
	t.Helper()
	data, err := json.Marshal(msgs)
	require.NoError(t, err)
	return string(data)
}

func decode(t testing.TB, data string) []openai.ChatCompletionMessageParamUnion {
	t.Helper()
	var msgs []openai.ChatCompletionMessageParamUnion
	require.NoError(t, json.Unmarshal([]byte(data), &msgs))
	return msgs
}

func jsonOf(t testing.TB, v any) string {
	t.Helper()
	data, err := json.Marshal(v)
	require.NoError(t, err)
	return string(data)
}

// requireIdentical fails unless got is want: the same Go value and the same
// bytes on the wire.
func requireIdentical(t testing.TB, want, got []openai.ChatCompletionMessageParamUnion) {
	t.Helper()
	require.Equal(t, encode(t, want), encode(t, got), "the encoded histories differ")
	require.True(t, reflect.DeepEqual(want, got), "the histories encode alike but are different values")
}

// roundTrip converts msgs and restores the conversion's own messages.
func roundTrip(t testing.TB, msgs []openai.ChatCompletionMessageParamUnion) []openai.ChatCompletionMessageParamUnion {
	t.Helper()
	conv, err := Convert(msgs)
	require.NoError(t, err)
	out, err := conv.Restore(conv.Messages)
	require.NoError(t, err)
	return out
}

// transcripts reads the raw transcripts of files by file name.
func transcripts(t testing.TB, files []string) map[string][]byte {
	t.Helper()
	out := make(map[string][]byte, len(files))
	for _, f := range files {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		out[filepath.Base(f)] = data
	}
	return out
}

// allTranscripts returns the root module's own transcripts and the shared
// ones (see internal/sharedtest: it finds them beside any ancestor of the
// module; without them the test skips, or fails in CI).
func allTranscripts(t *testing.T) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	own, _ := filepath.Glob(filepath.Join(ownTranscriptDir, "*.json"))
	for n, m := range transcripts(t, own) {
		out["own/"+n] = m
	}
	for n, m := range transcripts(t, sharedtest.Files(t)) {
		out["shared/"+n] = m
	}
	return out
}

func sortedNames(m map[string][]byte) []string {
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// decorate adds to a decoded transcript what only the SDK has, so that
// round trips and compactions carry every kind of part and field: a prompt
// cache breakpoint on the system prompt (as a part list), a name, a file,
// input audio and a detailed image in the first user turn, a refusal part
// and an audio reference on the first plain assistant turn, and the first
// call of every third tool-calling turn as a custom call.
func decorate(t testing.TB, msgs []openai.ChatCompletionMessageParamUnion) []openai.ChatCompletionMessageParamUnion {
	t.Helper()
	users, calls, plain := 0, 0, 0
	for _, u := range msgs {
		switch {
		case u.OfSystem != nil && u.OfSystem.Content.OfString.Valid():
			p := openai.ChatCompletionContentPartTextParam{Text: u.OfSystem.Content.OfString.Value}
			p.PromptCacheBreakpoint.Ttl = "1h"
			u.OfSystem.Content = openai.ChatCompletionSystemMessageParamContentUnion{
				OfArrayOfContentParts: []openai.ChatCompletionContentPartTextParam{p}}
		case u.OfUser != nil:
			users++
			if users > 1 || !u.OfUser.Content.OfString.Valid() {
				continue
			}
			u.OfUser.Name = param.NewOpt("dana")
			u.OfUser.Content.OfArrayOfContentParts = append(u.OfUser.Content.OfArrayOfContentParts,
				openai.TextContentPart(u.OfUser.Content.OfString.Value),
				openai.FileContentPart(openai.ChatCompletionContentPartFileFileParam{Filename: param.NewOpt("spec.pdf"), FileData: param.NewOpt("JVBERi0=")}),
				openai.InputAudioContentPart(openai.ChatCompletionContentPartInputAudioInputAudioParam{Data: "UklGRg==", Format: "wav"}),
				openai.ImageContentPart(openai.ChatCompletionContentPartImageImageURLParam{URL: "https://example.com/a.png", Detail: "high"}))
			u.OfUser.Content.OfString = param.Opt[string]{}
		case u.OfAssistant != nil && len(u.OfAssistant.ToolCalls) > 0:
			calls++
			if calls%3 == 0 && u.OfAssistant.ToolCalls[0].OfFunction != nil {
				f := u.OfAssistant.ToolCalls[0].OfFunction
				u.OfAssistant.ToolCalls[0] = openai.ChatCompletionMessageToolCallUnionParam{OfCustom: &openai.ChatCompletionMessageCustomToolCallParam{
					ID: f.ID, Custom: openai.ChatCompletionMessageCustomToolCallCustomParam{Name: f.Function.Name, Input: f.Function.Arguments}}}
			}
		case u.OfAssistant != nil && u.OfAssistant.Content.OfString.Valid():
			plain++
			if plain > 1 {
				continue
			}
			u.OfAssistant.Audio.ID = "audio_1"
			u.OfAssistant.Content = openai.ChatCompletionAssistantMessageParamContentUnion{
				OfArrayOfContentParts: []openai.ChatCompletionAssistantMessageParamContentArrayOfContentPartUnion{
					{OfText: &openai.ChatCompletionContentPartTextParam{Text: u.OfAssistant.Content.OfString.Value}},
					{OfRefusal: &openai.ChatCompletionContentPartRefusalParam{Refusal: "I will not guess."}}}}
		}
	}
	require.NoError(t, Validate(msgs), "a decorated transcript is a valid request")
	return msgs
}

// viewsOf converts msgs and returns the views.
func viewsOf(t testing.TB, msgs []openai.ChatCompletionMessageParamUnion) []compact.Message {
	t.Helper()
	conv, err := Convert(msgs)
	require.NoError(t, err)
	return conv.Messages
}
