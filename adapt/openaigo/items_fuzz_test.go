package openaigo

import (
	"context"
	"encoding/json"
	"maps"
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
	f.Add(msgtest.WithOps(everyItemJSON, opNull, 0, opNull, 3))
	f.Add(msgtest.WithOps(reusedIDItems, opLong, 2, opFields, 5))
	f.Add(msgtest.WithOps(everyItemJSON, opReuseID, 6, opFields, 4, opLong, 4))
}

// fuzzItems is the history a fuzz input describes: items as JSON, then,
// after a NUL, operations (see mutateItems), as DecodeItems reads it, and
// the JSON it read. ok is false when it does not decode.
func fuzzItems(data []byte) (items []Item, body []byte, ok bool) {
	body, ops := msgtest.SplitOps(data)
	body = mutateItems(body, ops)
	items, err := DecodeItems(body)
	return items, body, err == nil
}

// outputKey is what must stay of a function call or its output: the type,
// call id, item id and status.
func outputKey(u Item) (string, bool) {
	w, _, err := readWire(u)
	if err != nil || (w.Type != typeFunctionCall && w.Type != typeFunctionCallOutput) {
		return "", false
	}
	return w.Type + "\x00" + w.CallID + "\x00" + w.ID + "\x00" + w.Status, true
}

// FuzzConvertItemsRoundTrip feeds request inputs (items as JSON, then
// operations: see mutateItems) through DecodeItems, ConvertItems and
// Restore: items either convert, and come back as the same values and the
// same bytes, or fail with ErrInvalidHistory, as they do when a content or
// output part is null; nothing panics.
func FuzzConvertItemsRoundTrip(f *testing.F) {
	seedItems(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		items, body, ok := fuzzItems(data)
		if !ok {
			return
		}
		before, err := json.Marshal(items)
		if err != nil {
			return // the SDK cannot encode it either
		}
		require.True(t, sameJSON(before, body), "DecodeItems changed the items: %s", msgtest.Difference(body, before))
		conv, err := ConvertItems(items)
		if nullItemPart(items) {
			require.ErrorIs(t, err, compact.ErrInvalidHistory, "ConvertItems takes a part that encodes as null")
		}
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

// FuzzCompressItems compacts every valid history (items as JSON, then
// operations: see mutateItems) through a Compressor at a window that folds
// and one that prunes: the input is not modified, the output is a valid
// request, its last item the input's (maybe with the summary merged in
// front of it), every reasoning item it holds one of the input's, and
// every function call and output keeps the call id, item id and status of
// an input item of its own, whether or not the engine changed it and
// whether or not its call id repeats.
func FuzzCompressItems(f *testing.F) {
	seedItems(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		items, _, ok := fuzzItems(data)
		if !ok || len(items) == 0 || ValidateItems(items) != nil {
			return
		}
		keys := map[string]int{}
		for _, u := range items {
			if key, ok := outputKey(u); ok {
				keys[key]++
			}
		}
		before, _ := json.Marshal(items)
		for _, window := range []int{400, 8000} {
			out, _, err := CompressItems(context.Background(), compact.New(compact.WithContextWindow(window)), items, compact.Force())
			now, _ := json.Marshal(items)
			require.True(t, string(now) == string(before), "the input was modified: %s", msgtest.Difference(before, now))
			if err != nil {
				continue
			}
			require.NoError(t, ValidateItems(out), "the compacted history is not a valid request")
			require.True(t, sameOrShared(t, items[len(items)-1], out[len(out)-1]), "the last item changed")
			left := maps.Clone(keys)
			for k, u := range out {
				require.False(t, u.OfReasoning != nil && indexOf(items, u) < 0, "a reasoning item the input did not have")
				if key, ok := outputKey(u); ok {
					require.Positive(t, left[key], "item %d: %q keeps no input item's call id, id and status", k, key)
					left[key]--
				}
			}
		}
	})
}

// FuzzItemsFromMessages feeds go-openai histories (see
// msgtest.FuzzMessages: both contents and reused ids too) to
// ItemsFromMessages: nothing panics, a message with both contents is
// refused, a valid history becomes a valid request, and converting the
// result and back changes nothing.
func FuzzItemsFromMessages(f *testing.F) {
	seedTranscripts(f)
	f.Add([]byte(`[{"role":"assistant","content":"a","refusal":"r","tool_calls":[{"id":"c","type":"custom","function":{"name":"g","arguments":"x"}}]},{"role":"tool","tool_call_id":"c","content":"y"},{"role":"user","content":[{"type":"image_url","image_url":{"url":"x"}}]}]`))
	msgtest.FromMessagesSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		msgs, ok := msgtest.FuzzMessages(data)
		if !ok {
			return
		}
		out, err := ItemsFromMessages(msgs)
		if msgtest.BothContents(msgs) {
			require.ErrorIs(t, err, compact.ErrInvalidHistory, "a message with both contents converts, one of them lost")
		}
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

// nullItemPart reports whether an item's content or output holds a null
// part.
func nullItemPart(items []Item) bool {
	for _, u := range items {
		w, _, err := readWire(u)
		if err != nil {
			continue
		}
		_, inContent := nullElement(w.Content)
		_, inOutput := nullElement(w.Output)
		if inContent || inOutput {
			return true
		}
	}
	return false
}
