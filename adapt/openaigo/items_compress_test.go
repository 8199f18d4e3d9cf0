package openaigo

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/responses"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/contextkit/compact"
)

// agentItems is a Responses history: a system prompt, then rounds of a user
// request, a reasoning item, a function call and a custom call answered,
// and a reply; compaction, when given, is a provider's compaction item
// placed before round at.
func agentItems(rounds, at int, compaction string) []Item {
	items := []Item{responses.ResponseInputItemParamOfMessage("You are a coding agent.", responses.EasyInputMessageRoleSystem)}
	for i := 0; i < rounds; i++ {
		if i == at && compaction != "" {
			items = append(items, responses.ResponseInputItemParamOfCompaction(compaction))
		}
		a, b := fmt.Sprintf("call_%da", i), fmt.Sprintf("call_%db", i)
		items = append(items,
			responses.ResponseInputItemParamOfMessage(fmt.Sprintf("Now read part %d.", i), responses.EasyInputMessageRoleUser),
			decodeItem([]byte(fmt.Sprintf(`{"type":"reasoning","id":"rs_%d","summary":[],"encrypted_content":"%s"}`, i, strings.Repeat("gAAAAB", 30)))),
			responses.ResponseInputItemParamOfFunctionCall(fmt.Sprintf(`{"path":"part%d.go"}`, i), a, "read_file"),
			responses.ResponseInputItemParamOfCustomToolCall(b, fmt.Sprintf("part%d", i), "grep"),
			functionOutput(a, strings.Repeat(fmt.Sprintf("func a%d() {}\n", i), 60)),
			responses.ResponseInputItemParamOfCustomToolCallOutput(b, "no matches"),
			responses.ResponseInputItemParamOfMessage(fmt.Sprintf("Part %d read.", i), responses.EasyInputMessageRoleAssistant))
	}
	return append(items, responses.ResponseInputItemParamOfMessage("Which flags did v2 remove?", responses.EasyInputMessageRoleUser))
}

func functionOutput(callID, output string) Item {
	u := responses.ResponseInputItemParamOfFunctionCallOutput(output)
	u.OfFunctionCallOutput.CallID = param.NewOpt(callID)
	return u
}

func TestCompressItemsUnderTheThresholdReturnsTheItemsThemselves(t *testing.T) {
	items := agentItems(2, -1, "")
	out, res, err := CompressItems(context.Background(), compact.New(compact.WithContextWindow(200_000)), items)
	require.NoError(t, err)
	assert.NotEmpty(t, res.Skipped)
	assert.Same(t, &items[0], &out[0], "no copy, no conversion back")
}

func TestCompressItemsReportsTheItemCompactRefuses(t *testing.T) {
	items := []Item{responses.ResponseInputItemParamOfMessage("q", responses.EasyInputMessageRoleUser), functionOutput("call_x", "orphan")}
	_, _, err := CompressItems(context.Background(), compact.New(), items, compact.Force())
	var ie *ItemError
	require.ErrorAs(t, err, &ie)
	require.ErrorIs(t, err, compact.ErrInvalidHistory)
	assert.Equal(t, 1, ie.Index, "the index is the item's own")
	assert.Equal(t, "function_call_output", ie.Type)
}

func TestCompressItemsReportsIndexesOfItems(t *testing.T) {
	items := agentItems(12, -1, "")
	out, res, err := CompressItems(context.Background(), compact.New(compact.WithContextWindow(6000)), items, compact.Force())
	require.NoError(t, err)
	require.NoError(t, ValidateItems(out))
	assert.Equal(t, len(items), res.MessagesBefore)
	assert.Equal(t, len(out), res.MessagesAfter)
	assert.Equal(t, 7, res.SummarizedFrom, "the head (the first request, its turn of four items, their outputs) is kept; the first reply is folded")
	require.Positive(t, res.SummarizedTo)
	assert.NotNil(t, items[res.SummarizedTo].OfMessage, "the last item folded ends a turn: a reply")
	require.GreaterOrEqual(t, res.SummaryIndex, 0)
	assert.Contains(t, out[res.SummaryIndex].OfMessage.Content.OfString.Value, res.Summary)
	for i := res.SummarizedTo + 1; i < len(items); i++ {
		assert.Contains(t, out, items[i], "item %d after the folded range is kept", i)
	}
}

