package anthropic_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"time"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"

	"github.com/contextkit/compact"
	adapt "github.com/contextkit/compact/adapt/anthropic"
)

func ExampleNewNativeEngine() {
	// The fallback's threshold (for a 200,000-token window) is where the
	// provider compacts and clears; keep and clear-at-least are compact's.
	engine := adapt.NewNativeEngine(compact.New(compact.WithContextWindow(200_000)),
		adapt.WithExcludeTools("memory"),
		adapt.WithInstructions("Summarise the task, the files touched and what is left. Call no tools."))
	fmt.Println("betas:", engine.Betas())
	cfg, _ := json.MarshalIndent(engine.Config(), "", "  ")
	fmt.Println(string(cfg))
	// Output:
	// betas: [compact-2026-01-12 context-management-2025-06-27]
	// {
	//   "edits": [
	//     {
	//       "exclude_tools": [
	//         "memory"
	//       ],
	//       "clear_at_least": {
	//         "value": 2000,
	//         "type": "input_tokens"
	//       },
	//       "keep": {
	//         "value": 3,
	//         "type": "tool_uses"
	//       },
	//       "trigger": {
	//         "value": 143856,
	//         "type": "input_tokens"
	//       },
	//       "type": "clear_tool_uses_20250919"
	//     },
	//     {
	//       "instructions": "Summarise the task, the files touched and what is left. Call no tools.",
	//       "trigger": {
	//         "value": 143856,
	//         "type": "input_tokens"
	//       },
	//       "type": "compact_20260112"
	//     }
	//   ]
	// }
}

// canned is a Messages API response in which the provider compacted: a
// compaction block before the answer, and the summarising pass as an
// iteration of its own.
const canned = `{"id":"msg_01","type":"message","role":"assistant","model":"claude-sonnet-4-6",
 "content":[
  {"type":"compaction","content":"The user is looking for the retry budget; retry1-3.go hold helpers only.","encrypted_content":"Eq=="},
  {"type":"text","text":"It is in config/defaults.go: RetryBudget = 5."}],
 "stop_reason":"end_turn","stop_sequence":null,
 "context_management":{"applied_edits":[]},
 "usage":{"input_tokens":900,"cache_read_input_tokens":3000,"output_tokens":40,
  "iterations":[
   {"type":"compaction","input_tokens":150,"cache_read_input_tokens":151000,"output_tokens":2500},
   {"type":"message","input_tokens":900,"cache_read_input_tokens":3000,"output_tokens":40}]}}`

func ExampleNativeEngine_Record() {
	engine := adapt.NewNativeEngine(compact.New(compact.WithContextWindow(200_000)))
	h := history() // the history as the request sent it
	var resp anthropic.Message
	if err := json.Unmarshal([]byte(canned), &resp); err != nil {
		fmt.Println(err)
		return
	}
	res, err := engine.Record(h, &resp) // records the usage too
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("summarizer:", res.Summarizer)
	fmt.Println("folded messages", res.SummarizedFrom, "to", res.SummarizedTo, "into message", res.SummaryIndex)
	fmt.Println("tokens:", res.TokensBefore, "->", res.TokensAfter)
	u := engine.LastUsage()
	fmt.Println("the pass cost: prompt", u.PromptTokens, "completion", u.CompletionTokens, "cache read", u.CachedTokens, "cache written", u.CacheWriteTokens)
	fmt.Println("compactions:", engine.Status().Compressions, "window now:", engine.Status().LastPromptTokens)

	// Append the response, compaction block and all: the API reads the
	// history from the block on.
	h.Messages = append(h.Messages, resp.ToParam())
	should, _ := adapt.ShouldCompress(engine, h)
	fmt.Println("compact's turn:", should)
	// Output:
	// summarizer: anthropic:compact_20260112
	// folded messages 1 to 12 into message 1
	// tokens: 151150 -> 3900
	// the pass cost: prompt 151150 completion 2500 cache read 151000 cache written 0
	// compactions: 1 window now: 3900
	// compact's turn: false
}

