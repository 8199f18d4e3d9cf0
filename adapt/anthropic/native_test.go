package anthropic

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	openai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/tokens"
)

// nativeRounds makes longHistory over 50,000 tokens (the API's lowest
// trigger) as the test server counts, and under a 200,000-token window.
const nativeRounds = 200

// newNativeEngine is a NativeEngine over a Compressor with a 200,000-token
// window that triggers at the API's minimum.
func newNativeEngine(opts ...Option) *NativeEngine {
	return NewNativeEngine(compact.New(compact.WithContextWindow(200_000)), append([]Option{WithTrigger(minTrigger)}, opts...)...)
}

// send sends h with the engine's request options, as a host does.
func send(t *testing.T, api *nativeAPI, engine *NativeEngine, h History) (*sdk.Message, error) {
	t.Helper()
	client := newClient(api.URL)
	return client.Messages.New(context.Background(), sdk.MessageNewParams{
		Model: "claude-test", MaxTokens: 1024, System: h.System, Messages: h.Messages}, engine.RequestOptions()...)
}

func TestRequestsCarryTheEditsAsTheAPIDocumentsThem(t *testing.T) {
	api := newNativeAPI(t)
	engine := newNativeEngine(WithThinkingClearing(2), WithExcludeTools("memory"), WithClearToolInputs(true),
		WithPauseAfterCompaction(true), WithInstructions("Summarise; call no tools."))
	_, err := send(t, api, engine, longHistory(t, 2))
	require.NoError(t, err)

	req := api.last(t)
	assert.Equal(t, "compact-2026-01-12,context-management-2025-06-27", req.betas, "the anthropic-beta header names both betas")
	var body struct {
		ContextManagement json.RawMessage `json:"context_management"`
	}
	require.NoError(t, json.Unmarshal(req.body, &body))
	assert.JSONEq(t, `{"edits":[
		{"type":"clear_thinking_20251015","keep":{"type":"thinking_turns","value":2}},
		{"type":"clear_tool_uses_20250919","trigger":{"type":"input_tokens","value":50000},
		 "keep":{"type":"tool_uses","value":3},"clear_at_least":{"type":"input_tokens","value":2000},
		 "exclude_tools":["memory"],"clear_tool_inputs":true},
		{"type":"compact_20260112","trigger":{"type":"input_tokens","value":50000},
		 "pause_after_compaction":true,"instructions":"Summarise; call no tools."}]}`, string(body.ContextManagement),
		"thinking first, as the API requires; then tool uses and compaction, in compact's order")
	assert.Contains(t, string(req.body), `"model":"claude-test"`, "the host's own fields are sent as they were")
}

func TestTheDefaultEditsDeriveFromTheFallbacksSettings(t *testing.T) {
	tests := []struct {
		name    string
		window  int
		opts    []Option
		trigger int
		edits   []string
	}{
		{"the fallback's threshold is the trigger", 80_000, nil, 53_856,
			[]string{"clear_tool_uses_20250919", "compact_20260112"}},
		{"a threshold under the API's minimum is raised to it", 60_000, nil, minTrigger,
			[]string{"clear_tool_uses_20250919", "compact_20260112"}},
		{"WithTrigger overrides it", 200_000, []Option{WithTrigger(120_000)}, 120_000,
			[]string{"clear_tool_uses_20250919", "compact_20260112"}},
		{"clearing alone", 200_000, []Option{WithCompaction(false)}, 143_856,
			[]string{"clear_tool_uses_20250919"}},
		{"compaction alone", 200_000, []Option{WithToolClearing(false)}, 143_856,
			[]string{"compact_20260112"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			engine := NewNativeEngine(compact.New(compact.WithContextWindow(tt.window)), tt.opts...)
			cfg := engine.Config()
			var types []string
			for _, e := range cfg.Edits {
				types = append(types, *e.GetType())
			}
			assert.Equal(t, tt.edits, types)
			for _, e := range cfg.Edits {
				if c := e.OfCompact20260112; c != nil {
					assert.Equal(t, int64(tt.trigger), c.Trigger.Value)
				}
				if c := e.OfClearToolUses20250919; c != nil {
					assert.Equal(t, int64(tt.trigger), c.Trigger.OfInputTokens.Value)
					assert.Equal(t, int64(defaultKeepToolUses), c.Keep.Value, "compact's own keep")
					assert.Equal(t, int64(defaultClearAtLeast), c.ClearAtLeast.Value, "compact's own clear-at-least")
				}
			}
			if len(tt.edits) > 0 && tt.edits[len(tt.edits)-1] == "compact_20260112" {
				assert.Equal(t, tt.trigger, engine.Status().Threshold, "Status reports the provider's trigger as the threshold")
			}
		})
	}
}

