package align

import (
	"strings"

	openai "github.com/sashabaranov/go-openai"

	"github.com/contextkit/compact"
)

// This file reads a message an engine changed against the message it was
// given, part by part, for the adapters that keep the SDK's own parts of
// whatever the engine did not change.

// ContentParts returns m's content as parts: MultiContent, or Content as one
// text part, or nothing.
func ContentParts(m compact.Message) []openai.ChatMessagePart {
	if len(m.MultiContent) > 0 {
		return m.MultiContent
	}
	if m.Content == "" {
		return nil
	}
	return []openai.ChatMessagePart{{Type: openai.ChatMessagePartTypeText, Text: m.Content}}
}

// IsImage reports whether p is an image part.
func IsImage(p openai.ChatMessagePart) bool {
	return p.ImageURL != nil || p.Type == openai.ChatMessagePartTypeImageURL
}

// EditedParts reads m, an engine's rewrite of view, part for part: as its
// parts when it has as many as view, or as view's parts joined by newlines
// (how the Compressor writes a message whose images it replaced by notes),
// where a text part is there as it was and any other part is one line of
// text. It returns the parts read, those the engine kept being view's own.
// ok is false when m cannot be read so, or view has fewer than two parts
// (a one-part message is simply new).
func EditedParts(view, m compact.Message) (parts []openai.ChatMessagePart, ok bool) {
	vp := ContentParts(view)
	if len(vp) < 2 {
		return nil, false
	}
	if len(m.MultiContent) == len(vp) {
		return m.MultiContent, true
	}
	if len(m.MultiContent) > 0 {
		return nil, false
	}
	return ReadAsParts(m.Content, vp)
}

// ReadAsParts reads s as view's parts joined by newlines, where a text part
// is there as it was and any other part is one line of text; see
// EditedParts.
func ReadAsParts(s string, view []openai.ChatMessagePart) ([]openai.ChatMessagePart, bool) {
	out := make([]openai.ChatMessagePart, 0, len(view))
	rest := s
	for i, v := range view {
		if i > 0 {
			var ok bool
			if rest, ok = strings.CutPrefix(rest, "\n"); !ok {
				return nil, false
			}
		}
		if !IsImage(v) {
			var ok bool
			if rest, ok = strings.CutPrefix(rest, v.Text); !ok {
				return nil, false
			}
			out = append(out, v)
			continue
		}
		line, _, _ := strings.Cut(rest, "\n")
		rest = rest[len(line):]
		out = append(out, openai.ChatMessagePart{Type: openai.ChatMessagePartTypeText, Text: line})
	}
	return out, rest == ""
}

// Extension reports whether m is v with text added at its end (as the
// Compressor adds its note to a system prompt), and returns the additions:
// the rest of v's last part without the newlines that start it, then any
// parts after it. Blank additions are left out. Both must be text only.
func Extension(v, m compact.Message) ([]string, bool) {
	vp, ok1 := partTexts(v)
	mp, ok2 := partTexts(m)
	n := len(vp)
	if !ok1 || !ok2 || n == 0 || len(mp) < n {
		return nil, false
	}
	for i := 0; i < n-1; i++ {
		if vp[i] != mp[i] {
			return nil, false
		}
	}
	rest, ok := strings.CutPrefix(mp[n-1], vp[n-1])
	if !ok {
		return nil, false
	}
	var extra []string
	for _, s := range append([]string{strings.TrimLeft(rest, "\n")}, mp[n:]...) {
		if strings.TrimSpace(s) != "" {
			extra = append(extra, s)
		}
	}
	return extra, true
}

// partTexts is m's content as the texts of its parts; false when a part is
// not text.
func partTexts(m compact.Message) ([]string, bool) {
	var out []string
	for _, p := range ContentParts(m) {
		if IsImage(p) {
			return nil, false
		}
		out = append(out, p.Text)
	}
	return out, true
}
