package langchaingo

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/tmc/langchaingo/llms"

	"github.com/contextkit/compact"
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
			if !errors.Is(err, compact.ErrInvalidHistory) {
				t.Fatalf("Convert: %v does not wrap ErrInvalidHistory", err)
			}
			return
		}
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
			t.Fatal("round trip gave back a different value with the same encoding")
		}
		if Validate(msgs) == nil {
			if err := compact.Validate(conv.Messages); err != nil {
				t.Fatalf("a history providers accept converted into an invalid chat history: %v", err)
			}
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
			if errors.Is(err, ErrShape) {
				t.Fatalf("a valid history compacted into an invalid one: %v", err)
			}
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
			if !errors.Is(err, compact.ErrInvalidHistory) {
				t.Fatalf("FromMessages: %v does not wrap ErrInvalidHistory", err)
			}
			return
		}
		if compact.Validate(msgs) == nil && callsNamed(msgs) {
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