func TestInvalidOptionsKeepTheirDefaultsAndAreReported(t *testing.T) {
	engine := NewNativeEngine(nil, WithTrigger(10_000), WithKeepToolUses(-1), WithClearAtLeast(-5),
		WithThinkingClearing(-2), WithBackoff(-time.Second), WithClock(nil))
	assert.Equal(t, []string{
		"WithTrigger(10000): invalid, 0 kept",
		"WithKeepToolUses(-1): invalid, 3 kept",
		"WithClearAtLeast(-5): invalid, 2000 kept",
		"WithThinkingClearing(-2): invalid, 0 kept",
		"WithBackoff([-1s]): invalid, [1m0s 5m0s 15m0s] kept",
		"WithClock(nil): invalid, time.Now kept",
	}, engine.Status().Adjusted)
	c := engine.Config().Edits[0].OfClearToolUses20250919
	require.NotNil(t, c)
	assert.Equal(t, int64(3), c.Keep.Value)
	assert.Equal(t, int64(2000), c.ClearAtLeast.Value)
}

func TestRecordReadsTheProvidersCompaction(t *testing.T) {
	api := newNativeAPI(t)
	engine := newNativeEngine()
	ctx := context.Background()
	h := longHistory(t, nativeRounds)

	out, res, err := Compress(ctx, engine, h)
	require.NoError(t, err)
	assert.Equal(t, h, out, "compact leaves the compaction to the provider")
	assert.Contains(t, res.Skipped, "the provider compacts on its side at 50000 input tokens")

	resp, err := send(t, api, engine, h)
	require.NoError(t, err)
	res, err = engine.Record(h, resp)
	require.NoError(t, err)
	require.NotNil(t, res, "the provider compacted")

	conv, err := Convert(h)
	require.NoError(t, err)
	assert.Equal(t, nativeSummarizer, res.Summarizer)
	assert.Equal(t, providerSummary, res.Summary)
	assert.Equal(t, 1, res.SummaryIndex, "the summary follows the system prompt")
	assert.Equal(t, 1, res.SummarizedFrom, "every turn is folded")
	assert.Equal(t, len(conv.Messages)-1, res.SummarizedTo)
	assert.Equal(t, len(conv.Messages), res.MessagesBefore)
	require.Len(t, res.Messages, 3, "the system prompt, the provider's summary and its answer")
	assert.True(t, compact.IsSummary(res.Messages[1]), "the block reads as a summary")
	assert.Contains(t, compact.Text(res.Messages[1]), providerSummary)
	assert.Equal(t, answerText, compact.Text(res.Messages[2]))
	require.Len(t, res.Account, len(conv.Messages), "every input message is accounted for")
	assert.Equal(t, "kept", res.Account[0].Fate)
	for _, f := range res.Account[1:] {
		assert.Equal(t, "folded", f.Fate, "message %d", f.Index)
		assert.Equal(t, 1, f.Output)
	}
	input := api.last(t).inputTokens()
	assert.Equal(t, input, res.TokensBefore, "the context the compaction read, by the provider's count")
	assert.Equal(t, 400, res.TokensAfter, "the context the answer was written from")
	assert.Equal(t, compact.Usage{PromptTokens: input, CompletionTokens: 300, TotalTokens: input + 300, CachedTokens: input - 20},
		engine.LastUsage(), "what the summarising pass cost")
	st := engine.Status()
	assert.Equal(t, 1, st.Compressions)
	assert.Equal(t, 400, st.LastPromptTokens, "the window holds the compacted context now")
	assert.Equal(t, 400+12+input+300, st.LastTotalTokens, "every token the response billed")

	// The next request carries the block back, byte for byte, and the
	// history is judged from it on.
	h.Messages = append(h.Messages, resp.ToParam(), sdk.NewUserMessage(sdk.NewTextBlock("And v3?")))
	should, err := ShouldCompress(engine, h)
	require.NoError(t, err)
	assert.False(t, should, "the compacted history is small")
	_, err = send(t, api, engine, h)
	require.NoError(t, err)
	next := api.last(t)
	assert.Contains(t, string(next.body), `{"content":"`+jsonString(t, providerSummary)+`","encrypted_content":"EncOpaque==","type":"compaction"}`,
		"the block goes back as the provider wrote it")
	assert.Less(t, next.inputTokens(), 1000, "the API reads the history from the block on")
}

