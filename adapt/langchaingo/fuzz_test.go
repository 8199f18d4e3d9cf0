package langchaingo

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tmc/langchaingo/llms"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/internal/msgtest"
)

// FuzzConvertRoundTrip feeds histories as langchaingo encodes them through
// Convert and Restore: one that decodes either converts, and comes back as
// the same value and the same bytes, or fails with ErrInvalidHistory;
// nothing panics.
func FuzzConvertRoundTrip(f *testing.F) {
	f.Add([]byte(everyPartJSON))
	f.Add([]byte(`[{"role":"human","text":"hi"}]`))
	f.Add([]byte(`[{"role":"tool","parts":[{"type":"text","text":"x"},{"type":"tool_response","tool_response":{"tool_call_id":"a","name":"f","content":""}}]},{"role":"ai","parts":[]}]`))
	f.Fuzz(func(t *testing.T, body []byte) {
		var msgs []llms.MessageContent
		if json.Unmarshal(body, &msgs) != nil {
			return
		}
		before, err := json.Marshal(msgs)
		if err != nil {
			return
		}
		conv, err := Convert(msgs)
		if err != nil {
			require.ErrorIs(t, err, compact.ErrInvalidHistory, "Convert")
			return
		}
		got, err := conv.Restore(conv.Messages)
		require.NoError(t, err, "Restore of the conversion itself")
		after, err := json.Marshal(got)
		require.NoError(t, err)
		require.True(t, string(before) == string(after), "round trip changed the history: %s", msgtest.Difference(before, after))
		require.True(t, reflect.DeepEqual(msgs, got), "round trip gave back a different value with the same encoding")
		if Validate(msgs) == nil {
			require.NoError(t, compact.Validate(conv.Messages), "a history providers accept converted into an invalid chat history")
		}
	})
}

// FuzzCompress compacts every decodable history Validate accepts through a
// Compressor with a tiny window: the output validates on both sides and
// its last message is the input's.
func FuzzCompress(f *testing.F) {
	f.Add([]byte(everyPartJSON))
	f.Add([]byte(`[{"role":"human","text":"a"},{"role":"ai","text":"b"},{"role":"human","text":"c"}]`))
	f.Fuzz(func(t *testing.T, body []byte) {
		var msgs []llms.MessageContent
		if json.Unmarshal(body, &msgs) != nil || len(msgs) == 0 || Validate(msgs) != nil {
			return
		}
		out, res, err := Compress(context.Background(), compact.New(compact.WithContextWindow(400)), msgs, compact.Force())
		if err != nil {
			require.NotErrorIs(t, err, ErrShape, "a valid history compacted into an invalid one")
			return
		}
		require.NoError(t, compact.Validate(res.Messages), "engine output")
		require.NoError(t, Validate(out), "restored output")
		require.True(t, reflect.DeepEqual(msgs[len(msgs)-1], out[len(out)-1]), "the last message changed")
	})
}

// FuzzFromMessages feeds OpenAI-style histories to FromMessages: nothing
// panics, a history compact accepts whose calls all name a function
// becomes one Validate accepts, and converting the result and back
// changes nothing.
func FuzzFromMessages(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join(ownTranscriptDir, "*.json"))
	for _, file := range files {
		if data, err := os.ReadFile(file); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte(`[{"role":"assistant","content":" "},{"role":"user","content":""},{"role":"assistant","tool_calls":[{"id":"x","type":"function","function":{"name":"f","arguments":"[]"}}]},{"role":"tool","tool_call_id":"x","content":"r"}]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var msgs []compact.Message
		if json.Unmarshal(data, &msgs) != nil {
			return
		}
		out, err := FromMessages(msgs)
		if err != nil {
			require.ErrorIs(t, err, compact.ErrInvalidHistory, "FromMessages")
			return
		}
		if compact.Validate(msgs) == nil && callsNamed(msgs) {
			require.NoError(t, Validate(out), "a valid history converted into an invalid one")
		}
		conv, err := Convert(out)
		require.NoError(t, err, "Convert of FromMessages' output")
		again, err := FromMessages(conv.Messages)
		require.NoError(t, err)
		a, _ := json.Marshal(out)
		b, _ := json.Marshal(again)
		require.True(t, string(a) == string(b), "converting FromMessages' output and back changed it: %s", msgtest.Difference(a, b))
	})
}

// callsNamed reports whether every tool call names its function, as
// langchaingo's providers need and compact does not.
func callsNamed(msgs []compact.Message) bool {
	for _, m := range msgs {
		for _, c := range m.ToolCalls {
			if c.Function.Name == "" {
				return false
			}
		}
	}
	return true
}
