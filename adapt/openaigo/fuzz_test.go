package openaigo

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/stretchr/testify/require"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/internal/msgtest"
)

// seedTranscripts adds the root module's own transcripts to f's corpus.
func seedTranscripts(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join(ownTranscriptDir, "*.json"))
	for _, file := range files {
		if data, err := os.ReadFile(file); err == nil {
			f.Add(data)
		}
	}
}

// FuzzConvertRoundTrip feeds request bodies through Convert and Restore:
// messages the SDK decodes either convert, and come back as the same value
// and the same bytes, or fail with ErrInvalidHistory; nothing panics.
func FuzzConvertRoundTrip(f *testing.F) {
	f.Add([]byte(everyPartJSON))
	seedTranscripts(f)
	f.Fuzz(func(t *testing.T, body []byte) {
		var msgs []openai.ChatCompletionMessageParamUnion
		if json.Unmarshal(body, &msgs) != nil {
			return
		}
		before, err := json.Marshal(msgs)
		if err != nil {
			return // the SDK cannot encode it either
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
		require.True(t, string(before) == string(after), "round trip changed the body: %s", msgtest.Difference(before, after))
		require.True(t, reflect.DeepEqual(msgs, got), "round trip gave back a different value with the same encoding")
	})
}

// FuzzCompress compacts every valid decodable history through a
// Compressor with a tiny window: the output is a valid request on both
// sides, and its last message is the input's.
func FuzzCompress(f *testing.F) {
	f.Add([]byte(everyPartJSON))
	seedTranscripts(f)
	f.Fuzz(func(t *testing.T, body []byte) {
		var msgs []openai.ChatCompletionMessageParamUnion
		if json.Unmarshal(body, &msgs) != nil || len(msgs) == 0 || Validate(msgs) != nil {
			return
		}
		out, res, err := Compress(context.Background(), compact.New(compact.WithContextWindow(400)), msgs, compact.Force())
		if err != nil {
			return
		}
		require.NoError(t, compact.Validate(res.Messages), "engine output")
		require.NoError(t, Validate(out), "restored output")
		require.True(t, reflect.DeepEqual(msgs[len(msgs)-1], out[len(out)-1]), "the last message changed")
	})
}

// FuzzFromMessages feeds go-openai histories to FromMessages: nothing
// panics, a valid history stays valid, and converting the result and back
// changes nothing.
func FuzzFromMessages(f *testing.F) {
	seedTranscripts(f)
	f.Add([]byte(`[{"role":"assistant","content":"a","reasoning_content":"r"},{"role":"user","content":[{"type":"image_url","image_url":{"url":"x"}}]},{"role":"function","name":"f"}]`))
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
		if compact.Validate(msgs) == nil {
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
