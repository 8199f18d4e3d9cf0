package openaigo

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/contextkit/compact"
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
		if !sameJSON(before, body) {
			t.Fatalf("DecodeItems changed the items:\n%s\n%s", body, before)
		}
		conv, err := ConvertItems(items)
		if err != nil {
			if !errors.Is(err, compact.ErrInvalidHistory) {
				t.Fatalf("ConvertItems: %v does not wrap ErrInvalidHistory", err)
			}
			return
		}
		_ = ValidateItems(items)
		got, err := conv.Restore(conv.Messages)
		if err != nil {
			t.Fatalf("Restore of the conversion itself: %v", err)
		}
		after, err := json.Marshal(got)
		if err != nil {
			t.Fatal(err)
		}
		if string(before) != string(after) {
			t.Fatalf("round trip changed the items:\n%s\n%s", before, after)
		}
		if !reflect.DeepEqual(items, got) {
			t.Fatal("round trip gave back different values with the same encoding")
		}
	})
}

// FuzzCompressItems compacts every valid decodable history through a
// Compressor with a tiny window: the output is a valid request, its last
// item the input's, and every reasoning item it holds one of the input's.
func FuzzCompressItems(f *testing.F) {
	seedItems(f)
	f.Fuzz(func(t *testing.T, body []byte) {
		items, err := DecodeItems(body)
		if err != nil || len(items) == 0 || ValidateItems(items) != nil {
			return
		}
		before, _ := json.Marshal(items)
		out, _, err := CompressItems(context.Background(), compact.New(compact.WithContextWindow(400)), items, compact.Force())
		if after, _ := json.Marshal(items); string(after) != string(before) {
			t.Fatal("the input was modified")
		}
		if err != nil {
			return
		}
		if err := ValidateItems(out); err != nil {
			t.Fatalf("the compacted history is not a valid request: %v", err)
		}
		if !reflect.DeepEqual(items[len(items)-1], out[len(out)-1]) {
			t.Fatal("the last item changed")
		}
		for _, u := range out {
			if u.OfReasoning != nil && indexOf(items, u) < 0 {
				t.Fatal("a reasoning item the input did not have")
			}
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
			if !errors.Is(err, compact.ErrInvalidHistory) {
				t.Fatalf("ItemsFromMessages: %v does not wrap ErrInvalidHistory", err)
			}
			return
		}
		if compact.Validate(msgs) == nil {
			if err := ValidateItems(out); err != nil && !errors.As(err, new(*ItemError)) {
				t.Fatalf("a valid history converted into one that does not convert: %v", err)
			}
		}
		conv, err := ConvertItems(out)
		if err != nil {
			t.Fatalf("ConvertItems of ItemsFromMessages' output: %v", err)
		}
		again, err := ItemsFromMessages(conv.Messages)
		if err != nil {
			t.Fatal(err)
		}
		a, _ := json.Marshal(out)
		b, _ := json.Marshal(again)
		if string(a) != string(b) {
			t.Fatalf("converting ItemsFromMessages' output and back changed it:\n%s\n%s", a, b)
		}
	})
}
