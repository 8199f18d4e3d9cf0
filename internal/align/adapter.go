package align

import (
	"encoding/json"

	openai "github.com/sashabaranov/go-openai"

	"github.com/contextkit/compact"
	internalmsg "github.com/contextkit/compact/internal/msg"
)

// This file holds what every adapter does the same way around its SDK's
// types: building the parts of a view, asking an engine whether to
// compact. (Finding the input message behind a tool result or call the
// engine changed is origins.go.)

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

// BothContents reports the first message of msgs that sets both Content and
// MultiContent, as compact.Validate does: a *compact.ValidationError naming
// its index, which unwraps to compact.ErrInvalidHistory. A conversion would
// have to keep one and drop the other without a word, so the adapters
// refuse such a message instead.
func BothContents(history []compact.Message) error {
	for i, m := range history {
		if m.Content != "" && m.MultiContent != nil {
			return &compact.ValidationError{Index: i, Rule: compact.Rule(internalmsg.RuleBothContents),
				Detail: m.Role + " message sets both Content and MultiContent"}
		}
	}
	return nil
}

// EncodesNull reports whether v encodes as JSON null: an SDK's union with
// no variant, the nil part of SDKs whose parts are unions. The APIs refuse
// it and no message can say it, so the adapters refuse it on the way in.
func EncodesNull(v any) bool {
	data, err := json.Marshal(v)
	return err == nil && string(data) == "null"
}
