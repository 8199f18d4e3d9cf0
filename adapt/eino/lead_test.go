//lint:file-ignore SA1019 deprecated MultiContent parts are built too, so a message that has them beside Content is tested

package eino

import (
	"context"
	"strings"
	"testing"

	"github.com/cloudwego/eino/schema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/contextkit/compact"
)

func TestCompressMergesTheSummaryInFrontOfTheLastTurnsOwnContent(t *testing.T) {
	text := func(s string) schema.ChatMessagePart {
		return schema.ChatMessagePart{Type: schema.ChatMessagePartTypeText, Text: s}
	}
	input := func(s string) schema.MessageInputPart {
		return schema.MessageInputPart{Type: schema.ChatMessagePartTypeText, Text: s}
	}
	tests := []struct {
		name string
		last *schema.Message
	}{
		{"Content and MultiContent", &schema.Message{Role: schema.User, Content: "0", MultiContent: []schema.ChatMessagePart{text("{}")}}},
		{"Content and UserInputMultiContent", &schema.Message{Role: schema.User, Content: "a", UserInputMultiContent: []schema.MessageInputPart{input("b")}}},
		{"MultiContent", &schema.Message{Role: schema.User, MultiContent: []schema.ChatMessagePart{text("a"), text("b")}}},
		{"Content", schema.UserMessage("a")},
		{"whitespace", schema.UserMessage(" ")},
		{"no content", &schema.Message{Role: schema.User}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			msgs := []*schema.Message{
				schema.UserMessage(strings.Repeat("Read the spec. ", 80)),
				schema.AssistantMessage(strings.Repeat("It says a lot. ", 80), nil),
				tt.last,
			}
			out, res, err := Compress(context.Background(), compact.New(compact.WithContextWindow(400), compact.WithHeadMessages(0)), msgs, compact.Force())
			require.NoError(t, err)
			require.NoError(t, Validate(out))
			conv, err := Convert(out)
			require.NoError(t, err)
			assert.Equal(t, res.Messages, conv.Messages, "the restored history reads as the engine's output")
			assert.True(t, sharesWith(t, out[len(out)-1], tt.last), "the last turn is the input's, the summary in front of its own content")
		})
	}
}