func TestAProviderCompactionItemIsTheSummary(t *testing.T) {
	blob := strings.Repeat("gAAAAC", 10)
	t.Run("compacting again keeps the newest one and everything after it", func(t *testing.T) {
		items := agentItems(8, 6, blob) // two rounds after the compaction item
		k := indexOf(items, responses.ResponseInputItemParamOfCompaction(blob))
		out, res, err := CompressItems(context.Background(), compact.New(compact.WithContextWindow(16_000)), items, compact.Force())
		require.NoError(t, err)
		require.NoError(t, ValidateItems(out))
		want := items[:1:1]
		for i := 1; i < k; i++ {
			if items[i].OfMessage != nil && items[i].OfMessage.Role == responses.EasyInputMessageRoleUser {
				want = append(want, items[i]) // the provider keeps the user messages beside its item
			}
		}
		users := len(want) - 1
		assert.Equal(t, append(want, items[k:]...), out)
		assert.Equal(t, providerSummarizer, res.Summarizer)
		assert.Equal(t, 2, res.SummarizedFrom, "the first request is kept; its turn is folded")
		assert.Equal(t, k-1, res.SummarizedTo)
		assert.Equal(t, 1+users, res.SummaryIndex, "the summary is the compaction item")
		assert.Empty(t, res.Summary, "the provider's summary cannot be read")
		assert.Less(t, res.TokensAfter, res.TokensBefore)
	})
	t.Run("not when no compaction is due", func(t *testing.T) {
		items := agentItems(8, 6, blob)
		out, res, err := CompressItems(context.Background(), compact.New(compact.WithContextWindow(1_000_000)), items)
		require.NoError(t, err)
		assert.NotEmpty(t, res.Skipped)
		assert.Equal(t, items, out)
	})
	t.Run("never stacks ours on top of it", func(t *testing.T) {
		items := agentItems(14, 2, blob) // twelve long rounds after it
		out, res, err := CompressItems(context.Background(), compact.New(compact.WithContextWindow(6000)), items, compact.Force())
		require.NoError(t, err)
		require.NoError(t, ValidateItems(out))
		assert.NotEqual(t, providerSummarizer, res.Summarizer, "our summary")
		summaries := 0
		for _, v := range itemViews(t, out) {
			if compact.IsSummary(v) {
				summaries++
			}
		}
		assert.Equal(t, 1, summaries, "one summary: ours replaced the provider's, which it had to fold")
		assert.Equal(t, 1, res.SummarizedFrom, "the range starts after the system prompt")
	})
}

func TestEncryptedReasoningCountsTowardTheWindow(t *testing.T) {
	history := func(blob string) []Item {
		items := []Item{responses.ResponseInputItemParamOfMessage("Fix the build.", responses.EasyInputMessageRoleUser)}
		for i := 0; i < 3; i++ {
			id := fmt.Sprintf("call_%d", i)
			items = append(items,
				decodeItem([]byte(fmt.Sprintf(`{"type":"reasoning","id":"rs_%d","summary":[],"encrypted_content":%q}`, i, blob))),
				responses.ResponseInputItemParamOfFunctionCall(`{"cmd":"go build"}`, id, "shell"),
				functionOutput(id, "ok"))
		}
		return items
	}
	engine := compact.New(compact.WithContextWindow(8000))
	light, err := ShouldCompressItems(engine, history("gAAAAB"))
	require.NoError(t, err)
	heavy, err := ShouldCompressItems(engine, history(strings.Repeat("gAAAABp3Qx9Lk2vRt8", 1200)))
	require.NoError(t, err)
	assert.False(t, light)
	assert.True(t, heavy, "three turns of replayed reasoning fill the window")
}

func TestCompressItemsMergesTheSummaryIntoABlankLastTurn(t *testing.T) {
	tests := []struct {
		name, last string // the last item, as JSON
	}{
		{"whitespace", `{"role":"user","content":" "}`},
		{"an empty string", `{"role":"user","content":""}`},
		{"no content", `{"role":"user"}`},
		{"a whitespace part", `{"type":"message","role":"user","content":[{"type":"input_text","text":"\n"}]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			items := []Item{
				responses.ResponseInputItemParamOfMessage(strings.Repeat("Read the spec. ", 80), responses.EasyInputMessageRoleUser),
				responses.ResponseInputItemParamOfMessage(strings.Repeat("It says a lot. ", 80), responses.EasyInputMessageRoleAssistant),
				decodeItem([]byte(tt.last)),
			}
			out, _, err := CompressItems(context.Background(), compact.New(compact.WithContextWindow(400), compact.WithHeadMessages(0)), items, compact.Force())
			require.NoError(t, err)
			require.NoError(t, ValidateItems(out))
			got := encodeItems(t, out[len(out)-1:])
			assert.Contains(t, got, "[Context handoff]")
			assert.True(t, sameOrShared(t, items[len(items)-1], out[len(out)-1]), "the turn's own content, as it was: %s", got)
		})
	}
}
