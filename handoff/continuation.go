package handoff

import (
	"fmt"
	"strings"

	"github.com/contextkit/compact/internal/msg"
)

// Continuation is the whole context of a fresh session continuing from
// packet: the leading system messages of in, without note (the compaction
// note a Compressor appends to a compacted system prompt, "" for none), and
// one user message holding the packet. The system messages come back as
// the host wrote them, byte for byte. The result passes compact.Validate;
// an error reports that it would not, which is a bug.
func Continuation(in []Message, note, packet string) ([]Message, error) {
	var out []Message
	for _, m := range in {
		if !msg.IsSystem(m) {
			break
		}
		out = append(out, msg.CloneMessage(m))
	}
	if len(out) > 0 && note != "" {
		out[0] = withoutNote(out[0], note)
	}
	out = append(out, Message{Role: msg.RoleUser, Content: packet})
	if err := msg.Validate(out); err != nil {
		return nil, fmt.Errorf("handoff: continuation is invalid: %w", err)
	}
	return out, nil
}

// withoutNote returns a system message with the compaction note (as a
// Compressor appends it) taken out, so the continuation's system prompt is
// the host's own, byte for byte.
func withoutNote(m Message, note string) Message {
	if len(m.MultiContent) > 0 {
		out := msg.CloneMessage(m)
		out.MultiContent = out.MultiContent[:0]
		for _, p := range m.MultiContent {
			if p.ImageURL == nil && p.Text == note {
				continue
			}
			out.MultiContent = append(out.MultiContent, p)
		}
		return out
	}
	if strings.Contains(m.Content, msg.CompactionNoteSep+note) {
		return msg.ReplaceText(m, strings.Replace(m.Content, msg.CompactionNoteSep+note, "", 1))
	}
	return m
}