func TestPausedCompactionReturnsTheBlockAlone(t *testing.T) {
	api := newNativeAPI(t)
	engine := newNativeEngine(WithPauseAfterCompaction(true))
	h := longHistory(t, nativeRounds)
	resp, err := send(t, api, engine, h)
	require.NoError(t, err)
	assert.Equal(t, sdk.StopReason("compaction"), resp.StopReason)
	res, err := engine.Record(h, resp)
	require.NoError(t, err)
	require.NotNil(t, res)
	require.Len(t, res.Messages, 2, "the system prompt and the summary: the answer comes with the next request")
	assert.Positive(t, res.TokensAfter, "counted by the fallback when the provider reports no message iteration")

	h.Messages = append(h.Messages, resp.ToParam())
	require.NoError(t, Validate(h))
	resp, err = send(t, api, engine, h)
	require.NoError(t, err, "the host sends again to get the answer")
	assert.Equal(t, answerText, resp.Content[0].Text)
}

func TestRecordReadsClearedToolResults(t *testing.T) {
	api := newNativeAPI(t)
	engine := newNativeEngine(WithCompaction(false))
	h := longHistory(t, nativeRounds)
	resp, err := send(t, api, engine, h)
	require.NoError(t, err)
	res, err := engine.Record(h, resp)
	require.NoError(t, err)
	require.NotNil(t, res, "the provider cleared")

	conv, err := Convert(h)
	require.NoError(t, err)
	results := 0
	for _, m := range conv.Messages {
		if m.Role == compact.RoleTool {
			results++
		}
	}
	cleared := results - defaultKeepToolUses
	require.Len(t, res.Pruned, cleared, "every result but the last three")
	assert.Equal(t, conv.Messages, res.Messages, "the history is unchanged: the provider clears on its side")
	assert.Equal(t, -1, res.SummaryIndex)
	assert.Equal(t, clearedPerResult*cleared, res.TokensBefore-res.TokensAfter, "what the provider says it cleared")
	pruned := 0
	for i, p := range res.Pruned {
		assert.Equal(t, compact.RoleTool, conv.Messages[p.Index].Role)
		assert.Equal(t, conv.Messages[p.Index].ToolCallID, p.ToolCallID)
		assert.Equal(t, "masked tool result", p.Kind.String())
		assert.Equal(t, "read_file", p.Tool)
		assert.Positive(t, p.TokensBefore)
		if i > 0 {
			assert.Greater(t, p.Index, res.Pruned[i-1].Index, "oldest first")
		}
	}
	for _, f := range res.Account {
		if f.Fate == "pruned" {
			pruned++
		} else {
			assert.Equal(t, "kept", f.Fate)
		}
	}
	assert.Equal(t, cleared, pruned)
	assert.Equal(t, api.last(t).inputTokens(), engine.Status().LastPromptTokens,
		"the window is judged by the history as sent, which is what compact counts")
}

