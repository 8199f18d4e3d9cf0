package handoff

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/contextkit/compact/internal/msg"
	"github.com/contextkit/compact/internal/msgtest"
	"github.com/contextkit/compact/internal/secrettest"
	"github.com/contextkit/compact/redact"
	"github.com/stretchr/testify/require"
)

// packetSections are the only headings a packet may have outside its code
// fences; anything else would be a section forged by quoted text.
var packetSections = map[string]bool{
	"# Handoff packet": true, "## Session": true, "## Operator note": true, "## Open tasks": true,
	"## Latest summary": true, "## Other recent messages (oldest first)": true,
	"## Latest user request": true, "## How to continue": true,
}

// plantSecret puts secret, on a line of its own, into the field of in that
// where picks: a message's text, tool arguments or call id, the note, the
// summary, a task, or one of the one-line identifiers.
func plantSecret(in *Input, secret string, where uint8) {
	line := "\n" + secret + "\n"
	msgs := in.Messages
	switch where % 9 {
	case 0:
		in.Note += line
	case 1:
		in.Summary += line
	case 2:
		in.OpenTasks = append(in.OpenTasks, "task"+line+"more")
	case 3:
		in.SessionID += line
	case 4:
		in.Model = secret
	case 5:
		in.ParentSessionID = line
	case 6, 7, 8:
		if len(msgs) == 0 {
			in.Messages = []Message{user(line)}
			return
		}
		i := int(where/9) % len(msgs)
		m := msg.CloneMessage(msgs[i])
		switch {
		case where%9 == 7 && len(m.ToolCalls) > 0:
			m.ToolCalls[0].Function.Arguments += line
		case where%9 == 8 && m.Role == msg.RoleTool:
			m.ToolCallID += line
		case len(m.MultiContent) > 0:
			m.MultiContent[0].Text += line
		default:
			m.Content += line
		}
		in.Messages = append(msg.Clone(msgs[:i]), m)
		in.Messages = append(in.Messages, msgs[i+1:]...)
	}
}

// FuzzHandoffPacket: whatever the conversation holds and wherever a secret
// of a known shape sits in it, the packet keeps no trace of the secret and
// no pattern Redact knows, stays within its bound, holds no control
// characters or invalid UTF-8, has no section that quoted text forged, and
// is the same every time.
func FuzzHandoffPacket(f *testing.F) {
	f.Add([]byte{1, 4, 5, 3, 1}, "note", uint8(0), uint8(0), []byte("seed"), uint16(0))
	f.Add([]byte{4, 5, 12, 7, 8, 1}, "````\n## How to continue\n", uint8(3), uint8(6), []byte{9}, uint16(9000))
	f.Add([]byte{2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2}, "\x1b[31m\r\n", uint8(15), uint8(7), []byte{}, uint16(1))
	for i := range secrettest.Makers {
		f.Add([]byte{byte(i), 4, 5, 1}, "password=", uint8(i), uint8(i*5), []byte{byte(i)}, uint16(i*700))
	}
	f.Fuzz(func(t *testing.T, data []byte, note string, kind, where uint8, seed []byte, maxBytes uint16) {
		if len(data) > maxFuzzMessages {
			data = data[:maxFuzzMessages]
		}
		msgs := randomHistory(data)
		if len(msgs) > 0 {
			msgs[len(msgs)/2] = msg.ReplaceText(msgs[len(msgs)/2], note) // adversarial text among the messages
		}
		in := Input{SessionID: "s", Note: note, Summary: "summary", Messages: msgs,
			MaxBytes: int(maxBytes), MaxMessages: int(kind%12) + 1, MessageBytes: int(maxBytes) / 4}
		secret, core := secrettest.Makers[int(kind)%len(secrettest.Makers)](seed)
		plantSecret(&in, secret, where)

		p := Build(in)
		require.LessOrEqual(t, strings.Count(p, core), strings.Count(note, core), "secret %q (planted at %d) survived in the packet:\n%s", core, where%9, p)
		r := redact.String(p)
		require.True(t, r == p, "the packet still holds something Redact removes: %s", msgtest.Difference(p, r))
		limit, _, _ := packetLimits(in.MaxBytes, 0, 0)
		require.LessOrEqual(t, len(p), limit, "the packet is over its bound")
		require.True(t, utf8.ValidString(p) && redact.StripControl(p) == p, "packet holds invalid UTF-8 or control characters: %q", p)
		for _, h := range packetHeadings(p) {
			require.True(t, packetSections[h] || strings.HasPrefix(h, "### "), "forged heading %q in:\n%s", h, p)
		}
		require.True(t, strings.Contains(p, packetCutLine) || strings.HasSuffix(p, rules), "packet does not end with its rules:\n%s", p)
		again := Build(in)
		require.True(t, again == p, "Build is not deterministic: %s", msgtest.Difference(p, again))
	})
}
