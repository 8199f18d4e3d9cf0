package align

import (
	"testing"

	openai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/assert"

	"github.com/contextkit/compact"
	imsg "github.com/contextkit/compact/internal/msg"
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

func TestSharedFindsABlankUserTurnTheSummaryWasMergedInto(t *testing.T) {
	in := []compact.Message{
		{Role: compact.RoleUser, Content: "a"},
		{Role: compact.RoleAssistant, Content: "b"},
		{Role: compact.RoleUser, Content: " "},
		{Role: compact.RoleUser, MultiContent: []openai.ChatMessagePart{text("\n")}},
		{Role: compact.RoleUser},
	}
	merged := func(m compact.Message) compact.Message { return imsg.MergeSummary(m, "they said a") }
	tests := []struct {
		name string
		m    compact.Message
		j    int
		ok   bool
	}{
		{"merged into whitespace", merged(in[2]), 2, true},
		{"merged into a whitespace part", merged(in[3]), 3, true},
		{"merged into no content", merged(in[4]), 4, true},
		{"merged into text", merged(in[0]), 0, true},
		{"a standalone summary", compact.Message{Role: compact.RoleUser, Content: imsg.PrefixSummary("they said a")}, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			j, lead, had, ok := Shared(in, tt.m, make([]bool, len(in)))
			assert.Equal(t, tt.ok, ok)
			assert.Equal(t, tt.j, j)
			assert.False(t, had)
			if tt.ok {
				assert.Equal(t, imsg.MergedSummaryText("they said a"), lead)
			}
		})
	}
}

func TestJoinLeadJoinsAsTheCompressorMerges(t *testing.T) {
	for _, own := range []string{"", " ", "q"} {
		m := imsg.MergeSummary(compact.Message{Role: compact.RoleUser, Content: own}, "s")
		assert.Equal(t, m.Content, JoinLead(imsg.MergedSummaryText("s"), own), "own content %q", own)
	}
}
