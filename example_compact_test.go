package compact_test

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/internal/msgtest"
	openai "github.com/sashabaranov/go-openai"
)

// agentHistory is a coding agent's conversation: rounds runs of failing
// tests (see msgtest.FailingTests).
var agentHistory = msgtest.FailingTests

func roles(msgs []compact.Message) string {
	var b strings.Builder
	for _, m := range msgs {
		b.WriteByte(m.Role[0])
	}
	return b.String()
}

// A Compressor folds the middle of a history into one summary and keeps the
// system prompt, the latest user message and the recent tail verbatim.
func ExampleCompressor_Compress() {
	c := compact.New(compact.WithContextWindow(4_000), compact.WithPruning(false))
	msgs := agentHistory(12)
	res, err := c.Compress(context.Background(), msgs, compact.Force())
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("before:", roles(msgs))
	fmt.Println("after: ", roles(res.Messages))
	fmt.Println("summarised input messages", res.SummarizedFrom, "to", res.SummarizedTo)
	fmt.Println("summary at", res.SummaryIndex, "by", res.Summarizer)
	// The history opens on a user turn: the summary is merged in front of
	// the latest user message, which follows it verbatim.
	m := res.Messages[res.SummaryIndex]
	fmt.Println("a summary and a real user turn:", compact.IsSummary(m), compact.IsRealUser(m))
	fmt.Println("ending with the latest user message:", strings.HasSuffix(m.Content, "\n\nMake the store tests pass."))
	fmt.Println("valid:", compact.Validate(res.Messages) == nil)
	// Output:
	// before: suatatatatatatatatatatatata
	// after:  suatata
	// summarised input messages 1 to 21
	// summary at 1 by extractive
	// a summary and a real user turn: true true
	// ending with the latest user message: true
	// valid: true
}

// Before each request a host asks whether to compact; after each response
// it reports the provider's usage, which keeps the trigger exact.
func ExampleCompressor_ShouldCompress() {
	c := compact.New(compact.WithContextWindow(8_000))
	fmt.Println("threshold:", c.Status().Threshold)
	fmt.Println("at 1,000 tokens:", c.ShouldCompress(1_000))
	fmt.Println("at 5,000 tokens:", c.ShouldCompress(5_000))

	c.UpdateUsage(compact.UsageFrom(openai.Usage{PromptTokens: 2_250, CompletionTokens: 100, TotalTokens: 2_350}))
	st := c.Status()
	fmt.Printf("last prompt %d tokens, %.0f%% of the threshold, %.1f%% of the window\n", st.LastPromptTokens, st.ThresholdPercent, st.UsagePercent)
	fmt.Printf("completion %d, total %d\n", st.LastCompletionTokens, st.LastTotalTokens)
	// Output:
	// threshold: 4500
	// at 1,000 tokens: false
	// at 5,000 tokens: true
	// last prompt 2250 tokens, 50% of the threshold, 28.1% of the window
	// completion 100, total 2350
}

// Preflight counts the history with the message about to be sent; the
// compaction then keeps that message out of the summary and puts it last.
func ExampleCompressor_Preflight() {
	c := compact.New(compact.WithContextWindow(4_000), compact.WithPruning(false))
	msgs := agentHistory(12)
	next := compact.Message{Role: compact.RoleUser, Content: "Also check the cache package."}
	if p := c.Preflight(msgs, compact.WithIncoming(next)); p.Compress {
		res, err := c.Compress(context.Background(), msgs, compact.WithIncoming(next))
		if err != nil {
			fmt.Println(err)
			return
		}
		msgs = res.Messages
	}
	fmt.Println(msgs[len(msgs)-1].Content)
	// Output: Also check the cache package.
}

// Validate names the first broken rule and where it is.
func ExampleValidate() {
	msgs := []compact.Message{
		{Role: compact.RoleUser, Content: "hi"},
		{Role: compact.RoleTool, ToolCallID: "call_3", Content: "orphan"},
	}
	err := compact.Validate(msgs)
	fmt.Println(err)
	fmt.Println(errors.Is(err, compact.ErrInvalidHistory))
	var ve *compact.ValidationError
	if errors.As(err, &ve) {
		fmt.Println(ve.Index, ve.Rule)
	}
	// Output:
	// message 1: tool result "call_3" answers no earlier unanswered call
	// true
	// 1 tool result without a call
}

