package session_test

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/session"
	"github.com/contextkit/compact/session/store"
	"github.com/contextkit/compact/tokens"
)

// conversation is a long exchange, enough to cross a small window.
func conversation(n int) []compact.Message {
	msgs := []compact.Message{{Role: compact.RoleSystem, Content: "You are a coding agent."}}
	for i := 1; i < n; i++ {
		role := compact.RoleUser
		if i%2 == 0 {
			role = compact.RoleAssistant
		}
		msgs = append(msgs, compact.Message{Role: role,
			Content: fmt.Sprintf("turn %d: %s", i, strings.Repeat("more detail ", 12))})
	}
	return msgs
}

// smallEngine is a Compressor with a small window, so the examples compact
// after a few dozen messages.
func smallEngine() *compact.Compressor {
	return compact.New(compact.WithContextWindow(4000), compact.WithThresholdBounds(0, 0),
		compact.WithTokenCounter(tokens.Estimator{}))
}

func ExampleOpen() {
	ctx := context.Background()
	st := store.NewMemory()
	s, err := session.Open(ctx, "agent-7", smallEngine(), session.WithStore(st))
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := s.Append(ctx, conversation(200)...); err != nil {
		fmt.Println(err)
		return
	}

	// Before every model request:
	if s.ShouldCompress() {
		if _, err := s.Compress(ctx); err != nil {
			fmt.Println(err) // the history is untouched; carry on
		}
	}
	fmt.Println("id:", s.ID())
	fmt.Println("fewer messages:", s.Len() < 200)
	comps, _ := st.Compactions(ctx, s.ID())
	c := comps[0]
	fmt.Printf("compaction %d took in records %d-%d; its summary stands for %d-%d\n",
		c.N, c.From, c.Through, c.FoldedFrom, c.FoldedThrough)
	before, _ := st.Snapshot(ctx, store.SnapshotID(s.ID(), 1))
	fmt.Println("snapshot before it:", len(before), "messages")

	// A process that restarts opens the session where the last one left
	// off: the history is there before the first Append.
	again, err := session.Open(ctx, "agent-7", smallEngine(), session.WithStore(st))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("reopened with", again.Len(), "messages, as before:", again.Len() == s.Len())
	// Output:
	// id: agent-7
	// fewer messages: true
	// compaction 1 took in records 1-200; its summary stands for 4-190
	// snapshot before it: 200 messages
	// reopened with 14 messages, as before: true
}

// A message that arrives while a compaction runs lands after the compacted
// history, verbatim.
func ExampleSession_Compress() {
	ctx := context.Background()
	summarizing, release := make(chan struct{}), make(chan struct{})
	slow := compact.SummarizerFunc(func(ctx context.Context, req compact.SummaryRequest) (string, error) {
		close(summarizing)
		<-release
		return "The agent and the user went through 198 turns of detail.", nil
	})
	engine := compact.New(compact.WithContextWindow(4000), compact.WithThresholdBounds(0, 0),
		compact.WithTokenCounter(tokens.Estimator{}), compact.WithSummarizer(slow))
	s, _ := session.Open(ctx, "agent-7", engine)
	_ = s.Append(ctx, conversation(200)...) // without a store, Append never fails

	done := make(chan error)
	go func() {
		_, err := s.Compress(ctx)
		done <- err
	}()
	<-summarizing
	_ = s.Append(ctx, compact.Message{Role: compact.RoleAssistant, Content: "Done: all tests pass."})
	close(release)
	if err := <-done; err != nil {
		fmt.Println(err)
		return
	}
	msgs := s.Messages()
	fmt.Println(msgs[len(msgs)-1].Content)
	// Output:
	// Done: all tests pass.
}

func ExampleNewManager() {
	ctx := context.Background()
	m := session.NewManager(func(id string) compact.ContextEngine { return smallEngine() },
		session.WithStore(store.NewMemory()))
	defer m.Close(ctx)

	for _, id := range []string{"planner", "coder", "reviewer"} {
		s, err := m.Get(ctx, id)
		if err != nil {
			fmt.Println(err)
			return
		}
		if err := s.Append(ctx, conversation(120)...); err != nil {
			fmt.Println(err)
			return
		}
	}
	coder, _ := m.Get(ctx, "coder") // the same session, not a new one
	if coder.ShouldCompress() {
		if _, err := coder.Compress(ctx); err != nil {
			fmt.Println(err)
		}
	}
	planner, _ := m.Get(ctx, "planner")
	fmt.Println(m.Sessions())
	fmt.Println("coder compacted:", coder.Len() < 120, "planner untouched:", planner.Len() == 120)

	_, err := m.Get(ctx, "coder~snapshot-1")
	fmt.Println(errors.Is(err, session.ErrInvalidID))
	// Output:
	// [coder planner reviewer]
	// coder compacted: true planner untouched: true
	// true
}
