package eino

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/adk/middlewares/reduction"
	"github.com/cloudwego/eino/adk/middlewares/summarization"
	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/schema"
	"github.com/stretchr/testify/require"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/internal/sharedtest"
	"github.com/contextkit/compact/tokens"
)

// This file measures the Middleware against eino's own summarization and
// reduction middlewares on one long history, the shared transcripts joined
// in file order. The README's table comes from it:
//
//	go test -run TestCompareWithEinosMiddlewares -v
//
// Every middleware sees the same history through BeforeModelRewriteState,
// as an agent's model call would. Where one calls a summarizer, the
// summarizer is the same: compact's extractive summarizer, asked for the
// length the Compressor asked for, standing in for the model (a model-backed
// summary is paid for; the extractive one is deterministic and offline).
// Sizes are counted with one tokenizer (o200k, gpt-4o) whatever each
// middleware counts with.

// compareWindow is the context window compact compacts for: a 200k-token
// model, the window eino's defaults (a 160k trigger) are set for.
const compareWindow = 200_000

// joinedHistory is the shared transcripts joined in file order with
// compact.Join, every message kept (the system prompts of the later ones
// too), calls a transcript left running repaired away before the next is
// joined on so the whole is a valid request. The first transcripts (aider's
// chats) have no system prompt, so neither has the history.
func joinedHistory(t *testing.T) []compact.Message {
	t.Helper()
	all := readTranscripts(t, sharedtest.Files(t))
	var msgs []compact.Message
	for _, name := range sortedNames(all) {
		msgs, _ = compact.RepairToolPairs(compact.Join(msgs, all[name]))
	}
	require.NoError(t, compact.Validate(msgs))
	return msgs
}

// standIn is a summarization model: compact's extractive summarizer over
// the messages it is sent, between eino's instructions (the first and last
// message), asked for target tokens. It answers with the summary and the
// <all_user_messages> block eino's prompt asks for, which eino fills in.
type standIn struct {
	target      int
	inputTokens int
	calls       int
	counter     tokens.Counter
}

func (s *standIn) Generate(ctx context.Context, input []*schema.Message, _ ...model.Option) (*schema.Message, error) {
	s.calls++
	conv, err := Convert(input)
	if err != nil {
		return nil, err
	}
	s.inputTokens = tokens.CountMessages(s.counter, conv.Messages)
	turns := conv.Messages
	if len(turns) >= 2 {
		turns = turns[1 : len(turns)-1]
	}
	sum, err := compact.NewExtractiveSummarizer(nil).Summarize(ctx, compact.SummaryRequest{Turns: turns, TargetTokens: s.target})
	if err != nil {
		return nil, err
	}
	return schema.AssistantMessage(sum+"\n\n<all_user_messages>\n</all_user_messages>", nil), nil
}

func (s *standIn) Stream(context.Context, []*schema.Message, ...model.Option) (*schema.StreamReader[*schema.Message], error) {
	return nil, fmt.Errorf("stand-in summarizer: no streaming")
}

// callCounter is a summarization model that only counts its calls, for
// finding where a trigger fires.
type callCounter struct{ calls int }

func (c *callCounter) Generate(context.Context, []*schema.Message, ...model.Option) (*schema.Message, error) {
	c.calls++
	return schema.AssistantMessage("summary", nil), nil
}

func (c *callCounter) Stream(context.Context, []*schema.Message, ...model.Option) (*schema.StreamReader[*schema.Message], error) {
	return nil, fmt.Errorf("call counter: no streaming")
}

// outcome is what one middleware did to the history.
type outcome struct {
	name         string
	estimate     int    // the middleware's own count of the history
	trigger      string // when it acts, by that count
	fired        bool
	messages     int
	tokens       int
	summarizerIn int // tokens the summarizer was sent; -1 when none is called
	kept         map[string]int
	contracts    string
}