// RepairToolPairs drops a result that answers nothing and removes a call
// that was never answered, saying what it did.
func ExampleRepairToolPairs() {
	call := openai.ToolCall{ID: "c1", Type: openai.ToolTypeFunction, Function: openai.FunctionCall{Name: "bash"}}
	msgs := []compact.Message{
		{Role: compact.RoleUser, Content: "run it"},
		{Role: compact.RoleAssistant, Content: "Running.", ToolCalls: []openai.ToolCall{call}},
		{Role: compact.RoleUser, Content: "never mind"},
		{Role: compact.RoleTool, ToolCallID: "c1", Content: "late result"},
	}
	fixed, repairs := compact.RepairToolPairs(msgs)
	for _, r := range repairs {
		fmt.Println(r.Index, r.Kind)
	}
	fmt.Println(roles(fixed), compact.Validate(fixed) == nil)
	// Output:
	// 1 removed unanswered tool call
	// 3 dropped orphan tool result
	// uau true
}

// Join concatenates slices; where two user turns meet, it merges them
// rather than send two in a row.
func ExampleJoin() {
	head := []compact.Message{{Role: compact.RoleUser, Content: "First part."}}
	tail := []compact.Message{{Role: compact.RoleUser, Content: "Second part."}, {Role: compact.RoleAssistant, Content: "Got both."}}
	joined := compact.Join(head, tail)
	fmt.Println(roles(joined))
	fmt.Printf("%q\n", joined[0].Content)
	// Output:
	// ua
	// "First part.\n\nSecond part."
}

// A summary carries one prefix however often it is re-prefixed, and is never
// taken for a real user turn.
func ExamplePrefixSummary() {
	s := compact.PrefixSummary(compact.PrefixSummary("The tests pass."))
	fmt.Println(strings.Count(s, compact.SummaryPrefix))
	m := compact.Message{Role: compact.RoleUser, Content: s}
	fmt.Println(compact.IsSummary(m), compact.IsRealUser(m))
	fmt.Printf("%q\n", strings.TrimSpace(strings.TrimPrefix(s, compact.SummaryPrefix)))
	// Output:
	// 1
	// true false
	// "The tests pass."
}

// Text reads any content shape; images keep their URL, inline data only its
// type and size.
func ExampleText() {
	m := compact.Message{Role: compact.RoleUser, MultiContent: []openai.ChatMessagePart{
		{Type: openai.ChatMessagePartTypeText, Text: "What does this show?"},
		{Type: openai.ChatMessagePartTypeImageURL, ImageURL: &openai.ChatMessageImageURL{URL: "https://example.com/chart.png"}},
		{Type: openai.ChatMessagePartTypeImageURL, ImageURL: &openai.ChatMessageImageURL{URL: "data:image/png;base64,iVBORw0KGgo="}},
	}}
	fmt.Println(compact.Text(m))
	// Output:
	// What does this show?
	// [image: https://example.com/chart.png]
	// [image: image/png, 34 bytes inline]
}

// SummarizerFunc turns a function into a Summarizer.
func ExampleSummarizerFunc() {
	s := compact.SummarizerFunc(func(ctx context.Context, req compact.SummaryRequest) (string, error) {
		return fmt.Sprintf("%d turns folded.", len(req.Turns)), ctx.Err()
	})
	c := compact.New(compact.WithContextWindow(4_000), compact.WithSummarizer(s), compact.WithPruning(false))
	res, err := c.Compress(context.Background(), agentHistory(12), compact.Force())
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Summary)
	// Output: 21 turns folded.
}

// A host that compacts ahead of time, while the history is still under
// the threshold, passes Early: an ordinary call would leave it as it is.
func ExampleEarly() {
	c := compact.New(compact.WithContextWindow(12_000), compact.WithPruning(false))
	msgs := agentHistory(12)
	res, _ := c.Compress(context.Background(), msgs)
	fmt.Println("ordinary:", res.Skipped)
	res, err := c.Compress(context.Background(), msgs, compact.Early())
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("early:   ", roles(res.Messages))
	// Output:
	// ordinary: under the threshold (6119 of 6750 tokens)
	// early:    suatata
}

// An engine of another kind reads its per-call options with
// ApplyCompressOptions.
func ExampleApplyCompressOptions() {
	o := compact.ApplyCompressOptions(compact.Force(), compact.WithFocus("the store fixture"), compact.WithSessionID("agent-7"))
	fmt.Println(o.Force, o.Focus, o.SessionID)
	// Output: true the store fixture agent-7
}
