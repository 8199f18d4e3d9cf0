package openaigo

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/contextkit/compact"
)

// pendingItems is agentItems with a reasoning item and two calls at the
// end whose outputs the host has not appended yet.
func pendingItems(rounds int) []Item {
	items := agentItems(rounds, -1, "")
	return append(items,
		decodeItem([]byte(`{"type":"reasoning","id":"rs_end","summary":[],"encrypted_content":"gAAAAABend"}`)),
		responses.ResponseInputItemParamOfFunctionCall(`{"path":"flags.go"}`, "call_end_a", "read_file"),
		responses.ResponseInputItemParamOfCustomToolCall("call_end_b", "legacy", "grep"))
}

func newNative(t *testing.T, api *compactAPI, window int, opts ...Option) *NativeEngine {
	t.Helper()
	client := newResponsesClient(api.URL)
	return NewNativeEngine(client.Responses, "gpt-test", compact.New(compact.WithContextWindow(window)), opts...)
}

func TestNativeCompactionSendsTheHistoryAndKeepsWhatItMust(t *testing.T) {
	api := newCompactAPI(t)
	engine := newNative(t, api, 8000, WithInstructions("You are a coding agent."),
		WithRequestOptions(option.WithHeader("X-Trace", "abc")))
	items := pendingItems(10)
	out, res, err := CompressItems(context.Background(), engine, items, compact.Force())
	require.NoError(t, err)

	calls := api.calls()
	require.Len(t, calls, 1)
	req := requireRequest(t, calls[0])
	assert.Equal(t, "gpt-test", req.Model)
	assert.Equal(t, "You are a coding agent.", req.Instructions)
	assert.Equal(t, "abc", calls[0].trace, "the host's request options are applied")
	pending := len(items) - 3
	sent, err := json.Marshal(req.Input)
	require.NoError(t, err)
	assert.JSONEq(t, encodeItems(t, items[:pending]), string(sent), "the items are sent as they are, the pending calls left out")

	require.NoError(t, ValidateItems(out))
	assert.Equal(t, items[0], out[0], "the system prompt comes back as it was")
	users := 0
	for _, u := range out[1:] {
		if w, _, _ := readWire(u); w.Role == compact.RoleUser {
			users++
		}
	}
	assert.Equal(t, 10+1, users, "every user message")
	k := res.SummaryIndex
	require.NotNil(t, out[k].OfCompaction, "the summary is the provider's compaction item")
	assert.Equal(t, compactionBlob, out[k].OfCompaction.EncryptedContent)
	assert.Equal(t, items[pending:], out[k+1:], "the pending calls come back after it, their reasoning first")

	assert.Equal(t, nativeSummarizer, res.Summarizer)
	assert.False(t, res.Fallback)
	assert.Equal(t, 1, res.SummarizedFrom)
	assert.Equal(t, pending-1, res.SummarizedTo)
	assert.Equal(t, len(out), res.MessagesAfter)
	assert.Less(t, res.TokensAfter, res.TokensBefore)
	assert.Equal(t, compact.Usage{PromptTokens: 12000, CompletionTokens: 900, TotalTokens: 12900, CachedTokens: 8000}, engine.LastUsage())
	assert.Equal(t, 1, engine.Status().Compressions)
	assert.Equal(t, "openai-native", engine.Status().Engine)

	// The compacted history, its calls answered and more work done,
	// compacts again: the provider reads its own item; the incoming message
	// comes last.
	more := append(append([]Item(nil), out...),
		functionOutput("call_end_a", "flags: --legacy"), responses.ResponseInputItemParamOfCustomToolCallOutput("call_end_b", "none"))
	more = append(more, agentItems(4, -1, "")[1:]...)
	incoming := compact.Message{Role: compact.RoleUser, Content: "And the defaults?"}
	again, res2, err := CompressItems(context.Background(), engine, more, compact.Force(), compact.WithIncoming(incoming))
	require.NoError(t, err)
	require.NoError(t, ValidateItems(again))
	assert.Equal(t, nativeSummarizer, res2.Summarizer)
	req = requireRequest(t, api.calls()[1])
	assert.Contains(t, string(req.Input[k]), compactionBlob, "the compaction item is sent back to the provider")
	assert.JSONEq(t, `{"content":"And the defaults?","role":"user","type":"message"}`, jsonOf(t, again[len(again)-1]))
}

