package align

import (
	"strings"

	openai "github.com/sashabaranov/go-openai"

	"github.com/contextkit/compact"
	imsg "github.com/contextkit/compact/internal/msg"
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

// Shared finds the input message of in that m, an engine's output, holds
// with a summary merged in front of it (the Compressor's summary opens a
// history that way, see compact.WithUserFirst): the last message of in no
// other output message took (used) whose own content m's own content is.
// It returns its index; lead, the text m puts in front of that content
// (the summary, its closing marker included), which an adapter puts in
// front of the original message's content (a leading text part, or a
// string joined by JoinLead); and had, which says the original carries an
// earlier summary in front of its own content (its first part, or its
// string up to OwnText), which lead replaces. ok is false when m is no
// such message.
func Shared(in []compact.Message, m compact.Message, used []bool) (j int, lead string, had, ok bool) {
	_, own, merged := imsg.SplitMerged(m)
	if !merged || imsg.IsBlank(own) && !closed(m) {
		return 0, "", false, false
	}
	switch {
	case len(m.MultiContent) > len(own.MultiContent):
		lead = m.MultiContent[0].Text
	case len(m.MultiContent) == 0 && own.MultiContent == nil:
		lead = strings.TrimSuffix(m.Content[:len(m.Content)-len(own.Content)], LeadSep)
	default:
		return 0, "", false, false
	}
	for _, had := range [...]bool{false, true} {
		for j := len(in) - 1; j >= 0; j-- {
			if used[j] {
				continue
			}
			v := in[j]
			if had {
				if _, v, merged = imsg.SplitMerged(v); !merged {
					continue
				}
			}
			if SameMessage(v, own) {
				return j, lead, had, true
			}
		}
	}
	return 0, "", false, false
}

// closed reports whether m's summary ends in imsg.SummaryEnd, which only a
// summary merged in front of a message's content carries: with it, m is
// that message even when its own content is blank (a user turn of
// whitespace), where a standalone summary is not.
func closed(m compact.Message) bool {
	first := m.Content
	if len(m.MultiContent) > 0 {
		first = m.MultiContent[0].Text
	}
	return imsg.SummaryEndAt(first) >= 0
}

// OwnText is s without a summary merged in front of it: the text after
// the summary's closing marker, or s itself.
func OwnText(s string) string {
	if _, rest, ok := imsg.SplitSummary(s); ok && imsg.SummaryEndAt(s) >= 0 {
		return rest
	}
	return s
}

// LeadSep joins the lead Shared returns to a string content.
const LeadSep = imsg.MergedSummarySep

// JoinLead is string content s with lead (see Shared) in front of it, as
// the Compressor merges a summary: lead alone when s is empty, else the two
// joined by LeadSep.
func JoinLead(lead, s string) string {
	if s == "" {
		return lead
	}
	return lead + LeadSep + s
}
