package eino

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/cloudwego/eino/schema"
	"github.com/stretchr/testify/require"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/internal/msgtest"
)

// FuzzConvertRoundTrip feeds eino histories (as JSON) through Convert and
// Restore: a history either converts, and comes back as the same values and
// the same bytes, or fails with ErrInvalidHistory; nothing panics.
func FuzzConvertRoundTrip(f *testing.F) {
	f.Add([]byte(everyKindJSON))
	f.Add([]byte(`[{"role":"user","content":"hi"},null]`))
	f.Add([]byte(`[{"role":"assistant","content":"","assistant_output_multi_content":[{"type":"reasoning"}]},{"role":""}]`))
	f.Add([]byte(`[{"role":"tool","tool_call_id":"x","user_input_multi_content":[{"type":"image_url","image":{}}]}]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var msgs []*schema.Message
		if json.Unmarshal(data, &msgs) != nil {
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
		_ = compact.Validate(conv.Messages)
		got, err := conv.Restore(conv.Messages)
		require.NoError(t, err, "Restore of the conversion itself")
		after, err := json.Marshal(got)
		require.NoError(t, err)
		require.True(t, string(before) == string(after), "round trip changed the history: %s", msgtest.Difference(before, after))
		require.True(t, reflect.DeepEqual(msgs, got), "round trip gave back different values with the same encoding")
	})
}

// FuzzCompress compacts every decodable valid history through a Compressor
// with a tiny window: the input is not modified, the output is a valid
// request on both sides and reads as the engine's output, and its last
// message is the input's.
func FuzzCompress(f *testing.F) {
	f.Add([]byte(everyKindJSON))
	f.Add([]byte(`[{"role":"system","content":"s"},{"role":"user","content":"a"},{"role":"assistant","content":"b"},{"role":"user","content":"c"}]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var msgs []*schema.Message
		if json.Unmarshal(data, &msgs) != nil || len(msgs) == 0 || Validate(msgs) != nil {
			return
		}
		before, err := json.Marshal(msgs)
		if err != nil {
			return
		}
		out, res, err := Compress(context.Background(), compact.New(compact.WithContextWindow(400)), msgs, compact.Force())
		now, _ := json.Marshal(msgs)
		require.True(t, string(now) == string(before), "Compress modified its input: %s", msgtest.Difference(before, now))
		if err != nil {
			return
		}
		require.NoError(t, compact.Validate(res.Messages), "engine output")
		require.NoError(t, Validate(out), "restored output")
		conv, err := Convert(out)
		require.NoError(t, err, "the restored history does not convert")
		require.True(t, reflect.DeepEqual(conv.Messages, res.Messages), "the restored history does not read as the engine's output")
		require.True(t, reflect.DeepEqual(msgs[len(msgs)-1], out[len(out)-1]), "the last message changed")
	})
}

// FuzzFromMessages feeds go-openai histories to FromMessages: nothing
// panics, and converting its output and back changes nothing.
func FuzzFromMessages(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join(ownTranscriptDir, "*.json"))
	for _, file := range files {
		if data, err := os.ReadFile(file); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte(`[{"role":"assistant","content":"a","refusal":"no"},{"role":"user","MultiContent":[{"type":"image_url","image_url":{"url":"data:image/png;base64,AA=="}}]},{"role":"tool","tool_call_id":"x","MultiContent":[{"type":"text","text":"r"}]}]`))
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
		conv, err := Convert(out)
		require.NoError(t, err, "Convert of FromMessages' output")
		again, err := FromMessages(conv.Messages)
		require.NoError(t, err)
		a, _ := json.Marshal(out)
		b, _ := json.Marshal(again)
		require.True(t, string(a) == string(b), "converting FromMessages' output and back changed it: %s", msgtest.Difference(a, b))
	})
}