func TestCompareWithEinosMiddlewares(t *testing.T) {
	ctx := context.Background()
	joined := joinedHistory(t)
	counter, err := tokens.ForModel("gpt-4o")
	require.NoError(t, err)
	f := findFacts(joined)
	fresh := func() []*schema.Message { // a deep copy: eino's reduction edits messages in place
		out, err := FromMessages(compact.Clone(joined))
		require.NoError(t, err)
		return out
	}
	measure := func(o *outcome, in, out []*schema.Message, reported func(i int) bool) {
		conv, err := Convert(out)
		require.NoError(t, err)
		o.messages, o.tokens = len(out), tokens.CountMessages(counter, conv.Messages)
		o.kept = keptFacts(f, conv.Messages)
		o.contracts = contractsBroken(t, in, out, reported)
	}
	inTokens := tokens.CountMessages(counter, joined)

	// compact, through the Middleware, with the extractive summarizer.
	var target, compactIn int
	engine := compact.New(compact.WithContextWindow(compareWindow), compact.WithTokenCounter(counter),
		compact.WithSummarizer(compact.SummarizerFunc(func(ctx context.Context, req compact.SummaryRequest) (string, error) {
			target = req.TargetTokens
			instructions, material := compact.SummaryPrompt(req)
			compactIn = counter.CountText(instructions) + counter.CountText(material)
			return compact.NewExtractiveSummarizer(nil).Summarize(ctx, req)
		})))
	threshold := engine.Status().Threshold
	rec := &recorder{ContextEngine: engine}
	in := fresh()
	_, st, err := NewMiddleware(rec).BeforeModelRewriteState(ctx, &adk.ChatModelAgentState{Messages: in}, &adk.ModelContext{})
	require.NoError(t, err)
	ours := outcome{name: "compact (this package)", estimate: inTokens, trigger: fmt.Sprintf("over %d", threshold),
		fired: rec.last != nil && rec.last.Skipped == "", summarizerIn: compactIn}
	require.True(t, ours.fired, "a %d-token history is over compact's %d-token threshold", inTokens, threshold)
	requireContracts(t, in, st.Messages, rec.last)
	pruned := map[int]bool{}
	for _, p := range rec.last.Pruned {
		pruned[p.Index] = true
	}
	measure(&ours, in, st.Messages, func(i int) bool {
		return i >= rec.last.SummarizedFrom && i <= rec.last.SummarizedTo || pruned[i]
	})

	// eino's summarization with its defaults.
	summarize := func(trigger *summarization.TriggerCondition) (*standIn, []*schema.Message, []*schema.Message) {
		model := &standIn{target: target, counter: counter}
		mw, err := summarization.New(ctx, &summarization.Config{Model: model, Trigger: trigger})
		require.NoError(t, err)
		in := fresh()
		_, st, err := mw.BeforeModelRewriteState(ctx, &adk.ChatModelAgentState{Messages: in}, &adk.ModelContext{})
		require.NoError(t, err)
		return model, in, st.Messages
	}
	model, in, out := summarize(nil)
	summary := outcome{name: "eino summarization", trigger: "over 160000", fired: model.calls > 0, summarizerIn: -1,
		estimate: 1 + highestFiring(func(x int) bool {
			model := &callCounter{}
			mw, err := summarization.New(ctx, &summarization.Config{Model: model,
				Trigger: &summarization.TriggerCondition{ContextTokens: x}})
			require.NoError(t, err)
			_, _, err = mw.BeforeModelRewriteState(ctx, &adk.ChatModelAgentState{Messages: in}, &adk.ModelContext{})
			require.NoError(t, err)
			return model.calls > 0
		})}
	if summary.fired {
		summary.summarizerIn = model.inputTokens
		lead := 0
		for lead < len(joined) && joined[lead].Role == compact.RoleSystem {
			lead++
		}
		require.Len(t, out, lead+1, "eino's summary replaces every message after the leading system messages")
		require.Equal(t, encode(t, in[:lead]), encode(t, out[:lead]))
	}
	measure(&summary, in, out, nil)

	// eino's reduction, clearing old tool results, with its defaults.
	clear := func(max int64) (bool, []*schema.Message, []*schema.Message) {
		mw, err := reduction.New(ctx, &reduction.Config{SkipTruncation: true, MaxTokensForClear: max})
		require.NoError(t, err)
		in := fresh()
		_, st, err := mw.BeforeModelRewriteState(ctx, &adk.ChatModelAgentState{Messages: in}, &adk.ModelContext{})
		require.NoError(t, err)
		cleared := false
		for _, m := range st.Messages {
			cleared = cleared || (m.Role == schema.Tool && strings.Contains(m.Content, "Old tool result content cleared"))
		}
		return cleared, fresh(), st.Messages
	}
	fired, in, out := clear(0)
	reduced := outcome{name: "eino reduction (clearing)", trigger: "at 160000", fired: fired, summarizerIn: -1,
		estimate: highestFiring(func(x int) bool {
			fired, _, _ := clear(int64(x))
			return fired
		})}
	measure(&reduced, in, out, nil)

	t.Logf("history: the %d shared transcripts joined, %d messages, %d tokens (o200k); window %d",
		len(sharedtest.Files(t)), len(joined), inTokens, compareWindow)
	var b strings.Builder
	b.WriteString("\n| middleware | its count of the history | acts when | acted | messages out | tokens out | summarizer input | " +
		strings.Join(factKinds, " | ") + " | contracts |\n")
	b.WriteString("|---|---|---|---|---|---|---|" + strings.Repeat("---|", len(factKinds)) + "---|\n")
	for _, o := range []outcome{ours, summary, reduced} {
		sumIn := "none"
		if o.summarizerIn >= 0 {
			sumIn = fmt.Sprintf("%d", o.summarizerIn)
		}
		fmt.Fprintf(&b, "| %s | %d | %s | %v | %d | %d | %s |", o.name, o.estimate, o.trigger, o.fired, o.messages, o.tokens, sumIn)
		for _, k := range factKinds {
			fmt.Fprintf(&b, " %d/%d |", o.kept[k], len(f[k]))
		}
		fmt.Fprintf(&b, " %s |\n", o.contracts)
	}
	t.Log(b.String())
}

