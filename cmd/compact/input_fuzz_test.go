package main

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/contextkit/compact"
)

// FuzzDecodeTranscript feeds the decoder arbitrary bytes: it never panics,
// a failure is an *inputError (one line naming where), and a success
// decodes to messages with known roles, tool results that carry their
// call id, and an encoding the decoder reads back to the same messages.
func FuzzDecodeTranscript(f *testing.F) {
	for _, s := range []string{
		`[{"role":"user","content":"hi"}]`,
		`{"messages":[{"role":"system","content":"s"},{"role":"user","content":[{"type":"text","text":"a"}]}]}`,
		"{\"role\":\"user\",\"content\":\"a\"}\n{\"role\":\"assistant\",\"content\":null,\"tool_calls\":[{\"id\":\"c\",\"type\":\"function\",\"function\":{\"name\":\"f\",\"arguments\":\"{}\"}}]}\n{\"role\":\"tool\",\"tool_call_id\":\"c\",\"content\":\"r\"}",
		`[{"role":"bot"}]`, `[1,2]`, `{"a":1}`, `"x"`, `[`, ``, `[{"role":"user","content":5}]`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		tr, err := decodeTranscript(data)
		if err != nil {
			var ie *inputError
			if !errors.As(err, &ie) {
				t.Fatalf("error %v (%T) is not an *inputError", err, err)
			}
			return
		}
		for i, m := range tr.msgs {
			if !knownRoles[m.Role] {
				t.Fatalf("message %d: role %q accepted", i, m.Role)
			}
			if m.Role == compact.RoleTool && m.ToolCallID == "" {
				t.Fatalf("message %d: tool message without tool_call_id accepted", i)
			}
		}
		out, err := encodeMessages(tr.msgs)
		if err != nil {
			t.Fatal(err)
		}
		again, err := decodeTranscript(out)
		if err != nil {
			t.Fatalf("the encoding does not read back: %v\n%s", err, out)
		}
		a, _ := json.Marshal(tr.msgs)
		b, _ := json.Marshal(again.msgs)
		if len(tr.msgs) > 0 && string(a) != string(b) {
			t.Fatalf("round trip changed the messages:\n%s\n%s", a, b)
		}
	})
}
