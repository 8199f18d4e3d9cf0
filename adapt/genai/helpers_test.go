package genai

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	sdk "google.golang.org/genai"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/internal/msgtest"
)

// ownTranscriptDir holds the small transcripts the root module wrote
// itself; they are always there.
const ownTranscriptDir = "../../testdata/transcripts"

// wire is a History as JSON: what a generateContent request body carries.
type wire struct {
	SystemInstruction *sdk.Content   `json:"systemInstruction,omitempty"`
	Contents          []*sdk.Content `json:"contents"`
}

func toWire(h History) wire   { return wire{SystemInstruction: h.System, Contents: h.Contents} }
func fromWire(w wire) History { return History{System: w.SystemInstruction, Contents: w.Contents} }

func encode(t testing.TB, h History) []byte {
	t.Helper()
	data, err := json.Marshal(toWire(h))
	require.NoError(t, err)
	return data
}

func decode(t testing.TB, data string) History {
	t.Helper()
	var w wire
	require.NoError(t, json.Unmarshal([]byte(data), &w))
	return fromWire(w)
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

// allTranscripts returns the root module's own transcripts and the shared
// ones (skipping without them, or failing when CI requires them).
func allTranscripts(t *testing.T) map[string][]compact.Message {
	t.Helper()
	return msgtest.AllTranscripts(t, ownTranscriptDir)
}

// fromTranscript converts an OpenAI-style transcript to a History with the
// API's shape, then decorates it with the parts and fields only the SDK
// has, so that round trips and compactions carry every kind of part: a
// signed thought before the calls of every calling content and the
// signature on its first call, the ids of every other calling content's
// calls and responses cleared (so they pair by name, as the Gemini API
// without ids does), a signature-only part closing every third model
// content, an inline image, audio and file data in the first user content,
// part metadata on every fifth user text.
func fromTranscript(t testing.TB, msgs []compact.Message) History {
	t.Helper()
	h, err := FromMessages(msgs)
	require.NoError(t, err)
	calling, models, users := 0, 0, 0
	for k, c := range h.Contents {
		c = &sdk.Content{Role: c.Role, Parts: append([]*sdk.Part(nil), c.Parts...)}
		h.Contents[k] = c
		switch c.Role {
		case sdk.RoleUser:
			users++
			if users == 1 {
				c.Parts = append(c.Parts,
					&sdk.Part{InlineData: &sdk.Blob{MIMEType: "image/png", Data: []byte("\x89PNG\r\n"), DisplayName: "screen.png"}},
					&sdk.Part{InlineData: &sdk.Blob{MIMEType: "audio/wav", Data: []byte("RIFF")}},
					sdk.NewPartFromURI("gs://bucket/notes.pdf", "application/pdf"))
			}
			for i, p := range c.Parts {
				if users%5 == 0 && p.Text != "" {
					q := *p
					q.PartMetadata = map[string]any{"turn": float64(users)}
					c.Parts[i] = &q
				}
				if fr := p.FunctionResponse; fr != nil && calling%2 == 0 {
					q, r := *p, *fr
					r.ID = ""
					q.FunctionResponse = &r
					c.Parts[i] = &q
				}
			}
		case sdk.RoleModel:
			models++
			first := true
			for i, p := range c.Parts {
				if p.FunctionCall == nil {
					continue
				}
				q, fc := *p, *p.FunctionCall
				if first {
					q.ThoughtSignature = []byte(fmt.Sprintf("sig-%d", k))
					first = false
				}
				if (calling+1)%2 == 0 {
					fc.ID = ""
				}
				q.FunctionCall = &fc
				c.Parts[i] = &q
			}
			if !first {
				calling++
				c.Parts = append([]*sdk.Part{{Text: "I should call the tool next.", Thought: true,
					ThoughtSignature: []byte(fmt.Sprintf("t-%d", k))}}, c.Parts...)
			}
			if models%3 == 0 {
				c.Parts = append(c.Parts, &sdk.Part{ThoughtSignature: []byte("end")})
			}
		}
	}
	require.NoError(t, Validate(h), "a decorated transcript has the API's shape")
	return h
}

func jsonOf(t testing.TB, v any) string {
	t.Helper()
	data, err := json.Marshal(v)
	require.NoError(t, err)
	return string(data)
}

// jsonString is s as it appears inside a JSON document.
func jsonString(t testing.TB, s string) string {
	return strings.Trim(jsonOf(t, s), `"`)
}
