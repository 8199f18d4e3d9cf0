package openaigo

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/openai/openai-go/v3"

	"github.com/contextkit/compact"
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
			if !errors.Is(err, compact.ErrInvalidHistory) {
				t.Fatalf("Convert: %v does not wrap ErrInvalidHistory", err)
			}
			return
		}
		_ = compact.Validate(conv.Messages)
		got, err := conv.Restore(conv.Messages)
		if err != nil {
			t.Fatalf("Restore of the conversion itself: %v", err)
		}
		after, err := json.Marshal(got)
		if err != nil {
			t.Fatal(err)
		}
		if string(before) != string(after) {
			t.Fatalf("round trip changed the body:\n%s\n%s", before, after)
		}
		if !reflect.DeepEqual(msgs, got) {
			t.Fatal("round trip gave back a different value with the same encoding")
		}
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
		if err := compact.Validate(res.Messages); err != nil {
			t.Fatalf("engine output: %v", err)
		}
		if err := Validate(out); err != nil {
			t.Fatalf("restored output: %v", err)
		}
		if !reflect.DeepEqual(msgs[len(msgs)-1], out[len(out)-1]) {
			t.Fatal("the last message changed")
		}
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
			if !errors.Is(err, compact.ErrInvalidHistory) {
				t.Fatalf("FromMessages: %v does not wrap ErrInvalidHistory", err)
			}
			return
		}
		if compact.Validate(msgs) == nil {
			if err := Validate(out); err != nil {
				t.Fatalf("a valid history converted into an invalid one: %v", err)
			}
		}
		conv, err := Convert(out)
		if err != nil {
			t.Fatalf("Convert of FromMessages' output: %v", err)
		}
		again, err := FromMessages(conv.Messages)
		if err != nil {
			t.Fatal(err)
		}
		a, _ := json.Marshal(out)
		b, _ := json.Marshal(again)
		if string(a) != string(b) {
			t.Fatalf("converting FromMessages' output and back changed it:\n%s\n%s", a, b)
		}
	})
}
