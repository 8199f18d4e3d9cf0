package session_test

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/session"
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
		compact.WithTokenCounter(compact.EstimateCounter{}))
}

func ExampleNew() {
	ctx := context.Background()
	store := session.NewMemoryStore()
	s, err := session.New("agent-7", smallEngine(), session.WithStore(store))
	if err != nil {
		fmt.Println(err)
		return
	}
	s.Append(conversation(200)...)

	// Before every model request:
	if s.ShouldCompress() {
		if _, err := s.Compress(ctx); err != nil {
			fmt.Println(err) // the history is untouched; carry on
		}
	}
	fmt.Println("id:", s.ID())
	fmt.Println("fewer messages:", s.Len() < 200)
	snaps, _ := store.Snapshots(ctx, s.ID())
	fmt.Println("snapshots:", snaps)
	// Output:
	// id: agent-7
	// fewer messages: true
	// snapshots: [agent-7~snapshot-1]
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
		compact.WithTokenCounter(compact.EstimateCounter{}), compact.WithSummarizer(slow))
	s, _ := session.New("agent-7", engine)
	s.Append(conversation(200)...)

	done := make(chan error)
	go func() {
		_, err := s.Compress(ctx)
		done <- err
	}()
	<-summarizing
	s.Append(compact.Message{Role: compact.RoleAssistant, Content: "Done: all tests pass."})
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
		session.WithStore(session.NewMemoryStore()))
	defer m.Close(ctx)

	for _, id := range []string{"planner", "coder", "reviewer"} {
		s, err := m.Get(id)
		if err != nil {
			fmt.Println(err)
			return
		}
		s.Append(conversation(120)...)
	}
	coder, _ := m.Get("coder") // the same session, not a new one
	if coder.ShouldCompress() {
		if _, err := coder.Compress(ctx); err != nil {
			fmt.Println(err)
		}
	}
	planner, _ := m.Get("planner")
	fmt.Println(m.Sessions())
	fmt.Println("coder compacted:", coder.Len() < 120, "planner untouched:", planner.Len() == 120)

	_, err := m.Get("coder~snapshot-1")
	fmt.Println(errors.Is(err, session.ErrInvalidID))
	// Output:
	// [coder planner reviewer]
	// coder compacted: true planner untouched: true
	// true
}

func ExampleSnapshotID() {
	sid := session.SnapshotID("agent-7", 2)
	fmt.Println(sid)
	id, seq, ok := session.ParseSnapshotID(sid)
	fmt.Println(id, seq, ok)
	_, _, ok = session.ParseSnapshotID("agent-7")
	fmt.Println(ok)
	// Output:
	// agent-7~snapshot-2
	// agent-7 2 true
	// false
}

func ExampleNewMemoryStore() {
	ctx := context.Background()
	store := session.NewMemoryStore()
	history := []compact.Message{{Role: compact.RoleUser, Content: "hello"}}
	sid, _ := store.SaveSnapshot(ctx, "agent-7", history)
	fmt.Println(sid)

	err := store.Save(ctx, sid, history)
	fmt.Println(errors.Is(err, session.ErrInvalidID)) // a snapshot is never a live history
	saved, _ := store.Load(ctx, sid)
	fmt.Println(saved[0].Content)
	// Output:
	// agent-7~snapshot-1
	// true
	// hello
}
