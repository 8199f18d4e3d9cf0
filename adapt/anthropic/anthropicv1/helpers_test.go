package anthropicv1

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"testing"

	sdk "github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/packages/param"
	"github.com/stretchr/testify/require"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/internal/sharedtest"
)

// ownTranscriptDir holds the small transcripts the root module wrote
// itself; they are always there.
const ownTranscriptDir = "../../../testdata/transcripts"

// wire is a History as JSON: what a request body carries.
type wire struct {
	System   []sdk.TextBlockParam `json:"system,omitempty"`
	Messages []sdk.MessageParam   `json:"messages"`
}

func encode(t testing.TB, h History) []byte {
	t.Helper()
	data, err := json.Marshal(wire(h))
	require.NoError(t, err)
	return data
}

func decode(t testing.TB, data string) History {
	t.Helper()
	var w wire
	require.NoError(t, json.Unmarshal([]byte(data), &w))
	return History(w)
}

// requireIdentical fails unless got is want: the same Go value and the same
// bytes on the wire.
func requireIdentical(t testing.TB, want, got History) {
	t.Helper()
	require.Equal(t, string(encode(t, want)), string(encode(t, got)), "the encoded histories differ")
	require.True(t, reflect.DeepEqual(want, got), "the histories encode alike but are different values")
}

// roundTrip converts h and restores the conversion's own messages.
func roundTrip(t testing.TB, h History) History {
	t.Helper()
	conv, err := Convert(h)
	require.NoError(t, err)
	out, err := conv.Restore(conv.Messages)
	require.NoError(t, err)
	return out
}

// transcripts reads the OpenAI-style transcripts of files by file name.
func transcripts(t testing.TB, files []string) map[string][]compact.Message {
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
// ones (see internal/sharedtest: it finds them beside any ancestor of the
// module; without them the test skips, or fails in CI).
func allTranscripts(t *testing.T) map[string][]compact.Message {
	t.Helper()
	out := map[string][]compact.Message{}
	own, _ := filepath.Glob(filepath.Join(ownTranscriptDir, "*.json"))
	for n, m := range transcripts(t, own) {
		out["own/"+n] = m
	}
	for n, m := range transcripts(t, sharedtest.Files(t)) {
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

// fromTranscript converts an OpenAI-style transcript to a History with the
// API's shape, then decorates it with the blocks and fields only the SDK
// has, so that round trips and compactions carry every kind of block:
// cache_control on the system prompt and on every fifth user turn,
// thinking (signed) before the calls of every other tool-calling turn and
// redacted thinking before the rest, is_error on results that mention an
// error, a document and an image in the first user turn.
func fromTranscript(t testing.TB, msgs []compact.Message) History {
	t.Helper()
	h, err := FromMessages(msgs)
	require.NoError(t, err)
	cc := sdk.CacheControlEphemeralParam{TTL: sdk.CacheControlEphemeralTTLTTL1h}
	if n := len(h.System); n > 0 {
		h.System[n-1].CacheControl = cc
	}
	calls, users := 0, 0
	for k := range h.Messages {
		m := &h.Messages[k]
		switch m.Role {
		case sdk.MessageParamRoleUser:
			users++
			if users == 1 {
				m.Content = append(m.Content,
					sdk.NewDocumentBlock(sdk.PlainTextSourceParam{Data: "Release notes: v2 drops the legacy flag."}),
					sdk.NewImageBlockBase64("image/png", "iVBORw0KGgo="))
			}
			for _, b := range m.Content {
				if r := b.OfToolResult; r != nil && len(r.Content) > 0 && r.Content[0].OfText != nil &&
					bytes.Contains(bytes.ToLower([]byte(r.Content[0].OfText.Text)), []byte("error")) {
					r.IsError = param.NewOpt(true)
				}
			}
			if users%5 == 0 {
				if b := m.Content[len(m.Content)-1]; b.OfText != nil {
					b.OfText.CacheControl = cc
				}
			}
		case sdk.MessageParamRoleAssistant:
			hasCalls := false
			for _, b := range m.Content {
				hasCalls = hasCalls || b.OfToolUse != nil
			}
			if !hasCalls {
				continue
			}
			calls++
			lead := sdk.NewRedactedThinkingBlock("EuYBCkQYAiJA" + string(rune('a'+calls%26)))
			if calls%2 == 1 {
				lead = sdk.NewThinkingBlock("sig-"+string(rune('a'+calls%26)), "I should call the tool next.")
			}
			m.Content = append([]sdk.ContentBlockParamUnion{lead}, m.Content...)
		}
	}
	require.NoError(t, Validate(h), "a decorated transcript has the API's shape")
	return h
}
