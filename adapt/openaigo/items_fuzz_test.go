package openaigo

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

// seedItems adds Responses histories to f's corpus: every item type, the
// root module's own transcripts as items, and a few generated histories.
func seedItems(f *testing.F) {
	f.Add([]byte(everyItemJSON))
	files, _ := filepath.Glob(filepath.Join(ownTranscriptDir, "*.json"))
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			continue
		}
		var msgs []compact.Message
		if json.Unmarshal(data, &msgs) != nil {
			continue
		}
		if items, err := ItemsFromMessages(msgs); err == nil {
			if body, err := json.Marshal(withReasoning(items)); err == nil {
				f.Add(body)
			}
		}
	}
	for seed := uint64(0); seed < 4; seed++ {
		if body, err := json.Marshal(genHistory(seed)); err == nil {
			f.Add(body)
		}
	}
}

// FuzzConvertItemsRoundTrip feeds request inputs through DecodeItems,
// ConvertItems and Restore: items either convert, and come back as the
// same values and the same bytes, or fail with ErrInvalidHistory; nothing
// panics.
func FuzzConvertItemsRoundTrip(f *testing.F) {
	seedItems(f)
	f.Fuzz(func(t *testing.T, body []byte) {
		items, err := DecodeItems(body)
		if err != nil {
			return
		}
		before, err := json.Marshal(items)
		if err != nil {
			return // the SDK cannot encode it either
		}
		require.True(t, sameJSON(before, body), "DecodeItems changed the items: %s", msgtest.Difference(body, before))
		conv, err := ConvertItems(items)
		if err != nil {
			require.ErrorIs(t, err, compact.ErrInvalidHistory, "ConvertItems")
			return
		}
		_ = ValidateItems(items)
		got, err := conv.Restore(conv.Messages)
		require.NoError(t, err, "Restore of the conversion itself")
		after, err := json.Marshal(got)
		require.NoError(t, err)
		require.True(t, string(before) == string(after), "round trip changed the items: %s", msgtest.Difference(before, after))
		require.True(t, reflect.DeepEqual(items, got), "round trip gave back different values with the same encoding")
	})
}

// FuzzCompressItems compacts every valid decodable history through a
// Compressor with a tiny window: the output is a valid request, its last
// item the input's (maybe with the summary merged in front of it), and
// every reasoning item it holds one of the input's.
func FuzzCompressItems(f *testing.F) {
	seedItems(f)
	f.Fuzz(func(t *testing.T, body []byte) {
		items, err := DecodeItems(body)
		if err != nil || len(items) == 0 || ValidateItems(items) != nil {
			return
		}
		before, _ := json.Marshal(items)
		out, _, err := CompressItems(context.Background(), compact.New(compact.WithContextWindow(400)), items, compact.Force())
		now, _ := json.Marshal(items)
		require.True(t, string(now) == string(before), "the input was modified: %s", msgtest.Difference(before, now))
		if err != nil {
			return
		}
		require.NoError(t, ValidateItems(out), "the compacted history is not a valid request")
		require.True(t, sameOrShared(t, items[len(items)-1], out[len(out)-1]), "the last item changed")
		for _, u := range out {
			require.False(t, u.OfReasoning != nil && indexOf(items, u) < 0, "a reasoning item the input did not have")
		}
	})
}

// FuzzItemsFromMessages feeds go-openai histories to ItemsFromMessages:
// nothing panics, a valid history becomes a valid request, and converting
// the result and back changes nothing.
func FuzzItemsFromMessages(f *testing.F) {
	seedTranscripts(f)
	f.Add([]byte(`[{"role":"assistant","content":"a","refusal":"r","tool_calls":[{"id":"c","type":"custom","function":{"name":"g","arguments":"x"}}]},{"role":"tool","tool_call_id":"c","content":"y"},{"role":"user","content":[{"type":"image_url","image_url":{"url":"x"}}]}]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var msgs []compact.Message
		if json.Unmarshal(data, &msgs) != nil {
			return
		}
		out, err := ItemsFromMessages(msgs)
		if err != nil {
			require.ErrorIs(t, err, compact.ErrInvalidHistory, "ItemsFromMessages")
			return
		}
		if compact.Validate(msgs) == nil {
			if err := ValidateItems(out); err != nil {
				require.ErrorAs(t, err, new(*ItemError), "a valid history converted into one that does not convert")
			}
		}
		conv, err := ConvertItems(out)
		require.NoError(t, err, "ConvertItems of ItemsFromMessages' output")
		again, err := ItemsFromMessages(conv.Messages)
		require.NoError(t, err)
		a, _ := json.Marshal(out)
		b, _ := json.Marshal(again)
		require.True(t, string(a) == string(b), "converting ItemsFromMessages' output and back changed it: %s", msgtest.Difference(a, b))
	})
}