func TestANativeFailureHandsTheNextCompactionToTheFallback(t *testing.T) {
	tests := []struct {
		name  string
		reply func(w http.ResponseWriter, req nativeRequest)
	}{
		{"the provider's compaction is unavailable", func(w http.ResponseWriter, _ nativeRequest) {
			writeError(w, 529, "overloaded_error", "compaction_unavailable", "Compaction is temporarily unavailable.")
		}},
		{"the model does not take the edits", func(w http.ResponseWriter, _ nativeRequest) {
			writeError(w, http.StatusBadRequest, "invalid_request_error", "", "context_management: compact_20260112 is not supported on this model")
		}},
		{"a server error on a request due for compaction", func(w http.ResponseWriter, _ nativeRequest) {
			writeError(w, http.StatusInternalServerError, "api_error", "", "Internal server error")
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			api := newNativeAPI(t)
			now := time.Unix(1_767_225_600, 0)
			engine := NewNativeEngine(compact.New(compact.WithContextWindow(60_000)),
				WithClock(func() time.Time { return now }))
			h := longHistory(t, nativeRounds)
			api.setReply(tt.reply)
			_, err := send(t, api, engine, h)
			require.Error(t, err)
			require.True(t, engine.RecordFailure(h, err), "native compaction is to blame")
			st := engine.Status()
			assert.Contains(t, st.LastError, "native compaction: ")
			assert.Equal(t, now.Add(firstBackoff), st.BackoffUntil)

			out, res, err := Compress(context.Background(), engine, h)
			require.NoError(t, err, "the fallback compacts")
			assert.True(t, res.Fallback)
			assert.Contains(t, res.FallbackReason, "native compaction failed")
			assert.Less(t, res.TokensAfter, res.TokensBefore)
			require.NoError(t, Validate(out))

			api.setReply(honestNativeReply)
			resp, err := send(t, api, engine, out)
			require.NoError(t, err)
			_, err = engine.Record(out, resp)
			require.NoError(t, err)
			req := api.last(t)
			assert.Nil(t, req.req.ContextManagement, "no edits while backing off")
			assert.Contains(t, req.betas, "compact-2026-01-12", "the beta header still goes out")

			now = now.Add(firstBackoff)
			_, err = send(t, api, engine, out)
			require.NoError(t, err)
			assert.NotNil(t, api.last(t).req.ContextManagement, "the edits again once the backoff ends")
		})
	}
}

func TestTheFallbackCompactsWhatTheProviderFoundDueEvenUnderItsThreshold(t *testing.T) {
	tests := []struct {
		name   string
		reply  func(w http.ResponseWriter, req nativeRequest)
		forced bool
	}{
		{"the provider tried and failed", func(w http.ResponseWriter, _ nativeRequest) {
			writeError(w, 529, "overloaded_error", "compaction_unavailable", "Compaction is temporarily unavailable.")
		}, true},
		{"the provider refused the edits without trying", func(w http.ResponseWriter, _ nativeRequest) {
			writeError(w, http.StatusBadRequest, "invalid_request_error", "", "context_management: not supported on this model")
		}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			api := newNativeAPI(t)
			engine := newNativeEngine() // a 200,000-token window: its threshold is far off
			h := longHistory(t, 150)
			api.setReply(tt.reply)
			_, err := send(t, api, engine, h)
			require.True(t, engine.RecordFailure(h, err))
			_, res, err := Compress(context.Background(), engine, h)
			require.NoError(t, err)
			if !tt.forced {
				assert.NotEmpty(t, res.Skipped, "under the fallback's threshold, nothing to do")
				return
			}
			assert.Empty(t, res.Skipped, "compact's engine compacts what the provider could not")
			assert.True(t, res.Fallback)
			_, res, err = Compress(context.Background(), engine, h)
			require.NoError(t, err)
			assert.NotEmpty(t, res.Skipped, "once: the next compaction is the fallback's own call")
		})
	}
}

func TestFailuresThatAreNotNativeCompactionsAreTheHosts(t *testing.T) {
	api := newNativeAPI(t)
	engine := newNativeEngine()
	small := longHistory(t, 2)
	tests := []struct {
		name  string
		h     History
		reply func(w http.ResponseWriter, req nativeRequest)
	}{
		{"a bad request about something else", longHistory(t, nativeRounds), func(w http.ResponseWriter, _ nativeRequest) {
			writeError(w, http.StatusBadRequest, "invalid_request_error", "", "max_tokens: must be positive")
		}},
		{"a server error on a request under the trigger", small, func(w http.ResponseWriter, _ nativeRequest) {
			writeError(w, http.StatusInternalServerError, "api_error", "", "Internal server error")
		}},
		{"a rate limit", longHistory(t, nativeRounds), func(w http.ResponseWriter, _ nativeRequest) {
			writeError(w, http.StatusTooManyRequests, "rate_limit_error", "", "Number of requests has exceeded your rate limit")
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			api.setReply(tt.reply)
			_, err := send(t, api, engine, tt.h)
			require.Error(t, err)
			assert.False(t, engine.RecordFailure(tt.h, err))
		})
	}
	assert.False(t, engine.RecordFailure(small, context.Canceled), "a cancelled request")
	assert.False(t, engine.RecordFailure(small, nil))
	assert.Empty(t, engine.Status().LastError)
	assert.NotNil(t, engine.Config().Edits, "the edits stay on")
}