func TestAFailedNativeCompactionFallsBackAndLosesNothing(t *testing.T) {
	tests := []struct {
		name  string
		reply func(w http.ResponseWriter, r *http.Request, req compactRequest)
		opts  []Option
		why   string
	}{
		{"a server error", func(w http.ResponseWriter, _ *http.Request, _ compactRequest) {
			w.WriteHeader(http.StatusInternalServerError)
			fmt.Fprint(w, `{"error":{"message":"boom","type":"server_error"}}`)
		}, nil, "500"},
		{"a timeout", func(w http.ResponseWriter, r *http.Request, req compactRequest) {
			select {
			case <-r.Context().Done():
			case <-time.After(2 * time.Second):
			}
			honestReply(w, r, req)
		}, []Option{WithTimeout(50 * time.Millisecond)}, "deadline exceeded"},
		{"a body that is not JSON", func(w http.ResponseWriter, _ *http.Request, _ compactRequest) {
			fmt.Fprint(w, `{"output": [`)
		}, nil, ""},
		{"no output", func(w http.ResponseWriter, _ *http.Request, _ compactRequest) {
			writeCompacted(w, []any{})
		}, nil, "no output"},
		{"no compaction item", func(w http.ResponseWriter, _ *http.Request, _ compactRequest) {
			writeCompacted(w, []any{map[string]any{"type": "message", "role": "user", "content": "hi"}})
		}, nil, "no compaction item"},
		{"a compaction item without content", func(w http.ResponseWriter, _ *http.Request, _ compactRequest) {
			writeCompacted(w, []any{map[string]any{"type": "compaction", "encrypted_content": ""}})
		}, nil, "without content"},
		{"an item that is not one", func(w http.ResponseWriter, _ *http.Request, _ compactRequest) {
			writeCompacted(w, []any{"text", map[string]any{"type": "compaction", "encrypted_content": "x"}})
		}, nil, "malformed"},
		{"a window the API would refuse", func(w http.ResponseWriter, _ *http.Request, _ compactRequest) {
			writeCompacted(w, []any{map[string]any{"type": "function_call_output", "call_id": "nobody", "output": "?"},
				map[string]any{"type": "compaction", "encrypted_content": "x"}})
		}, nil, "not a valid request"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			api := newCompactAPI(t)
			api.setReply(tt.reply)
			now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
			engine := newNative(t, api, 8000, append(tt.opts, WithClock(func() time.Time { return now }))...)
			items := pendingItems(10)
			before := encodeItems(t, items)
			out, res, err := CompressItems(context.Background(), engine, items, compact.Force())
			require.NoError(t, err, "the fallback compacts")
			require.Equal(t, before, encodeItems(t, items), "the input is not modified")
			require.NoError(t, ValidateItems(out))
			assert.True(t, res.Fallback)
			assert.Contains(t, res.FallbackReason, "native compaction failed")
			assert.Contains(t, res.FallbackReason, tt.why)
			assert.NotEqual(t, nativeSummarizer, res.Summarizer)
			requireItemContracts(t, items, out, res)
			assert.Contains(t, engine.Status().LastError, "native compaction")
			assert.Equal(t, now.Add(firstBackoff), engine.Status().BackoffUntil)

			// Backing off: an automatic compaction does not ask the provider.
			n := len(api.calls())
			_, res, err = CompressItems(context.Background(), engine, pendingItems(30))
			require.NoError(t, err)
			assert.True(t, res.Fallback)
			assert.Contains(t, res.FallbackReason, "backing off")
			assert.Len(t, api.calls(), n, "no request while backing off")
		})
	}
}

func TestACancelledNativeCompactionReturnsTheContextsError(t *testing.T) {
	api := newCompactAPI(t)
	ctx, cancel := context.WithCancel(context.Background())
	api.setReply(func(w http.ResponseWriter, r *http.Request, req compactRequest) {
		cancel()
		<-r.Context().Done()
	})
	engine := newNative(t, api, 8000)
	_, res, err := CompressItems(ctx, engine, pendingItems(10), compact.Force())
	require.ErrorIs(t, err, context.Canceled)
	assert.Nil(t, res)
	assert.Empty(t, engine.Status().LastError, "a cancellation is not a failure")
}

func TestTheProvidersWindowHoldsOneSummaryAndTheLatestRequest(t *testing.T) {
	api := newCompactAPI(t)
	ours := compact.PrefixSummary("Earlier: the notes were read.")
	api.setReply(func(w http.ResponseWriter, _ *http.Request, _ compactRequest) {
		writeCompacted(w, []any{
			map[string]any{"type": "message", "role": "user", "content": ours},
			map[string]any{"type": "message", "role": "system", "content": "an echo of the system prompt"},
			map[string]any{"type": "compaction", "encrypted_content": compactionBlob}})
	})
	engine := newNative(t, api, 8000)
	items := agentItems(10, -1, "")
	out, _, err := CompressItems(context.Background(), engine, items, compact.Force())
	require.NoError(t, err)
	require.Len(t, out, 3)
	assert.Equal(t, items[0], out[0])
	assert.NotNil(t, out[1].OfCompaction, "our summary and the echo are dropped")
	assert.Equal(t, items[len(items)-1], out[2], "the latest user message the reply left out comes back")
}

func TestNativeEngineLeavesToItsFallbackWhatIsNotANativeCompaction(t *testing.T) {
	api := newCompactAPI(t)
	engine := newNative(t, api, 8000)
	items := agentItems(3, -1, "")
	out, res, err := CompressItems(context.Background(), engine, items)
	require.NoError(t, err)
	assert.NotEmpty(t, res.Skipped, "under the threshold")
	assert.Equal(t, items, out)

	only := []Item{items[0], responses.ResponseInputItemParamOfMessage("hi", responses.EasyInputMessageRoleUser)}
	_, _, err = CompressItems(context.Background(), engine, only, compact.Force())
	require.ErrorIs(t, err, compact.ErrNothingToCompress, "nothing but user messages to fold")

	msgs := itemViews(t, agentItems(10, -1, ""))
	r, err := engine.Compress(context.Background(), msgs, compact.Force())
	require.NoError(t, err, "go-openai messages are compacted by the fallback")
	assert.NotEqual(t, nativeSummarizer, r.Summarizer)
	assert.Empty(t, api.calls(), "none of these asked the provider")

	ok, err := ShouldCompressItems(engine, agentItems(3, -1, ""))
	require.NoError(t, err)
	assert.False(t, ok)
}

func TestNativeEngineReportsInvalidOptions(t *testing.T) {
	api := newCompactAPI(t)
	engine := newNative(t, api, 8000, WithTimeout(-time.Second), WithBackoff(-time.Second), WithClock(nil))
	assert.Equal(t, []string{
		"WithTimeout(-1s): invalid, 0s kept",
		"WithBackoff([-1s]): invalid, [1m0s 5m0s 15m0s] kept",
		"WithClock(nil): invalid, time.Now kept",
	}, engine.Status().Adjusted)
	assert.True(t, strings.HasPrefix(engine.Name(), "openai"))
}
