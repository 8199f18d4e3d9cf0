package codec

import (
	"bytes"
	"reflect"
	"testing"
	"unicode/utf8"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/models"
	openai "github.com/sashabaranov/go-openai"
)

// FuzzRoundTrip checks that what a store keeps decodes to the message it
// was given, byte for byte, for any text in any field, and that a message
// go-openai would refuse is refused with its index.
func FuzzRoundTrip(f *testing.F) {
	f.Add("user", "hello", "", "", false)
	f.Add("assistant", "", "grep", `{"pattern":"TODO"}`, false)
	f.Add("user", "a\x00b\xff", "part", "", true)
	f.Add("user", "", "%41\xff%", "{\"a\":\"\xc3\"}", true)
	f.Add("tool", "100% of %zz", "grep", "", false)
	f.Fuzz(func(t *testing.T, role, content, name, args string, parts bool) {
		m := compact.Message{Role: role, Content: content}
		if parts {
			m.MultiContent = []openai.ChatMessagePart{{Type: openai.ChatMessagePartTypeText, Text: name}}
		}
		if args != "" {
			m.ToolCalls = []openai.ToolCall{{ID: "c1", Type: openai.ToolTypeFunction, Function: openai.FunctionCall{Name: name, Arguments: args}}}
		}
		b, err := Message(3, m)
		if parts && content != "" {
			if err == nil {
				t.Fatal("a message with both Content and MultiContent was encoded")
			}
			return
		}
		if err != nil {
			t.Fatalf("Message: %v", err)
		}
		back, err := DecodeMessage(b)
		if err != nil {
			t.Fatalf("DecodeMessage(%s): %v", b, err)
		}
		// Nothing is lost, whatever the bytes.
		if !reflect.DeepEqual(back, m) {
			t.Fatalf("%+v came back as %+v from %s", m, back, b)
		}
		if !utf8.Valid(b) || bytes.IndexByte(b, 0) >= 0 {
			t.Fatalf("what a store keeps is not UTF-8 without NUL: %q", b)
		}
		all, err := Messages([]compact.Message{m, back})
		if err != nil {
			t.Fatal(err)
		}
		msgs, err := DecodeMessages(all)
		if err != nil || !reflect.DeepEqual(msgs, []compact.Message{m, m}) {
			t.Fatalf("DecodeMessages: %+v, %v", msgs, err)
		}
	})
}

// A Spend round-trips, priced figures and all; the zero Spend is "".
func TestSpendRoundTrips(t *testing.T) {
	eq, usd := 1234.5, 0.0037
	for _, s := range []models.Spend{
		{},
		{Requests: 3, Billed: models.Tokens{CacheRead: 9, CacheWrite: 2, Uncached: 1, Output: 4},
			SummarizerCalls: 1, Summarizer: models.Tokens{Uncached: 7, Output: 2},
			Compactions: map[string]int{"summary": 1, "idle": 1}, Equivalent: &eq, Dollars: &usd},
		{Compactions: map[string]int{"prune": 2}},
	} {
		text, err := Spend(s)
		if err != nil {
			t.Fatal(err)
		}
		got, err := DecodeSpend(text)
		if err != nil || !reflect.DeepEqual(got, s) {
			t.Fatalf("%+v came back as %+v (%v) from %q", s, got, err, text)
		}
	}
	if text, _ := Spend(models.Spend{}); text != "" {
		t.Fatalf("the zero Spend encodes as %q", text)
	}
	if _, err := DecodeSpend("{"); err == nil {
		t.Fatal("a broken Spend decoded")
	}
}
