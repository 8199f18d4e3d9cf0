package openaigo

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/responses"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/contextkit/compact"
)

// richRequest is a user message with what only the SDK has: a name, a
// file, input audio and a detailed image.
func richRequest(text string) openai.ChatCompletionMessageParamUnion {
	return openai.ChatCompletionMessageParamUnion{OfUser: &openai.ChatCompletionUserMessageParam{
		Name: param.NewOpt("dana"),
		Content: openai.ChatCompletionUserMessageParamContentUnion{OfArrayOfContentParts: []openai.ChatCompletionContentPartUnionParam{
			openai.TextContentPart(text),
			openai.FileContentPart(openai.ChatCompletionContentPartFileFileParam{Filename: param.NewOpt("spec.pdf"), FileData: param.NewOpt("JVBERi0=")}),
			openai.InputAudioContentPart(openai.ChatCompletionContentPartInputAudioInputAudioParam{Data: "UklGRg==", Format: "wav"}),
			openai.ImageContentPart(openai.ChatCompletionContentPartImageImageURLParam{URL: "https://example.com/a.png", Detail: "high"}),
		}}}}
}

// firstTurn is the first message of msgs after the system and developer
// messages.
func firstTurn(msgs []openai.ChatCompletionMessageParamUnion) openai.ChatCompletionMessageParamUnion {
	for _, u := range msgs {
		if u.OfSystem == nil && u.OfDeveloper == nil {
			return u
		}
	}
	return openai.ChatCompletionMessageParamUnion{}
}

// A compacted Chat Completions history opens on a user turn (compact's
// contract 10): the summary, which would otherwise open it as an assistant
// turn, comes back as a leading text part of the user message after it,
// which keeps everything only the SDK has (its name, its file, audio and
// image parts). Compacted again, the new summary takes the old one's place.
func TestACompactedHistoryOpensOnTheUsersTurn(t *testing.T) {
	// The last request comes back after the summary: its tool output is
	// too large for the tail to reach back to it.
	msgs := longHistory(t, 12)
	msgs = msgs[:len(msgs)-1] // it ends with "Part 11 read."
	n := len(msgs)
	msgs[n-5] = richRequest("Which flags did v2 remove?")
	msgs[n-3] = openai.ToolMessage(strings.Repeat("func big() {}\n", 900), "call_r11a")
	engine := func() compact.ContextEngine {
		return compact.New(compact.WithContextWindow(6000), compact.WithHeadMessages(0))
	}
	out, res, err := Compress(context.Background(), engine(), msgs, compact.Force())
	require.NoError(t, err)
	require.NoError(t, Validate(out))
	first := firstTurn(out)
	require.NotNil(t, first.OfUser, "the first turn is the user's: %s", jsonOf(t, first))
	parts := first.OfUser.Content.OfArrayOfContentParts
	require.Len(t, parts, 5)
	assert.True(t, strings.HasPrefix(parts[0].OfText.Text, "[Context handoff]"), "the summary leads")
	assert.Equal(t, jsonOf(t, msgs[n-5].OfUser.Content.OfArrayOfContentParts), jsonOf(t, parts[1:]), "the request's own parts, as they were")
	assert.Equal(t, "dana", first.OfUser.Name.Value)
	assert.True(t, compact.IsSummary(res.Messages[res.SummaryIndex]))

	for i := range 6 { // more work on the same request
		id := fmt.Sprintf("call_more%d", i)
		out = append(out, openai.ChatCompletionMessageParamUnion{OfAssistant: &openai.ChatCompletionAssistantMessageParam{
			ToolCalls: []openai.ChatCompletionMessageToolCallUnionParam{{OfFunction: &openai.ChatCompletionMessageFunctionToolCallParam{ID: id,
				Function: openai.ChatCompletionMessageFunctionToolCallFunctionParam{Name: "grep", Arguments: `{"q":"flag"}`}}}}}},
			openai.ToolMessage(strings.Repeat("flag.go: -legacy\n", 120), id), openai.AssistantMessage(fmt.Sprintf("Found %d.", i)))
	}
	again, _, err := Compress(context.Background(), engine(), out, compact.Force())
	require.NoError(t, err)
	first = firstTurn(again)
	require.NotNil(t, first.OfUser)
	parts = first.OfUser.Content.OfArrayOfContentParts
	require.Len(t, parts, 5, "one summary, in place of the old one")
	assert.Equal(t, jsonOf(t, msgs[n-5].OfUser.Content.OfArrayOfContentParts), jsonOf(t, parts[1:]))
}

