package codec

import (
	"reflect"
	"testing"
	"unicode/utf8"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/models"
	openai "github.com/sashabaranov/go-openai"
)

// FuzzRoundTrip checks that what a store keeps decodes to a message that
// encodes the same way again, for any text in any field, and that a message
// go-openai would refuse is refused with its index.
func FuzzRoundTrip(f *testing.F) {
	f.Add("user", "hello", "", "", false)
	f.Add("assistant", "", "grep", `{"pattern":"TODO"}`, false)
	f.Add("user", "a\x00b\xff", "part", "", true)
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
		// The first trip may normalise (invalid UTF-8 becomes U+FFFD, as
		// it would on the way to a provider); after it, nothing changes.
		once, err := Message(0, back)
		if err != nil {
			t.Fatal(err)
		}
		back2, err := DecodeMessage(once)
		if err != nil {
			t.Fatal(err)
		}
		twice, err := Message(0, back2)
		if err != nil || string(twice) != string(once) {
			t.Fatalf("a second round trip changed the message:\n%s\n%s (%v)", once, twice, err)
		}
		if back.Content != content && utf8.ValidString(content) {
			t.Fatalf("content %q came back as %q", content, back.Content)
		}
		all, err := Messages([]compact.Message{m, back})
		if err != nil {
			t.Fatal(err)
		}
		msgs, err := DecodeMessages(all)
		if err != nil || len(msgs) != 2 {
			t.Fatalf("DecodeMessages: %d, %v", len(msgs), err)
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
