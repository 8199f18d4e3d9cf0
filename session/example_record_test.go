package session_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/session"
)

func ExampleSession_RecordCompaction() {
	ctx := context.Background()
	s, err := session.Open(ctx, "agent-9", smallEngine(), session.WithRecall(true))
	if err != nil {
		fmt.Println(err)
		return
	}
	_ = s.Append(ctx,
		compact.Message{Role: compact.RoleSystem, Content: "You are a coding agent."},
		compact.Message{Role: compact.RoleUser, Content: "Fix the flaky test."},
		compact.Message{Role: compact.RoleAssistant, Content: "The test waits 10ms for a lease renewal; under load that is not enough."})
	sent := s.Messages()

	// The provider compacted the request while it answered: its response
	// opens on its summary. This is what the anthropic adapter's
	// NativeEngine.Record reports for it.
	summary := compact.Message{Role: compact.RoleUser, Content: compact.PrefixSummary("The agent found a timing bug.")}
	reply := compact.Message{Role: compact.RoleAssistant, Content: "I will use a fake clock."}
	res := &compact.Result{
		Messages:       []compact.Message{sent[0], summary, reply},
		MessagesBefore: len(sent), SummaryIndex: 1, SummarizedFrom: 1, SummarizedTo: len(sent) - 1,
		Summarizer: "anthropic:compact_20260112",
	}

	// Append the response first, then record the compaction.
	_ = s.Append(ctx, summary, reply)
	if err := s.RecordCompaction(ctx, res); err != nil {
		fmt.Println(err)
		return
	}
	live := s.Messages()
	fmt.Println(len(live), "messages live; the provider's summary untouched:", live[1].Content == summary.Content)
	// The recall line goes into the system prompt, not the provider's summary.
	fmt.Println(live[0].Content[strings.LastIndex(live[0].Content, "\n")+1:][:60])

	// Every message the provider folded stays in the log.
	for _, t := range s.Tools() {
		if t.Definition.Function.Name == session.ToolSearch {
			out, _ := t.Handle(ctx, `{"query":"lease renewal"}`)
			fmt.Println(strings.Contains(string(out), `"seq":3`))
		}
	}
	// Output:
	// 3 messages live; the provider's summary untouched: true
	// [Recall: messages 2 to 3 of this conversation are archived v
	// true
}