func TestACompactionBlockWithoutASummaryIsANativeFailure(t *testing.T) {
	api := newNativeAPI(t)
	api.setReply(func(w http.ResponseWriter, req nativeRequest) {
		_ = json.NewEncoder(w).Encode(map[string]any{"id": "msg_2", "type": "message", "role": "assistant", "model": "claude-test",
			"content": []any{map[string]any{"type": "compaction", "content": nil, "encrypted_content": ""},
				map[string]any{"type": "text", "text": "Calling a tool instead."}},
			"stop_reason": "end_turn", "usage": map[string]any{"input_tokens": req.inputTokens(), "output_tokens": 5},
			"context_management": map[string]any{"applied_edits": []any{}}})
	})
	engine := NewNativeEngine(compact.New(compact.WithContextWindow(60_000)))
	h := longHistory(t, nativeRounds)
	resp, err := send(t, api, engine, h)
	require.NoError(t, err)
	res, err := engine.Record(h, resp)
	require.NoError(t, err)
	assert.Nil(t, res, "nothing was compacted or cleared")
	assert.Contains(t, engine.Status().LastError, "without a summary")
	assert.Zero(t, engine.Status().Compressions)

	h.Messages = append(h.Messages, resp.ToParam(), sdk.NewUserMessage(sdk.NewTextBlock("Go on.")))
	conv, err := Convert(h)
	require.NoError(t, err)
	for _, m := range conv.Messages {
		assert.False(t, compact.IsSummary(m), "a block without a summary is no summary")
	}
	out, res, err := Compress(context.Background(), engine, h)
	require.NoError(t, err)
	assert.Empty(t, res.Skipped)
	assert.True(t, res.Fallback, "compact's engine compacts the history the provider did not")
	assert.Less(t, res.TokensAfter, res.TokensBefore)
	require.NoError(t, Validate(out))
}

func TestWithoutBackoffOneRequestGoesWithoutTheEdits(t *testing.T) {
	api := newNativeAPI(t)
	engine := newNativeEngine(WithBackoff())
	h := longHistory(t, nativeRounds)
	api.setReply(func(w http.ResponseWriter, _ nativeRequest) {
		writeError(w, 529, "overloaded_error", "compaction_unavailable", "Compaction is temporarily unavailable.")
	})
	_, err := send(t, api, engine, h)
	require.True(t, engine.RecordFailure(h, err))
	assert.Empty(t, engine.Config().Edits, "the request after the failure goes without them")

	api.setReply(honestNativeReply)
	resp, err := send(t, api, engine, h)
	require.NoError(t, err)
	_, err = engine.Record(h, resp)
	require.NoError(t, err)
	assert.NotEmpty(t, engine.Config().Edits, "and the one after it with them")
}

func TestCompressCompactsWhatTheProviderCannot(t *testing.T) {
	engine := NewNativeEngine(compact.New(compact.WithContextWindow(60_000)))
	h := longHistory(t, nativeRounds)
	out, res, err := Compress(context.Background(), engine, h)
	require.NoError(t, err)
	assert.Empty(t, res.Skipped, "a request over the usable window is compact's to compact")
	assert.False(t, res.Fallback)
	require.NoError(t, Validate(out))

	small := longHistory(t, 60)
	_, res, err = Compress(context.Background(), engine, small, compact.Force())
	require.NoError(t, err)
	assert.Empty(t, res.Skipped, "a forced compaction is compact's")
}

func TestAHistoryIsJudgedFromItsNewestCompactionBlock(t *testing.T) {
	h := longHistory(t, 40)
	h.Messages = append(h.Messages, providerTurn(t, providerSummary, "Done reading."),
		sdk.NewUserMessage(sdk.NewTextBlock("Which flags did v3 add?")))
	engine := compact.New(compact.WithContextWindow(8000))
	whole, err := Convert(h)
	require.NoError(t, err)
	require.True(t, engine.Preflight(whole.Messages).Compress, "the whole history is over the threshold")
	should, err := ShouldCompress(engine, h)
	require.NoError(t, err)
	assert.False(t, should, "what the API reads of it is not")

	out, res, err := Compress(context.Background(), engine, h)
	require.NoError(t, err)
	assert.Equal(t, h, out, "unforced, it comes back whole")
	assert.NotEmpty(t, res.Skipped)
	assert.Len(t, res.Messages, len(whole.Messages))
}

