package align

import (
	"testing"

	openai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/assert"

	"github.com/contextkit/compact"
)

func text(s string) openai.ChatMessagePart {
	return openai.ChatMessagePart{Type: openai.ChatMessagePartTypeText, Text: s}
}

func image(u string) openai.ChatMessagePart {
	return openai.ChatMessagePart{Type: openai.ChatMessagePartTypeImageURL, ImageURL: &openai.ChatMessageImageURL{URL: u}}
}

func TestEditedPartsReadsAMessagePartForPart(t *testing.T) {
	view := compact.Message{Role: "user", MultiContent: []openai.ChatMessagePart{text("look"), image("data:image/png;base64,AA"), text("there")}}
	tests := []struct {
		name string
		m    compact.Message
		want []openai.ChatMessagePart
		ok   bool
	}{
		{"as many parts", compact.Message{MultiContent: []openai.ChatMessagePart{text("look"), text("[pruned]"), text("there")}},
			[]openai.ChatMessagePart{text("look"), text("[pruned]"), text("there")}, true},
		{"the parts joined, the image one line", compact.Message{Content: "look\n[pruned image]\nthere"},
			[]openai.ChatMessagePart{text("look"), text("[pruned image]"), text("there")}, true},
		{"a text that changed", compact.Message{Content: "look\n[x]\nhere"}, nil, false},
		{"another number of parts", compact.Message{MultiContent: []openai.ChatMessagePart{text("look")}}, nil, false},
		{"a summary", compact.Message{Content: "they looked"}, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := EditedParts(view, tt.m)
			assert.Equal(t, tt.ok, ok)
			assert.Equal(t, tt.want, got)
		})
	}
	_, ok := EditedParts(compact.Message{Content: "one part"}, compact.Message{Content: "one part"})
	assert.False(t, ok, "a one-part message is simply new")
}

func TestExtensionFindsWhatWasAddedAtTheEnd(t *testing.T) {
	v := compact.Message{MultiContent: []openai.ChatMessagePart{text("a"), text("b")}}
	extra, ok := Extension(v, compact.Message{MultiContent: []openai.ChatMessagePart{text("a"), text("b\n\nnote"), text(" "), text("more")}})
	assert.True(t, ok)
	assert.Equal(t, []string{"note", "more"}, extra, "the rest of the last part, then later parts, blanks left out")

	_, ok = Extension(v, compact.Message{MultiContent: []openai.ChatMessagePart{text("A"), text("b")}})
	assert.False(t, ok, "an earlier part changed")
	_, ok = Extension(compact.Message{Content: "s"}, compact.Message{MultiContent: []openai.ChatMessagePart{text("s"), image("x")}})
	assert.False(t, ok, "an image is no extension")
	extra, ok = Extension(compact.Message{Content: "s"}, compact.Message{Content: "s"})
	assert.True(t, ok)
	assert.Empty(t, extra)
}
