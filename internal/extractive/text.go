package extractive

import (
	"strings"

	openai "github.com/sashabaranov/go-openai"

	"github.com/contextkit/compact/internal/memo"
	"github.com/contextkit/compact/internal/textcut"
	"github.com/contextkit/compact/redact"
)

// This file shapes the text the extractive summary writes: one-line list
// entries, head-and-tail shortening that never splits a rune, and
// redaction that stays cheap on huge texts without letting a secret
// through at a cut.

// scanView returns m as the extractive summary reads it: its text, refusal
// and tool-call arguments redacted (JSON as JSON), so that nothing picked
// out of it (a path, an error line, a sentence) can be a piece of a secret
// cut from the context that said secret ("Bearer abc/x.py" is no path). m
// is left alone: the copy shares nothing that is changed. Each view is
// remembered in views for a message equal to m (nil remembers nothing).
func scanView(m Message, views *memo.Table[Message]) Message {
	if v, ok := views.Get(m); ok {
		return v
	}
	clean := func(s string) string {
		if s == "" {
			return s
		}
		return redact.JSON(s)
	}
	out := m
	out.Content = clean(m.Content)
	out.Refusal = clean(m.Refusal)
	if len(m.MultiContent) > 0 {
		out.MultiContent = append([]openai.ChatMessagePart(nil), m.MultiContent...)
		for i := range out.MultiContent {
			out.MultiContent[i].Text = clean(out.MultiContent[i].Text)
		}
	}
	if len(m.ToolCalls) > 0 {
		out.ToolCalls = append([]openai.ToolCall(nil), m.ToolCalls...)
		for i := range out.ToolCalls {
			out.ToolCalls[i].Function.Arguments = clean(out.ToolCalls[i].Function.Arguments)
		}
	}
	if m.FunctionCall != nil {
		fc := *m.FunctionCall
		fc.Arguments = clean(fc.Arguments)
		out.FunctionCall = &fc
	}
	views.Put(m, out)
	return out
}

// shortenMark replaces what shorten cuts from the middle of a text.
const shortenMark = " […] "

// itemText is how a list entry is written: redacted, on one line (line
// breaks shown as ⏎), and shortened to n bytes.
func itemText(raw string, n int) string {
	return textcut.Middle(redact.JSON(textcut.OneLine(redactWindows(raw, n))), n, textcut.InBytes, textcut.TwoThirds, shortenMark)
}

// redactMargin is how far past what shortening keeps redaction looks, so a
// secret that starts in the kept part and runs past it is still matched
// whole. Keys and tokens are far shorter; private key blocks, which are
// not, are handled by cutUnclosedKey.
const redactMargin = 1024

// redactWindows prepares s for textcut.Middle(·, keep, textcut.InBytes, textcut.TwoThirds, shortenMark) without redacting all of a
// huge text: when s is far longer than keep it returns its first and last
// keep+redactMargin bytes, each redacted, joined by shortenMark; shorten
// then takes its head and tail from those windows. Shorter texts are
// redacted whole. Text that is JSON is read as JSON (redact.JSON).
func redactWindows(s string, keep int) string {
	w := keep + redactMargin
	if len(s) <= 2*w+len(shortenMark) {
		return redact.JSON(s)
	}
	head := cutUnclosedKey(redact.JSON(textcut.Head(s, w)), true)
	tail := cutUnclosedKey(redact.JSON(textcut.Tail(s, w)), false)
	return head + shortenMark + tail
}

// cutUnclosedKey redacts a key block that a window cut in two, which
// redact.String cannot match: in a head window, from an unclosed BEGIN line to
// the end; in a tail window, from the start to an END line with no BEGIN.
func cutUnclosedKey(s string, head bool) string {
	const begin, end = "-----BEGIN ", "-----END "
	if head {
		if i := strings.LastIndex(s, begin); i >= 0 && !strings.Contains(s[i:], end) {
			return s[:i] + redact.Marker
		}
		return s
	}
	if i := strings.Index(s, end); i >= 0 && !strings.Contains(s[:i], begin) {
		rest := s[i+len(end):]
		if k := strings.Index(rest, "-----"); k >= 0 {
			return redact.Marker + rest[k+len("-----"):]
		}
		return redact.Marker
	}
	return s
}

// normalizeBlock trims a quoted field and drops carriage returns.
func normalizeBlock(s string) string {
	return strings.TrimSpace(strings.ReplaceAll(s, "\r", ""))
}
