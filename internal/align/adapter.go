package align

import (
	openai "github.com/sashabaranov/go-openai"

	"github.com/contextkit/compact"
)

// This file holds what every adapter does the same way around its SDK's
// types: building the parts of a view, finding the input message behind a
// tool result or call the engine changed, asking an engine whether to
// compact.

// TextPart is a text content part.
func TextPart(s string) openai.ChatMessagePart {
	return openai.ChatMessagePart{Type: openai.ChatMessagePartTypeText, Text: s}
}

// ImagePart is an image content part; detail may be empty.
func ImagePart(url string, detail openai.ImageURLDetail) openai.ChatMessagePart {
	return openai.ChatMessagePart{Type: openai.ChatMessagePartTypeImageURL,
		ImageURL: &openai.ChatMessageImageURL{URL: url, Detail: detail}}
}

// SetContent puts parts in m: one text part as Content, anything else as
// MultiContent, so the two are never both set.
func SetContent(m *compact.Message, parts []openai.ChatMessagePart) {
	switch {
	case len(parts) == 0:
	case len(parts) == 1 && parts[0].Type == openai.ChatMessagePartTypeText:
		m.Content = parts[0].Text
	default:
		m.MultiContent = parts
	}
}

// HasImage reports whether m has an image part.
func HasImage(m compact.Message) bool {
	for _, p := range m.MultiContent {
		if IsImage(p) {
			return true
		}
	}
	return false
}

// IDs maps the ids of the tool results and of the tool calls of a
// converted history to the index of the message that holds them, so that a
// result or call the engine changed (a pruned result, shortened arguments)
// finds the input it came from. An id used twice maps to -1: it names no
// one message.
type IDs struct {
	Results, Calls map[string]int
}

// NewIDs indexes views, leaving out the messages skip names (nil skips
// none).
func NewIDs(views []compact.Message, skip func(j int) bool) IDs {
	x := IDs{Results: map[string]int{}, Calls: map[string]int{}}
	put := func(m map[string]int, id string, j int) {
		if _, dup := m[id]; dup {
			m[id] = -1
			return
		}
		m[id] = j
	}
	for j, v := range views {
		switch {
		case skip != nil && skip(j):
		case v.Role == compact.RoleTool:
			put(x.Results, v.ToolCallID, j)
		case v.Role == compact.RoleAssistant:
			for _, c := range v.ToolCalls {
				put(x.Calls, c.ID, j)
			}
		}
	}
	return x
}

// Take returns the message of in (Results or Calls) that id names, unless
// no one message has it or used says another output message took it
// already; it marks the message used.
func Take(in map[string]int, id string, used []bool) (int, bool) {
	j, ok := in[id]
	if !ok || j < 0 || used[j] {
		return 0, false
	}
	used[j] = true
	return j, true
}

// ShouldCompress reports whether engine wants msgs, a converted history,
// compacted: an engine that can preflight (the Compressor can) counts
// them; any other judges by the usage it last recorded. It never calls a
// model.
func ShouldCompress(engine compact.ContextEngine, msgs []compact.Message) bool {
	if p, ok := engine.(compact.Preflighter); ok {
		return p.Preflight(msgs, nil).Compress
	}
	return engine.ShouldCompress(engine.Status().LastPromptTokens)
}