// The same holds for the Responses API: the summary leads the user message
// item after it, whose own parts (a file here) come back as they were.
func TestCompactedItemsOpenOnTheUsersTurn(t *testing.T) {
	items := agentItems(12, -1, "")
	items = items[:len(items)-1] // it ends with "Part 11 read."
	n := len(items)
	items[n-7] = decodeItem([]byte(`{"type":"message","role":"user","content":[` +
		`{"type":"input_text","text":"Which flags did v2 remove?"},{"type":"input_file","file_id":"file-abc"}]}`))
	items[n-3] = functionOutput("call_11a", strings.Repeat("func big() {}\n", 900))
	engine := compact.New(compact.WithContextWindow(6000), compact.WithHeadMessages(0))
	out, res, err := CompressItems(context.Background(), engine, items, compact.Force())
	require.NoError(t, err)
	require.NoError(t, ValidateItems(out))
	var got struct {
		Role    string            `json:"role"`
		Content []json.RawMessage `json:"content"`
	}
	require.NoError(t, json.Unmarshal([]byte(encodeItems(t, out[1:2])[1:len(encodeItems(t, out[1:2]))-1]), &got))
	assert.Equal(t, "user", got.Role, "the first turn is the user's")
	require.Len(t, got.Content, 3)
	assert.Contains(t, string(got.Content[0]), "[Context handoff]")
	assert.JSONEq(t, `{"type":"input_file","file_id":"file-abc"}`, string(got.Content[2]), "the file part, as it was")
	assert.Equal(t, 1, res.SummaryIndex)
}

// readFileItems is the history of issue 35 as Responses items: a system
// prompt, a task, 12 read_file calls each after a reasoning item, with
// their 300-line outputs, an orphan output after the third and a user
// message after the ninth.
func readFileItems() []Item {
	items := []Item{
		responses.ResponseInputItemParamOfMessage("You are a coding agent.", responses.EasyInputMessageRoleSystem),
		responses.ResponseInputItemParamOfMessage("Review the package.", responses.EasyInputMessageRoleUser),
	}
	for i := range 12 {
		id := fmt.Sprintf("call_%d", i)
		var file strings.Builder
		for l := range 300 {
			fmt.Fprintf(&file, "%d: line %d of file_%d.go\n", l, l, i)
		}
		items = append(items,
			decodeItem([]byte(fmt.Sprintf(`{"type":"reasoning","id":"rs_%d","summary":[],"encrypted_content":"gAAAAB"}`, i))),
			responses.ResponseInputItemParamOfFunctionCall(fmt.Sprintf(`{"path":"file_%d.go"}`, i), id, "read_file"),
			functionOutput(id, file.String()))
		if i == 2 {
			items = append(items, functionOutput("call_ghost", "an answer to nothing"))
		}
		if i == 8 {
			items = append(items, responses.ResponseInputItemParamOfMessage("Also check b.go.", responses.EasyInputMessageRoleUser))
		}
	}
	return items
}

// Under compact.WithRepair, the Result CompressItems returns indexes the
// caller's items although the repair dropped the orphan output before the
// engine ran: the range ends where the account's folded items do, Lifted
// is the user's message, every item the account keeps is at its output.
func TestCompressItemsIndexesItemsAfterARepair(t *testing.T) {
	items := readFileItems()
	engine := compact.New(compact.WithContextWindow(8000), compact.WithRepair(true))
	out, res, err := CompressItems(context.Background(), engine, items, compact.Force())
	require.NoError(t, err)
	require.NoError(t, ValidateItems(out))
	require.Len(t, res.Repairs, 1)
	ghost := res.Repairs[0].Index
	assert.Equal(t, "call_ghost", items[ghost].OfFunctionCallOutput.CallID.Value, "the repair names the orphan's item")
	require.GreaterOrEqual(t, res.Lifted, 0)
	require.NotNil(t, items[res.Lifted].OfMessage)
	assert.Equal(t, "Also check b.go.", items[res.Lifted].OfMessage.Content.OfString.Value)
	last := -1
	for _, f := range res.Account {
		switch f.Fate {
		case "folded", "carried":
			last = f.Index
		case "kept":
			if f.Index > 0 { // the system prompt gains the compaction note
				assert.True(t, sameOrShared(t, items[f.Index], out[f.Output]), "item %d kept at %d", f.Index, f.Output)
			}
		case "dropped":
			assert.Equal(t, ghost, f.Index)
		}
	}
	assert.Equal(t, last, res.SummarizedTo, "the range ends with the last item folded")
	assert.Equal(t, "lifted", res.Account[res.Lifted].Fate)
}

// A function call a repair removed (it was never answered) is not "kept":
// its item's fate says it was repaired, and how.
func TestCompressItemsReportsARemovedCallAsRepaired(t *testing.T) {
	items := []Item{
		responses.ResponseInputItemParamOfMessage("Read a.go.", responses.EasyInputMessageRoleUser),
		responses.ResponseInputItemParamOfFunctionCall(`{"path":"a.go"}`, "call_lost", "read_file"),
		responses.ResponseInputItemParamOfMessage("Never mind, read b.go.", responses.EasyInputMessageRoleUser),
		responses.ResponseInputItemParamOfMessage("Reading b.go.", responses.EasyInputMessageRoleAssistant),
	}
	_, res, err := CompressItems(context.Background(), compact.New(compact.WithRepair(true)), items)
	require.NoError(t, err)
	require.Len(t, res.Account, len(items))
	assert.Equal(t, "repaired", res.Account[1].Fate)
	assert.Equal(t, "removed unanswered tool call", res.Account[1].Repair.String())
	for _, i := range []int{0, 2, 3} {
		assert.Equal(t, "kept", res.Account[i].Fate, "item %d", i)
	}
}
