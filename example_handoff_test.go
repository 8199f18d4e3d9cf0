package compact_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/handoff"
	"github.com/contextkit/compact/tokens"
)

// handoffSession is a conversation of n tool rounds after a task.
func handoffSession(n int) []compact.Message {
	msgs := []compact.Message{
		{Role: compact.RoleSystem, Content: "You are a coding agent."},
		{Role: compact.RoleUser, Content: "Make the importer skip blank lines."},
	}
	for i := 0; i < n; i++ {
		id := fmt.Sprintf("c%d", i)
		msgs = append(msgs, bashCall(id, "go test ./importer"),
			toolResult(id, strings.Repeat("ok  \timporter\t0.01s\n", 40)))
	}
	return append(msgs, compact.Message{Role: compact.RoleAssistant, Content: "Blank lines are skipped now."})
}

// newHandoffExample is a Compressor with a small window, a fixed clock and
// a summarizer that always says the same thing, so the example's output is
// stable.
func newHandoffExample(p handoff.Policy) *compact.Compressor {
	summarize := compact.SummarizerFunc(func(ctx context.Context, req compact.SummaryRequest) (string, error) {
		return "The importer now skips blank lines; tests pass.", nil
	})
	return compact.New(compact.WithContextWindow(4000), compact.WithThresholdBounds(0, 0),
		compact.WithTokenCounter(tokens.Estimator{}), compact.WithSummarizer(summarize),
		compact.WithClock(func() time.Time { return time.Date(2025, 5, 6, 7, 8, 9, 0, time.UTC) }),
		compact.WithHandoff(p),
		// Each compaction here summarises: one that pruning alone achieves
		// writes no packet.
		compact.WithPruning(false))
}

// In prompt-user mode the second compaction also writes a packet, and the
// host can offer the user a fresh start from it. The compaction itself is
// the usual one.
func ExampleWithHandoff() {
	root, _ := os.MkdirTemp("", "handoff")
	defer os.RemoveAll(root)
	c := newHandoffExample(handoff.Policy{Enabled: true, Root: root, Dir: "handoffs"})

	msgs := handoffSession(20)
	for i := 1; i <= 3; i++ {
		res, err := c.Compress(context.Background(), msgs, compact.WithSessionID("sess-7"), compact.Force())
		if err != nil {
			fmt.Println(err)
			return
		}
		if res.Handoff != nil {
			fmt.Printf("compaction %d: packet %s\n", i, filepath.Base(res.Handoff.Path))
		} else {
			fmt.Printf("compaction %d: %d messages, no packet\n", i, len(res.Messages))
		}
		msgs = append(res.Messages, handoffSession(20)[1:]...)
	}
	fmt.Println(c.Status().HandoffReason)
	// Output:
	// compaction 1: 7 messages, no packet
	// compaction 2: packet handoff-sess-7-20250506T070809Z-1.md
	// compaction 3: 7 messages, no packet
	// handoff quota spent (1 of 1); compacting as usual
}

// In fresh-session mode the packet becomes the whole context of a
// continuation; Start opens it, and if Start fails the compaction is the
// usual one and the handoff is not counted.
func ExampleWithHandoff_freshSession() {
	root, _ := os.MkdirTemp("", "handoff")
	defer os.RemoveAll(root)
	c := newHandoffExample(handoff.Policy{
		Enabled: true, Root: root, Mode: handoff.FreshSession, AfterCompactions: 1,
		Start: func(ctx context.Context, h handoff.Report) (string, error) {
			return h.SessionID + "-cont", nil // a host would create and link the session here
		},
	})
	res, err := c.Compress(context.Background(), handoffSession(20), compact.WithSessionID("sess-7"))
	if err != nil {
		fmt.Println(err)
		return
	}
	h := res.Handoff
	fmt.Println("continue in:", h.ContinuationID, "linked to:", h.SessionID)
	for _, m := range h.Continuation {
		fmt.Printf("%s: %s\n", m.Role, strings.SplitN(m.Content, "\n", 2)[0])
	}
	// Output:
	// continue in: sess-7-cont linked to: sess-7
	// system: You are a coding agent.
	// user: # Handoff packet
}

// A host's "/handoff-packet [note]" writes a packet now and changes nothing.
func ExampleCompressor_ManualHandoffPacket() {
	root, _ := os.MkdirTemp("", "handoff")
	defer os.RemoveAll(root)
	c := newHandoffExample(handoff.Policy{Root: root}) // automatic handoffs off

	note, ok := handoff.ParseCommand("/handoff-packet hand over to the release bot")
	if !ok {
		return
	}
	h, err := c.ManualHandoffPacket(handoffSession(3), note, compact.WithSessionID("sess-7"))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(filepath.Base(h.Path))
	fmt.Println(strings.Contains(h.Packet, "> hand over to the release bot"))
	fmt.Println(c.Status().Compressions)
	// Output:
	// handoff-sess-7-20250506T070809Z-manual.md
	// true
	// 0
}
