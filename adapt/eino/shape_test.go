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

// A compacted history opens on the user's turn (compact's contract 10):
// the summary, which would otherwise open it as the assistant's, is a text
// part leading the user message after it, which keeps everything else of
// its own (its name, its Extra, its parts). Compacted again, the new
// summary takes the old one's place.
func TestACompactedHistoryOpensOnTheUsersTurn(t *testing.T) {
	url := "https://x.test/a.png"
	req := &schema.Message{Role: schema.User, Name: "dana", Extra: map[string]any{"trace": "t-1"},
		UserInputMultiContent: []schema.MessageInputPart{
			{Type: schema.ChatMessagePartTypeText, Text: "Find the retry budget."},
			{Type: schema.ChatMessagePartTypeImageURL, Image: &schema.MessageInputImage{MessagePartCommon: schema.MessagePartCommon{URL: &url}}},
		}}
	msgs := longHistory(20)
	msgs = msgs[:len(msgs)-1] // the request is the latest: it comes back after the summary
	msgs[1] = req
	engine := func() compact.ContextEngine {
		return compact.New(compact.WithContextWindow(6000), compact.WithHeadMessages(0))
	}
	out, _, err := Compress(context.Background(), engine(), msgs, compact.Force())
	require.NoError(t, err)
	require.NoError(t, Validate(out))
	first := out[1]
	require.Equal(t, schema.User, first.Role, "the first turn is the user's")
	require.Len(t, first.UserInputMultiContent, 3)
	assert.True(t, strings.HasPrefix(first.UserInputMultiContent[0].Text, "[Context handoff]"), "the summary leads")
	assert.Equal(t, req.UserInputMultiContent, first.UserInputMultiContent[1:], "the request's own parts, as they were")
	assert.Equal(t, req.Extra, first.Extra)
	assert.Equal(t, "dana", first.Name)

	more := longHistory(8)[2:10] // more work on the same request
	again, _, err := Compress(context.Background(), engine(), append(out, more...), compact.Force())
	require.NoError(t, err)
	first = again[1]
	require.Len(t, first.UserInputMultiContent, 3, "one summary, in place of the old one")
	assert.Equal(t, req.UserInputMultiContent, first.UserInputMultiContent[1:])
}
