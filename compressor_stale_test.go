package compact

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/contextkit/compact/internal/msg"
	"github.com/contextkit/compact/internal/msgtest"
	"github.com/contextkit/compact/tokens"
)

// What a Compressor remembers of a history it compacted (counts, prompt
// estimates, the facts scan, the summarizer's redacted views) is never
// served for a message changed since (issue 34.2): the caller edits
// messages of the very slice it passed before, in place (a text, a tool
// call's arguments through the slice they share, a tool result's error
// line; edits that keep a text's length and its first and last bytes, so
// the memos' cheap keys do not change), and the next compaction's Result is
// a fresh Compressor's on a copy. It fails when a memo serves a value on
// its key alone, or keeps a shallow copy of a message.
func TestChangedMessageIsNeverServedStale(t *testing.T) {
	ctx := context.Background()
	for _, sum := range []struct {
		name string
		s    func() Summarizer
	}{
		{"instant", func() Summarizer { return instantSummary }},
		{"extractive", func() Summarizer { return NewExtractiveSummarizer(nil) }},
	} {
		for _, edit := range []struct {
			name string
			do   func(h []Message)
		}{
			{"user text", func(h []Message) { h[41].Content += " Also check the race detector." }},
			{"one byte of a text", func(h []Message) { h[41].Content = strings.Replace(h[41].Content, "tests", "t.e.s", 1) }},
			{"arguments in place", func(h []Message) { h[62].ToolCalls[0].Function.Arguments = `{"command":"go vet ./..."}` }},
			{"one byte of arguments", func(h []Message) {
				h[62].ToolCalls[0].Function.Arguments = strings.Replace(h[62].ToolCalls[0].Function.Arguments, "test", "t,s.", 1)
			}},
			{"tool result", func(h []Message) { h[103].Content = "error: pkg25/x.go:3: undefined: y\nFAIL" }},
			{"tail reply", func(h []Message) { h[len(h)-1].Content = "Everything passes now, all 100 packages." }},
		} {
			t.Run(sum.name+"/"+edit.name, func(t *testing.T) {
				h := allocHistory(400)
				compressor := func() *Compressor {
					tc, err := tokens.ForEncoding(tokens.EncodingO200KBase)
					if err != nil {
						t.Fatal(err)
					}
					return New(WithContextWindow(8_000), WithSummarizer(sum.s()), WithTokenCounter(tc))
				}
				reused, fresh := compressor(), compressor()
				if _, err := reused.Compress(ctx, h, Force()); err != nil {
					t.Fatal(err)
				}
				edit.do(h)
				got, err := reused.Compress(ctx, h, Force())
				if err != nil {
					t.Fatal(err)
				}
				want, err := fresh.Compress(ctx, msg.Clone(h), Force())
				if err != nil {
					t.Fatal(err)
				}
				if g, w := resultJSON(t, got), resultJSON(t, want); g != w {
					t.Errorf("after an edit in place the Result differs from a fresh copy's:\n%s",
						msgtest.Excerpt(fmt.Sprintf("got  %s\nwant %s", g, w)))
				}
			})
		}
	}
}

// resultJSON is res as JSON with its Duration zeroed.
func resultJSON(t *testing.T, res *Result) string {
	t.Helper()
	r := *res
	r.Duration = 0
	data, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}