// highestFiring returns the highest x in [0, 1<<20) for which fires(x)
// holds, fires being true up to a point and false past it. A million tokens
// is over any count of the history.
func highestFiring(fires func(x int) bool) int {
	lo, hi := 0, 1<<20
	for lo+1 < hi {
		mid := (lo + hi) / 2
		if fires(mid) {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo
}

// contractsBroken names the contracts of DESIGN.md that out, a middleware's
// rewrite of in, breaks: a valid request, the system prompt kept, the last
// message and the latest user message verbatim, and nothing gone silently
// (every input message in the output verbatim or one reported says is
// summarised or pruned; reported is nil for a middleware that reports
// nothing). "all kept" when it breaks none.
func contractsBroken(t *testing.T, in, out []*schema.Message, reported func(i int) bool) string {
	t.Helper()
	var broken []string
	outs, seen := map[string]bool{}, map[string]bool{}
	for _, m := range out {
		outs[encode(t, []*schema.Message{m})] = true
		seen[jsonOf(t, mustView(t, m))] = true
	}
	silent := 0 // messages whose content the model no longer sees, unreported
	for i, m := range in {
		if !seen[jsonOf(t, mustView(t, m))] && (reported == nil || !reported(i)) {
			silent++
		}
	}
	if silent > 0 {
		broken = append(broken, fmt.Sprintf("%d of %d messages replaced or rewritten with no report of which", silent, len(in)))
	}
	if err := Validate(out); err != nil {
		broken = append(broken, "invalid request: "+err.Error())
	}
	if in[0].Role == schema.System && out[0].Role != schema.System {
		broken = append(broken, "system prompt changed")
	}
	if encode(t, in[len(in)-1:]) != encode(t, out[len(out)-1:]) {
		broken = append(broken, "last message rewritten")
	}
	conv := mustConvert(t, in)
	for i := len(conv) - 1; i >= 0; i-- {
		if !compact.IsRealUser(conv[i]) {
			continue
		}
		if !outs[encode(t, in[i:i+1])] {
			broken = append(broken, "latest user message not verbatim")
		}
		break
	}
	if len(broken) == 0 {
		return "all kept"
	}
	return strings.Join(broken, "; ")
}

func jsonOf(t *testing.T, v any) string {
	t.Helper()
	data, err := json.Marshal(v)
	require.NoError(t, err)
	return string(data)
}
