package langchaingo

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tmc/langchaingo/llms"

	"github.com/contextkit/compact"
)

// A compacted history opens on the user's message (compact's contract 10):
// the summary, which would otherwise open it as the AI's, is a text part
// leading the human message after it, whose own parts (an image, a file)
// come back as they were. Compacted again, the new summary takes the old
// one's place.
func TestACompactedHistoryOpensOnTheUsersMessage(t *testing.T) {
	msgs := longHistory(t, 12)
	msgs = msgs[:len(msgs)-1] // it ends with "Part 11 read."; the request before it comes back after the summary
	n := len(msgs)
	req := llms.MessageContent{Role: llms.ChatMessageTypeHuman, Parts: []llms.ContentPart{
		llms.TextContent{Text: "Which flags did v2 remove?"},
		llms.ImageURLContent{URL: "https://x.test/a.png", Detail: "high"},
		llms.BinaryContent{MIMEType: "application/pdf", Data: []byte("%PDF")},
	}}
	msgs[n-5] = req
	msgs[n-3] = msg(llms.ChatMessageTypeTool, response("call_r11a", "read_file", strings.Repeat("func big() {}\n", 900)))
	require.NoError(t, Validate(msgs))
	engine := func() compact.ContextEngine {
		return compact.New(compact.WithContextWindow(6000), compact.WithHeadMessages(0))
	}
	out, _, err := Compress(context.Background(), engine(), msgs, compact.Force())
	require.NoError(t, err)
	require.NoError(t, Validate(out))
	k := 0
	for out[k].Role == llms.ChatMessageTypeSystem {
		k++
	}
	first := out[k]
	require.Equal(t, llms.ChatMessageTypeHuman, first.Role, "the first turn is the user's")
	require.Len(t, first.Parts, 4)
	assert.True(t, strings.HasPrefix(first.Parts[0].(llms.TextContent).Text, "[Context handoff]"), "the summary leads")
	assert.Equal(t, req.Parts, first.Parts[1:], "the request's own parts, as they were")

	for i := range 6 { // more work on the same request
		id := fmt.Sprintf("call_more%d", i)
		out = append(out, msg(llms.ChatMessageTypeAI, call(id, "grep", `{"q":"flag"}`)),
			msg(llms.ChatMessageTypeTool, response(id, "grep", strings.Repeat("flag.go: -legacy\n", 120))),
			llms.TextParts(llms.ChatMessageTypeAI, "Found it."))
	}
	again, _, err := Compress(context.Background(), engine(), out, compact.Force())
	require.NoError(t, err)
	require.Len(t, again[k].Parts, 4, "one summary, in place of the old one")
	assert.Equal(t, req.Parts, again[k].Parts[1:])
}
