package eino

import (
	"context"
	"fmt"
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

// The summary merged in front of the request and a call id the agent
// reuses, together: the request keeps its Extra after the summary, and the
// long result pruned in the tail keeps its ToolName and Extra though c1
// also names every result folded into the summary.
func TestASharedTurnAndAReusedCallIDKeepTheirFields(t *testing.T) {
	call := &schema.Message{Role: schema.Assistant, ToolCalls: []schema.ToolCall{{ID: "c1", Type: "function",
		Function: schema.FunctionCall{Name: "search", Arguments: `{"q":"flags"}`}}}}
	result := func(k string, lines int) *schema.Message {
		return &schema.Message{Role: schema.Tool, ToolCallID: "c1", ToolName: "search",
			Content: strings.Repeat("flags.go: parse the --legacy flag ("+k+")\n", lines), Extra: map[string]any{"k": k}}
	}
	var in []*schema.Message
	for k := range 6 {
		in = append(in, schema.UserMessage(fmt.Sprintf("Step %d.", k)), call, result(fmt.Sprint(k), 60))
	}
	req := &schema.Message{Role: schema.User, Content: "Which flags did v2 remove?", Extra: map[string]any{"trace": "t-1"}}
	in = append(in, req, call, result("big", 900), call, result("small", 3), schema.AssistantMessage("Found it.", nil))
	out, res, err := Compress(context.Background(), compact.New(compact.WithContextWindow(6000), compact.WithHeadMessages(0)), in, compact.Force())
	require.NoError(t, err)
	require.NoError(t, Validate(out))
	require.NotEmpty(t, res.Pruned, "the long result in the tail is pruned")

	first := out[0]
	require.Equal(t, schema.User, first.Role, "the first turn is the user's")
	assert.True(t, strings.HasPrefix(first.Content, "[Context handoff]"), "the summary leads")
	assert.True(t, strings.HasSuffix(first.Content, req.Content), "the request's own words follow")
	assert.Equal(t, req.Extra, first.Extra)

	var pruned *schema.Message
	for _, u := range out {
		if u.Role == schema.Tool && strings.HasPrefix(u.Content, "[pruned]") {
			pruned = u
		}
	}
	require.NotNil(t, pruned)
	assert.Equal(t, "search", pruned.ToolName)
	assert.Equal(t, map[string]any{"k": "big"}, pruned.Extra, "the pruned result is the long one, with its own Extra")
	requireIdentical(t, in[len(in)-3:], out[len(out)-3:])
}
