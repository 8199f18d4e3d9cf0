package openaigo

import (
	"testing"

	goopenai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/contextkit/compact"
)

// bothContents is issue 35's case: a message with both Content and
// MultiContent, which go-openai refuses to send and compact.Validate
// refuses; a conversion would keep one text and drop the other.
func bothContents() []compact.Message {
	return []compact.Message{
		{Role: compact.RoleUser, Content: "hi"},
		{Role: compact.RoleAssistant, Content: "hello"},
		{Role: compact.RoleUser, Content: "AAA", MultiContent: []goopenai.ChatMessagePart{{Type: goopenai.ChatMessagePartTypeText, Text: "BBB"}}},
	}
}

func TestFromMessagesRefusesAMessageWithBothContents(t *testing.T) {
	_, err := FromMessages(bothContents())
	var ve *compact.ValidationError
	require.ErrorAs(t, err, &ve, "FromMessages keeps one text and drops the other without a word")
	assert.Equal(t, 2, ve.Index)
	require.ErrorIs(t, err, compact.ErrInvalidHistory)
	assert.Equal(t, "openaigo: message 2: user message sets both Content and MultiContent", err.Error())
}

func TestItemsFromMessagesRefusesAMessageWithBothContents(t *testing.T) {
	_, err := ItemsFromMessages(bothContents())
	var ve *compact.ValidationError
	require.ErrorAs(t, err, &ve, "ItemsFromMessages keeps one text and drops the other without a word")
	assert.Equal(t, 2, ve.Index)
	assert.Equal(t, "openaigo: message 2: user message sets both Content and MultiContent", err.Error())
}
