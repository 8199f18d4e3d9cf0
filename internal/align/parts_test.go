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

func TestReadAsParts(t *testing.T) {
	view := []openai.ChatMessagePart{text("look"), image("https://x/a.png"), text("and tell me")}
	tests := []struct {
		name string
		m    compact.Message
		want []openai.ChatMessagePart
		ok   bool
	}{
		{"as many parts: read one for one", compact.Message{MultiContent: []openai.ChatMessagePart{text("look"), text("[image]"), text("and tell me")}},
			[]openai.ChatMessagePart{text("look"), text("[image]"), text("and tell me")}, true},
		{"the parts joined, the image a line", compact.Message{Content: "look\n[image removed]\nand tell me"},
			[]openai.ChatMessagePart{text("look"), text("[image removed]"), text("and tell me")}, true},
		{"a text part changed", compact.Message{Content: "look\n[image removed]\nand tell"}, nil, false},
		{"fewer parts", compact.Message{MultiContent: []openai.ChatMessagePart{text("look")}}, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := ReadAsParts(tt.m, view)
			assert.Equal(t, tt.ok, ok)
			if tt.ok {
				assert.Equal(t, tt.want, got)
			}
		})
	}
}

func TestExtension(t *testing.T) {
	tests := []struct {
		name  string
		v, m  compact.Message
		extra []string
		ok    bool
	}{
		{"a note after the prompt", compact.Message{Content: "Be brief."}, compact.Message{Content: "Be brief.\n\n[note]"}, []string{"[note]"}, true},
		{"a part after the parts", compact.Message{MultiContent: []openai.ChatMessagePart{text("a"), text("b")}},
			compact.Message{MultiContent: []openai.ChatMessagePart{text("a"), text("b"), text("[note]")}}, []string{"[note]"}, true},
		{"the same prompt", compact.Message{Content: "Be brief."}, compact.Message{Content: "Be brief."}, nil, true},
		{"another prompt", compact.Message{Content: "Be brief."}, compact.Message{Content: "Be long."}, nil, false},
		{"an image is not text", compact.Message{MultiContent: []openai.ChatMessagePart{image("u")}}, compact.Message{Content: "x"}, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			extra, ok := Extension(tt.v, tt.m)
			assert.Equal(t, tt.ok, ok)
			assert.Equal(t, tt.extra, extra)
		})
	}
}