func TestCompactingAgainFoldsTheProvidersSummaryIntoOne(t *testing.T) {
	h := longHistory(t, 10)
	block := len(h.Messages)
	h.Messages = append(h.Messages, providerTurn(t, providerSummary, "Done reading."))
	for i := 0; i < 12; i++ {
		h.Messages = append(h.Messages, sdk.NewUserMessage(sdk.NewTextBlock(strings.Repeat("Now check flag f"+string(rune('a'+i))+". ", 40))),
			sdk.NewAssistantMessage(sdk.NewTextBlock("Flag f"+string(rune('a'+i))+" is gone.")))
	}
	h.Messages = append(h.Messages, sdk.NewUserMessage(sdk.NewTextBlock("Which flags are left?")))
	require.NoError(t, Validate(h))
	whole, err := Convert(h)
	require.NoError(t, err)

	out, res, err := Compress(context.Background(), compact.New(compact.WithContextWindow(3000)), h, compact.Force())
	require.NoError(t, err)
	require.NoError(t, Validate(out))
	summaries, blocks := 0, 0
	for _, m := range out.Messages {
		for _, b := range turnBlocks(m) {
			if _, ok := readCompaction(b); ok {
				blocks++
			}
			if b.OfText != nil && compact.IsSummary(compact.Message{Role: compact.RoleUser, Content: b.OfText.Text}) {
				summaries++
			}
		}
	}
	assert.Equal(t, 1, summaries+blocks, "one summary: compact's, with the provider's folded in")
	assert.Contains(t, res.Summary, "v2 removed", "the provider's summary is read into compact's")
	assert.Equal(t, 1, res.SummarizedFrom, "the turns before the block count as folded")
	require.Len(t, res.Account, len(whole.Messages), "every message of the history is accounted for once")
	for j, f := range res.Account {
		assert.Equal(t, j, f.Index)
		if j > 0 && j <= block {
			assert.Equal(t, "folded", f.Fate, "a turn before the block, message %d", j)
			assert.Equal(t, res.SummaryIndex, f.Output)
		}
	}
	assert.Equal(t, h.Messages[len(h.Messages)-1], out.Messages[len(out.Messages)-1], "the latest user turn is kept")
}

func TestAPrunedHistoryKeepsTheBlockFirst(t *testing.T) {
	h := longHistory(t, 3)
	h.Messages = append(h.Messages, providerTurn(t, providerSummary, "Reading the rest."))
	h.Messages = append(h.Messages, readingRounds("late", 12)...)
	h.Messages = append(h.Messages, sdk.NewUserMessage(sdk.NewTextBlock("Which flags are left?")))
	require.NoError(t, Validate(h))

	out, res, err := Compress(context.Background(), compact.New(compact.WithContextWindow(6000)), h)
	require.NoError(t, err)
	require.Equal(t, providerSummarizer, res.Summarizer, "pruning alone was enough, and the provider's block is the summary")
	require.NoError(t, Validate(out), "a history that opens on the block has the API's shape")
	assert.True(t, isSummaryBlock(turnBlocks(out.Messages[0])[0]), "the output opens on the provider's block")
	assert.Equal(t, 1, res.SummaryIndex, "after the system prompt")
	assert.NotEmpty(t, res.Pruned)
	assert.Equal(t, 1, res.SummarizedFrom, "the turns before the block are folded into it")
	assert.Equal(t, providerSummary, res.Summary)
}

func TestTheSessionsModelAndWindowMoveTheTrigger(t *testing.T) {
	engine := NewNativeEngine(compact.New(compact.WithContextWindow(200_000)))
	engine.OnSessionStart("s1", compact.SessionMeta{Window: 100_000})
	assert.Equal(t, 68_856, engine.Status().Threshold, "the session's window sets the fallback's threshold, the trigger")
	engine.SwitchModel("", 80_000)
	assert.Equal(t, int64(53_856), engine.Config().Edits[1].OfCompact20260112.Trigger.Value)
}

