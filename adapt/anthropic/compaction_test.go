package anthropic

import (
	"encoding/json"
	"testing"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/packages/param"
	openai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/contextkit/compact"
)

// compactionBlockOf is a compaction block as the host holds it: the raw
// JSON the provider wrote.
func compactionBlockOf(raw string) sdk.ContentBlockParamUnion {
	return param.Override[sdk.ContentBlockParamUnion](json.RawMessage(raw))
}

func TestHistoriesWithCompactionBlocksRoundTripUnchanged(t *testing.T) {
	summary := compactionBlockOf(`{"type":"compaction","content":"The user wants v2's flags.","encrypted_content":"Enc==","cache_control":{"type":"ephemeral"}}`)
	failed := compactionBlockOf(`{"type":"compaction","content":null,"encrypted_content":""}`)
	tests := []struct {
		name string
		h    History
	}{
		{"a response that opens on the block", History{Messages: []sdk.MessageParam{
			sdk.NewUserMessage(sdk.NewTextBlock("Which flags?")),
			providerTurn(t, providerSummary, "v2 removed the legacy flag."),
			sdk.NewUserMessage(sdk.NewTextBlock("And v3?"))}}},
		{"the block alone (a paused compaction)", History{Messages: []sdk.MessageParam{
			sdk.NewUserMessage(sdk.NewTextBlock("Which flags?")), sdk.NewAssistantMessage(summary)}}},
		{"a history that opens on the block", History{System: []sdk.TextBlockParam{{Text: "Be brief."}}, Messages: []sdk.MessageParam{
			sdk.NewAssistantMessage(summary, sdk.NewTextBlock("Go on?")), sdk.NewUserMessage(sdk.NewTextBlock("Yes."))}}},
		{"the block first in a user turn", History{Messages: []sdk.MessageParam{
			sdk.NewUserMessage(summary, sdk.NewTextBlock("Carry on."))}}},
		{"the block between tool calls and a text", History{Messages: []sdk.MessageParam{
			sdk.NewUserMessage(sdk.NewTextBlock("go")),
			sdk.NewAssistantMessage(sdk.NewTextBlock("a"), summary, sdk.NewToolUseBlock("t1", map[string]any{}, "f"))}}},
		{"a block without a summary", History{Messages: []sdk.MessageParam{
			sdk.NewUserMessage(sdk.NewTextBlock("go")), sdk.NewAssistantMessage(failed, sdk.NewTextBlock("Calling a tool."))}}},
		{"two blocks, the newer one last", History{Messages: []sdk.MessageParam{
			sdk.NewUserMessage(sdk.NewTextBlock("go")), sdk.NewAssistantMessage(summary, sdk.NewTextBlock("one")),
			sdk.NewUserMessage(sdk.NewTextBlock("more")), providerTurn(t, providerSummary, "two")}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			requireIdentical(t, tt.h, roundTrip(t, tt.h))
		})
	}
}

func TestTheProvidersBlockReadsAsASummaryOfItsOwn(t *testing.T) {
	h := History{Messages: []sdk.MessageParam{
		sdk.NewUserMessage(sdk.NewTextBlock("Which flags?")),
		providerTurn(t, providerSummary, "v2 removed the legacy flag."),
		sdk.NewUserMessage(sdk.NewTextBlock("And v3?")),
		providerTurn(t, "", "Calling a tool instead."),
	}}
	conv, err := Convert(h)
	require.NoError(t, err)
	require.Len(t, conv.Messages, 5, "the block is a message of its own; one without a summary is not")
	sum := conv.Messages[1]
	assert.Equal(t, compact.RoleUser, sum.Role)
	assert.True(t, compact.IsSummary(sum), "compact reads it as a summary")
	assert.False(t, compact.IsRealUser(sum), "never as a user's turn")
	assert.Contains(t, compact.Text(sum), providerSummary)
	assert.NotContains(t, compact.Text(sum), "EncOpaque", "the opaque part is not counted as text")
	assert.Equal(t, compact.Message{Role: compact.RoleAssistant, Content: "v2 removed the legacy flag."}, conv.Messages[2],
		"the rest of the turn is the assistant's")
	assert.Equal(t, compact.Message{Role: compact.RoleAssistant,
		MultiContent: []openai.ChatMessagePart{textPart(failedCompactionText), textPart("Calling a tool instead.")}}, conv.Messages[4],
		"a block without a summary stays in its turn as a note")
	assert.NoError(t, compact.Validate(conv.Messages))
}

func TestValidateTakesAHistoryThatOpensOnTheBlock(t *testing.T) {
	summary := compactionBlockOf(`{"type":"compaction","content":"s","encrypted_content":"e"}`)
	failed := compactionBlockOf(`{"type":"compaction","content":null}`)
	tests := []struct {
		name string
		h    History
		rule Rule
	}{
		{"an assistant turn opening on the block", History{Messages: []sdk.MessageParam{
			sdk.NewAssistantMessage(summary, sdk.NewTextBlock("a")), sdk.NewUserMessage(sdk.NewTextBlock("q"))}}, 0},
		{"the block alone", History{Messages: []sdk.MessageParam{sdk.NewAssistantMessage(summary)}}, 0},
		{"an assistant turn opening on text", History{Messages: []sdk.MessageParam{
			sdk.NewAssistantMessage(sdk.NewTextBlock("a"), summary)}}, RuleFirstTurn},
		{"an assistant turn opening on a block without a summary", History{Messages: []sdk.MessageParam{
			sdk.NewAssistantMessage(failed, sdk.NewTextBlock("a"))}}, RuleFirstTurn},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Validate(tt.h)
			if tt.rule == 0 {
				assert.NoError(t, err)
				return
			}
			var se *ShapeError
			require.ErrorAs(t, err, &se)
			assert.Equal(t, tt.rule, se.Rule)
		})
	}
}

// providerTurn is the assistant turn of a response that opens on a
// compaction block, as Message.ToParam gives it.
func providerTurn(t testing.TB, summary, text string) sdk.MessageParam {
	t.Helper()
	block := map[string]any{"type": "compaction", "content": summary, "encrypted_content": "EncOpaque=="}
	if summary == "" {
		block["content"] = nil
	}
	content := []any{block}
	if text != "" {
		content = append(content, map[string]any{"type": "text", "text": text})
	}
	body, err := json.Marshal(map[string]any{"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-test",
		"content": content, "stop_reason": "end_turn", "usage": map[string]any{"input_tokens": 1, "output_tokens": 1}})
	require.NoError(t, err)
	return decodeMessage(t, string(body)).ToParam()
}

// providerSummary is the summary the honest server writes.
const providerSummary = "<summary>The user asked which flags v2 removed; the agent read the release notes and parts 0-11.</summary>"

// decodeMessage decodes a response body as the SDK does.
func decodeMessage(t testing.TB, body string) *sdk.Message {
	t.Helper()
	var m sdk.Message
	require.NoError(t, json.Unmarshal([]byte(body), &m))
	return &m
}
