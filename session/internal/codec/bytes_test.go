package codec

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/contextkit/compact"
	openai "github.com/sashabaranov/go-openai"
)

// fill sets every string reachable from v (through structs, slices and
// pointers, which it allocates) to text followed by the string's path, so
// that a field go-openai adds one day is covered without naming it here.
func fill(v reflect.Value, text, path string) {
	switch v.Kind() {
	case reflect.String:
		v.SetString(text + path)
	case reflect.Pointer:
		if v.IsNil() {
			v.Set(reflect.New(v.Type().Elem()))
		}
		fill(v.Elem(), text, path)
	case reflect.Slice:
		if v.IsNil() {
			v.Set(reflect.MakeSlice(v.Type(), 1, 1))
		}
		for i := 0; i < v.Len(); i++ {
			fill(v.Index(i), text, fmt.Sprintf("%s[%d]", path, i))
		}
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				fill(v.Field(i), text, path+"."+v.Type().Field(i).Name)
			}
		}
	}
}

// Every string a message holds comes back byte for byte, whatever it
// holds: invalid UTF-8, NUL, '%' and things that look like escapes.
func TestEveryStringKeepsItsBytes(t *testing.T) {
	for _, text := range []string{"a\xffb\x00c%", "%41%zz%", "\xc3(\xed\xa0\x80 U+FFFD:\uFFFD", "plain"} {
		for _, parts := range []bool{false, true} {
			var m compact.Message
			fill(reflect.ValueOf(&m).Elem(), text, "")
			if parts {
				m.Content = ""
			} else {
				m.MultiContent = nil
			}
			b, err := Message(0, m)
			if err != nil {
				t.Fatalf("%q: %v", text, err)
			}
			back, err := DecodeMessage(b)
			if err != nil {
				t.Fatalf("%q: DecodeMessage(%s): %v", text, b, err)
			}
			if !reflect.DeepEqual(back, m) {
				t.Errorf("%q came back changed:\n got %+v\nwant %+v\nkept %s", text, back, m, b)
			}
			all, err := Messages([]compact.Message{m, {Role: "user", Content: "100%"}})
			if err != nil {
				t.Fatal(err)
			}
			msgs, err := DecodeMessages(all)
			if err != nil || len(msgs) != 2 || !reflect.DeepEqual(msgs[0], m) || msgs[1].Content != "100%" {
				t.Errorf("%q: DecodeMessages: %+v, %v", text, msgs, err)
			}
		}
	}
}

// A message whose text is all UTF-8 is kept as go-openai's own JSON, as
// before; so what earlier versions kept, which is that same JSON (with
// U+FFFD where bytes were not UTF-8), reads as it always did: a '%' in it
// is text, never an escape.
func TestPlainMessagesAreGoOpenAIJSON(t *testing.T) {
	m := compact.Message{Role: "tool", ToolCallID: "c1", Content: "100%41 done \uFFFD"}
	b, err := Message(0, m)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := json.Marshal(m)
	if string(b) != string(want) {
		t.Fatalf("kept %s, want go-openai's %s", b, want)
	}
	for _, old := range []string{
		`{"role":"user","content":"a\ufffdb %41 %zz"}`,
		`{"role":"user","content":"mentions x-compact-encoding in its text %41"}`,
	} {
		back, err := DecodeMessage([]byte(old))
		if err != nil {
			t.Fatal(err)
		}
		var direct compact.Message
		_ = json.Unmarshal([]byte(old), &direct)
		if !reflect.DeepEqual(back, direct) {
			t.Errorf("%s read as %+v", old, back)
		}
		msgs, err := DecodeMessages([]byte("[" + old + "]"))
		if err != nil || len(msgs) != 1 || !reflect.DeepEqual(msgs[0], direct) {
			t.Errorf("[%s] read as %+v, %v", old, msgs, err)
		}
	}
}

// Escaped text that no escape wrote, or an escape this version does not
// know, is an error, never text read wrongly.
func TestBrokenEscapesAreErrors(t *testing.T) {
	for _, b := range []string{
		`{"x-compact-encoding":"percent","role":"user","content":"50%"}`,
		`{"x-compact-encoding":"percent","role":"user","content":"%4"}`,
		`{"x-compact-encoding":"percent","role":"user","content":"%zz"}`,
		`{"x-compact-encoding":"base64","role":"user","content":"QQ=="}`,
	} {
		if m, err := DecodeMessage([]byte(b)); err == nil {
			t.Errorf("%s decoded to %+v", b, m)
		}
		if _, err := DecodeMessages([]byte("[" + b + "]")); err == nil || !strings.Contains(err.Error(), "message 0") {
			t.Errorf("[%s]: %v, want an error naming message 0", b, err)
		}
	}
}

// Encoding does not touch the caller's message, whose slices it shares.
func TestEscapingCopies(t *testing.T) {
	m := compact.Message{Role: "user", MultiContent: []openai.ChatMessagePart{{Type: "text", Text: "a\xff"}}}
	if _, err := Message(0, m); err != nil {
		t.Fatal(err)
	}
	if m.MultiContent[0].Text != "a\xff" {
		t.Fatalf("the caller's part became %q", m.MultiContent[0].Text)
	}
}
