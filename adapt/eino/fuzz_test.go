package eino

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/cloudwego/eino/schema"

	"github.com/contextkit/compact"
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
			t.Fatalf("round trip changed the history:\n%s\n%s", before, after)
		}
		if !reflect.DeepEqual(msgs, got) {
			t.Fatal("round trip gave back different values with the same encoding")
		}
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
		if after, _ := json.Marshal(msgs); string(after) != string(before) {
			t.Fatal("Compress modified its input")
		}
		if err != nil {
			return
		}
		if err := compact.Validate(res.Messages); err != nil {
			t.Fatalf("engine output: %v", err)
		}
		if err := Validate(out); err != nil {
			t.Fatalf("restored output: %v", err)
		}
		if conv, err := Convert(out); err != nil || !reflect.DeepEqual(conv.Messages, res.Messages) {
			t.Fatalf("the restored history does not read as the engine's output (%v)", err)
		}
		if !reflect.DeepEqual(msgs[len(msgs)-1], out[len(out)-1]) {
			t.Fatal("the last message changed")
		}
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
			if !errors.Is(err, compact.ErrInvalidHistory) {
				t.Fatalf("FromMessages: %v does not wrap ErrInvalidHistory", err)
			}
			return
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