func ExampleNativeEngine_RequestOptions() {
	// A local server that prints what the request carried.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var req struct {
			ContextManagement struct {
				Edits []struct{ Type string } `json:"edits"`
			} `json:"context_management"`
		}
		_ = json.Unmarshal(body, &req)
		fmt.Println("anthropic-beta:", r.Header.Get("anthropic-beta"))
		for _, e := range req.ContextManagement.Edits {
			fmt.Println("edit:", e.Type)
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"id":"msg_1","type":"message","role":"assistant","model":"m","content":[{"type":"text","text":"ok"}],
			"stop_reason":"end_turn","usage":{"input_tokens":10,"output_tokens":1}}`)
	}))
	defer srv.Close()
	client := anthropic.NewClient(option.WithoutEnvironmentDefaults(), option.WithAPIKey("local"), option.WithBaseURL(srv.URL))

	engine := adapt.NewNativeEngine(compact.New(compact.WithContextWindow(200_000)), adapt.WithThinkingClearing(1))
	h := history()
	_, err := client.Messages.New(context.Background(), anthropic.MessageNewParams{
		Model: "claude-sonnet-4-6", MaxTokens: 1024, System: h.System, Messages: h.Messages},
		engine.RequestOptions()...)
	fmt.Println("error:", err)
	// Output:
	// anthropic-beta: compact-2026-01-12,context-management-2025-06-27
	// edit: clear_thinking_20251015
	// edit: clear_tool_uses_20250919
	// edit: compact_20260112
	// error: <nil>
}

func ExampleNativeEngine_RecordFailure() {
	// A local server whose compaction is unavailable, as the API reports it.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(529)
		fmt.Fprint(w, `{"type":"error","error":{"type":"overloaded_error","message":"Compaction is unavailable.",
			"details":{"error_code":"compaction_unavailable"}}}`)
	}))
	defer srv.Close()
	client := anthropic.NewClient(option.WithoutEnvironmentDefaults(), option.WithAPIKey("local"),
		option.WithBaseURL(srv.URL), option.WithMaxRetries(0))

	start := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	engine := adapt.NewNativeEngine(compact.New(compact.WithContextWindow(2000)),
		adapt.WithClock(func() time.Time { return start }))
	h := history()
	_, err := client.Messages.New(context.Background(), anthropic.MessageNewParams{
		Model: "claude-sonnet-4-6", MaxTokens: 1024, System: h.System, Messages: h.Messages},
		engine.RequestOptions()...)
	if engine.RecordFailure(h, err) {
		fmt.Println("native compaction failed; edits back at", engine.Status().BackoffUntil.Format(time.Kitchen))
		fmt.Println("edits on the next request:", len(engine.Config().Edits))
		_, res, err := adapt.Compress(context.Background(), engine, h)
		if err == nil {
			fmt.Println("compact's fallback compacted:", res.Fallback, res.TokensBefore > res.TokensAfter)
		}
	}
	// Output:
	// native compaction failed; edits back at 12:01PM
	// edits on the next request: 0
	// compact's fallback compacted: true true
}

func ExampleCompactionUsage() {
	var resp anthropic.Message
	if err := json.Unmarshal([]byte(canned), &resp); err != nil {
		fmt.Println(err)
		return
	}
	req := adapt.UsageFrom(resp.Usage)
	fmt.Println("the request: prompt", req.PromptTokens, "completion", req.CompletionTokens, "total", req.TotalTokens, "cache read", req.CachedTokens)
	pass, ok := adapt.CompactionUsage(resp.Usage)
	fmt.Println("the compaction (", ok, "): prompt", pass.PromptTokens, "completion", pass.CompletionTokens, "total", pass.TotalTokens, "cache read", pass.CachedTokens)
	// Output:
	// the request: prompt 3900 completion 40 total 157590 cache read 3000
	// the compaction ( true ): prompt 151150 completion 2500 total 153650 cache read 151000
}