// readingRounds are n rounds of a user asking for a part, the assistant
// reading it and saying so; ids carry tag.
func readingRounds(tag string, n int) []sdk.MessageParam {
	var out []sdk.MessageParam
	for i := 0; i < n; i++ {
		id := fmt.Sprintf("toolu_%s%d", tag, i)
		out = append(out,
			sdk.NewUserMessage(sdk.NewTextBlock(fmt.Sprintf("Now read %s part %d.", tag, i))),
			sdk.NewAssistantMessage(sdk.NewToolUseBlock(id, map[string]any{"path": fmt.Sprintf("%s%d.go", tag, i)}, "read_file")),
			sdk.NewUserMessage(sdk.NewToolResultBlock(id, strings.Repeat(fmt.Sprintf("func %s%d() {}\n", tag, i), 60), false)),
			sdk.NewAssistantMessage(sdk.NewTextBlock(fmt.Sprintf("Part %d read.", i))))
	}
	return out
}

func TestClearedResultsAreTheOldestTheProviderCouldClear(t *testing.T) {
	call := func(id, name string) compact.Message {
		return compact.Message{Role: compact.RoleAssistant, ToolCalls: []openai.ToolCall{{ID: id, Type: "function",
			Function: openai.FunctionCall{Name: name, Arguments: "{}"}}}}
	}
	result := func(id string) compact.Message {
		return compact.Message{Role: compact.RoleTool, ToolCallID: id, Content: "out " + id}
	}
	views := []compact.Message{
		{Role: compact.RoleUser, Content: "go"},
		call("a", "read_file"), result("a"),
		call("m", "memory"), result("m"),
		call("b", "read_file"), result("b"),
		call("c", "grep"), result("c"),
	}
	tests := []struct {
		name    string
		n       int
		exclude []string
		want    []int
	}{
		{"none cleared", 0, nil, nil},
		{"the oldest first", 2, nil, []int{2, 4}},
		{"excluded tools are passed over", 2, []string{"memory"}, []int{2, 6}},
		{"more than there are", 9, []string{"memory"}, []int{2, 6, 8}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, clearedResults(views, tt.n, tt.exclude))
		})
	}
}

func TestEveryTranscriptCompactedByTheProviderCompactsAgainIntoOneSummary(t *testing.T) {
	all := allTranscripts(t)
	counter, err := tokens.ForModel("gpt-4o")
	require.NoError(t, err)
	block := compactionBlockOf(`{"type":"compaction","content":"` + providerSummary + `","encrypted_content":"EncOpaque=="}`)
	for _, name := range sortedNames(all) {
		h := fromTranscript(t, all[name])
		// The provider compacted at the assistant turn nearest the middle:
		// its response opened on the block.
		k := len(h.Messages) / 2
		for k < len(h.Messages) && h.Messages[k].OfAssistant == nil {
			k++
		}
		if k == len(h.Messages) {
			continue
		}
		h.Messages = slices.Clone(h.Messages)
		h.Messages[k] = copyTurn(h.Messages[k])
		h.Messages[k].OfAssistant.Content = append([]sdk.ContentBlockParamUnion{block}, h.Messages[k].OfAssistant.Content...)
		require.NoError(t, Validate(h))
		for _, window := range windows {
			t.Run(fmt.Sprintf("%s/window=%d", name, window), func(t *testing.T) {
				out, res := compress(t, compact.New(compact.WithContextWindow(window), compact.WithTokenCounter(counter)), h)
				requireCompactionContracts(t, h, out, res)
				if res == nil {
					return
				}
				summaries := 0
				for i, m := range out.Messages {
					for j, b := range turnBlocks(m) {
						if isSummaryBlock(b) {
							summaries++
							assert.True(t, i == 0 && j == 0, "the provider's block, when kept, opens the history")
						}
						if b.OfText != nil && compact.IsSummary(compact.Message{Role: compact.RoleUser, Content: b.OfText.Text}) {
							summaries++
						}
					}
				}
				assert.LessOrEqual(t, summaries, 1, "one summary at most: the provider's or compact's")
				assert.LessOrEqual(t, res.SummarizedFrom, 1, "the turns before the block are folded")
			})
		}
	}
}
