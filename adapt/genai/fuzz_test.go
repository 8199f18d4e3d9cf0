package genai

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/internal/msgtest"
	"github.com/stretchr/testify/require"
)

// FuzzConvertRoundTrip feeds request bodies through Convert and Restore:
// a body the SDK decodes either converts, and comes back as the same value
// and the same bytes, or fails with ErrInvalidHistory; nothing panics.
func FuzzConvertRoundTrip(f *testing.F) {
	f.Add([]byte(everyPartJSON))
	f.Add([]byte(`{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}`))
	f.Add([]byte(`{"contents":[{"role":"model","parts":[]},{"parts":[{"functionResponse":{"name":"f"}}]},null]}`))
	f.Add([]byte(`{"systemInstruction":{"parts":[{"text":"s"},null]},"contents":[{"role":"model","parts":[{"functionCall":{"name":"f"}},{"functionCall":{"id":"fc_0_0","name":"f"}}]}]}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		var w wire
		if json.Unmarshal(body, &w) != nil {
			return
		}
		h := fromWire(w)
		before, err := json.Marshal(toWire(h))
		if err != nil {
			return // the SDK cannot encode it either
		}
		conv, err := Convert(h)
		if err != nil {
			require.ErrorIs(t, err, compact.ErrInvalidHistory, "Convert")
			return
		}
		got, err := conv.Restore(conv.Messages)
		require.NoError(t, err, "Restore of the conversion itself")
		after, err := json.Marshal(toWire(got))
		require.NoError(t, err)
		require.True(t, string(before) == string(after), "round trip changed the body: %s", msgtest.Difference(before, after))
		require.True(t, reflect.DeepEqual(h, got), "round trip gave back a different value with the same encoding")
		if Validate(h) == nil {
			require.NoError(t, compact.Validate(conv.Messages), "a history with the API's shape converted into an invalid chat history")
		}
	})
}

// FuzzCompress compacts every decodable history with the API's shape
// through a Compressor with a tiny window: the output validates on both
// sides and its last content is the input's.
func FuzzCompress(f *testing.F) {
	f.Add([]byte(everyPartJSON))
	f.Add([]byte(`{"contents":[{"role":"user","parts":[{"text":"a"}]},{"role":"model","parts":[{"text":"b"}]},{"role":"user","parts":[{"text":"c"}]}]}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		var w wire
		if json.Unmarshal(body, &w) != nil || Validate(fromWire(w)) != nil {
			return
		}
		h := fromWire(w)
		out, res, err := Compress(context.Background(), compact.New(compact.WithContextWindow(400)), h, compact.Force())
		if err != nil {
			require.NotErrorIs(t, err, ErrShape, "a valid history compacted into an invalid one")
			return
		}
		require.NoError(t, compact.Validate(res.Messages), "engine output")
		require.NoError(t, Validate(out), "restored output")
		require.True(t, reflect.DeepEqual(h.Contents[len(h.Contents)-1], out.Contents[len(out.Contents)-1]), "the last content changed")
	})
}

// FuzzFromMessages feeds OpenAI-style histories to FromMessages: nothing
// panics; a history compact accepts, with no half-answered call group at
// its end, becomes one the Gemini API accepts; and converting the result
// and back changes nothing.
func FuzzFromMessages(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join(ownTranscriptDir, "*.json"))
	for _, file := range files {
		if data, err := os.ReadFile(file); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte(`[{"role":"assistant","content":"a"},{"role":"user","content":""},{"role":"assistant","tool_calls":[{"id":"x","type":"function","function":{"name":"f","arguments":"[]"}}]},{"role":"tool","tool_call_id":"x","content":"r"}]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var msgs []compact.Message
		if json.Unmarshal(data, &msgs) != nil {
			return
		}
		h, err := FromMessages(msgs)
		if err != nil {
			require.ErrorIs(t, err, compact.ErrInvalidHistory, "FromMessages")
			return
		}
		if compact.Validate(msgs) == nil && !msgtest.HalfAnswered(msgs) && !unnamedCall(msgs) && len(h.Contents) > 0 {
			require.NoError(t, Validate(h), "a valid history converted into an invalid one")
		}
		conv, err := Convert(h)
		require.NoError(t, err, "Convert of FromMessages' output")
		if missingID(msgs) {
			return // an id-less response takes its call's id in compact's view; no conversion can tell it had none
		}
		again, err := FromMessages(conv.Messages)
		require.NoError(t, err)
		a, _ := json.Marshal(toWire(h))
		b, _ := json.Marshal(toWire(again))
		require.True(t, string(a) == string(b), "converting FromMessages' output and back changed it: %s", msgtest.Difference(a, b))
	})
}

// missingID reports whether a tool call or a tool message has no id, which
// the OpenAI format requires and compact pairs by.
func missingID(msgs []compact.Message) bool {
	for _, m := range msgs {
		if m.Role == compact.RoleTool && m.ToolCallID == "" {
			return true
		}
		for _, c := range m.ToolCalls {
			if c.ID == "" {
				return true
			}
		}
	}
	return false
}

// unnamedCall reports whether a tool call has no function name: compact
// takes one, the Gemini API does not.
func unnamedCall(msgs []compact.Message) bool {
	for _, m := range msgs {
		for _, c := range m.ToolCalls {
			if c.Function.Name == "" {
				return true
			}
		}
	}
	return false
}
