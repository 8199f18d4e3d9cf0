package session_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/session"
)

// compacted opens session id on store with opts, appends buildLog and
// compacts it once.
func compacted(store session.Store, id string, opts ...session.Option) (*session.Session, error) {
	ctx := context.Background()
	s, err := session.Open(ctx, id, smallEngine(), append([]session.Option{session.WithStore(store), session.WithRecall(true)}, opts...)...)
	if err != nil {
		return nil, err
	}
	if err := s.Append(ctx, buildLog()...); err != nil {
		return nil, err
	}
	_, err = s.Compress(ctx)
	return s, err
}

// A user asked to be forgotten: Delete removes the session from the store,
// and a process still holding it learns so on its next call.
func ExampleDelete() {
	ctx := context.Background()
	store := session.NewMemoryStore()
	elsewhere, err := compacted(store, "user-42")
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := session.Delete(ctx, store, "user-42"); err != nil {
		fmt.Println(err)
		return
	}
	err = elsewhere.Append(ctx, compact.Message{Role: compact.RoleUser, Content: "Are you still there?"})
	fmt.Println(errors.Is(err, session.ErrDeleted))
	_, err = session.Open(ctx, "user-42", nil, session.WithStore(store))
	fmt.Println(errors.Is(err, session.ErrDeleted))
	// Output:
	// true
	// true
}

// A host that keeps its sessions in a Manager deletes one through it.
func ExampleManager_Delete() {
	ctx := context.Background()
	m := session.NewManager(nil, session.WithStore(session.NewMemoryStore()))
	s, _ := m.Get(ctx, "user-7")
	_ = s.Append(ctx, compact.Message{Role: compact.RoleUser, Content: "Forget me."})
	if err := m.Delete(ctx, "user-7"); err != nil {
		fmt.Println(err)
		return
	}
	_, err := m.Get(ctx, "user-7")
	fmt.Println(m.Sessions(), errors.Is(err, session.ErrDeleted))
	// Output:
	// [] true
}

// A Session deletes itself: it closes, then goes from its store.
func ExampleSession_Delete() {
	ctx := context.Background()
	store := session.NewMemoryStore()
	s, _ := session.Open(ctx, "user-9", nil, session.WithStore(store))
	_ = s.Append(ctx, compact.Message{Role: compact.RoleUser, Content: "Forget me."})
	fmt.Println(s.Delete(ctx))
	_, err := store.Read(ctx, "user-9", 1, 0)
	fmt.Println(errors.Is(err, session.ErrDeleted))
	// Output:
	// <nil>
	// true
}

// Retention deletes the archived records a compaction folded once they are
// older than an age; the live history is untouched, and recall says what
// expired.
func ExampleMemoryStore_Expire() {
	ctx := context.Background()
	store := session.NewMemoryStore()
	s, err := compacted(store, "agent-7")
	if err != nil {
		fmt.Println(err)
		return
	}
	before := len(s.Messages())
	time.Sleep(2 * time.Millisecond)
	got, err := store.Expire(ctx, session.Retention{Folded: time.Millisecond, Idle: 90 * 24 * time.Hour})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("expired %d records, %d sessions; live history: %d messages, was %d\n", got.Records, got.Sessions, len(s.Messages()), before)
	for _, t := range s.Tools() {
		if t.Definition.Function.Name == session.ToolExpand {
			out, _ := t.Handle(ctx, `{"from":10,"to":12}`)
			fmt.Println(string(out))
		}
	}
	// Output:
	// expired 70 records, 0 sessions; live history: 14 messages, was 14
	// {"messages":[],"expired":[[10,12]],"note":"the messages with the seqs in expired were deleted by the store's retention policy after a compaction folded them: the summary is all that is left of them"}
}

// MemoryStore.Delete deletes a session whole unless a lease on it is held.
func ExampleMemoryStore_Delete() {
	ctx := context.Background()
	store := session.NewMemoryStore()
	lease, _ := store.Acquire(ctx, "agent-7", time.Minute)
	err := store.Delete(ctx, "agent-7")
	fmt.Println(errors.Is(err, session.ErrBusy))
	_ = store.Release(ctx, "agent-7", lease)
	fmt.Println(store.Delete(ctx, "agent-7"))
	_, _, err = store.Append(ctx, "agent-7", compact.Message{Role: compact.RoleUser, Content: "hi"})
	fmt.Println(errors.Is(err, session.ErrDeleted))
	// Output:
	// true
	// <nil>
	// true
}

// Rewrite replaces folded records only: the live history stays verbatim.
func ExampleMemoryStore_Rewrite() {
	ctx := context.Background()
	store := session.NewMemoryStore()
	if _, err := compacted(store, "agent-7"); err != nil {
		fmt.Println(err)
		return
	}
	clean := compact.Message{Role: compact.RoleTool, ToolCallID: "call_2", Content: "(redacted)"}
	fmt.Println(store.Rewrite(ctx, "agent-7", []session.Record{{Seq: 6, Message: clean}}))
	err := store.Rewrite(ctx, "agent-7", []session.Record{{Seq: 82, Message: clean}})
	fmt.Println(errors.Is(err, session.ErrInvalidRange))
	recs, _ := store.Read(ctx, "agent-7", 6, 6)
	fmt.Println(recs[0].Message.Content)
	// Output:
	// <nil>
	// true
	// (redacted)
}

// With WithRedactAtRest, what a compaction folds is redacted on disk; the
// live history keeps its messages verbatim for the model.
func ExampleWithRedactAtRest() {
	ctx := context.Background()
	store := session.NewMemoryStore()
	s, _ := session.Open(ctx, "deploy-1", smallEngine(), session.WithStore(store), session.WithRedactAtRest(true))
	msgs := buildLog()
	msgs[5].Content = "export GITHUB_TOKEN=ghp_x7Kq2mZ9pL4vN8rT1wY6bC3dF5gH0jA2sE4u\n" + msgs[5].Content
	_ = s.Append(ctx, msgs...)
	if _, err := s.Compress(ctx); err != nil {
		fmt.Println(err)
		return
	}
	recs, _ := store.Read(ctx, "deploy-1", 6, 6)
	fmt.Println(strings.SplitN(recs[0].Message.Content, "\n", 2)[0])
	last := s.Messages()[len(s.Messages())-1]
	fmt.Println(last.Content)
	// Output:
	// export GITHUB_TOKEN=ghp_[REDACTED]
	// Which test failed first?
}

// RedactMessage removes secrets from a message's text and its tool calls'
// arguments, which stay valid JSON.
func ExampleRedactMessage() {
	m := compact.Message{Role: compact.RoleAssistant, Content: "Using Authorization: Bearer sk-live-0123456789abcdef0123",
		ToolCalls: []openai.ToolCall{{ID: "c1", Type: openai.ToolTypeFunction,
			Function: openai.FunctionCall{Name: "bash", Arguments: `{"command":"curl -u admin:hunter2hunter2 https://ci.internal/api"}`}}}}
	r := session.RedactMessage(m)
	fmt.Println(r.Content)
	fmt.Println(r.ToolCalls[0].Function.Arguments)
	// Output:
	// Using Authorization: Bearer [REDACTED]
	// {"command":"curl -u admin:[REDACTED] https://ci.internal/api"}
}

// RedactFolded redacts an archive written before redaction at rest was on.
func ExampleRedactFolded() {
	ctx := context.Background()
	store := session.NewMemoryStore()
	s, _ := session.Open(ctx, "deploy-2", smallEngine(), session.WithStore(store))
	msgs := buildLog()
	msgs[5].Content = "password=hunter2hunter2\n" + msgs[5].Content
	_ = s.Append(ctx, msgs...)
	if _, err := s.Compress(ctx); err != nil {
		fmt.Println(err)
		return
	}
	n, err := session.RedactFolded(ctx, store, "deploy-2")
	fmt.Println(n, err)
	recs, _ := store.Read(ctx, "deploy-2", 6, 6)
	fmt.Println(strings.SplitN(recs[0].Message.Content, "\n", 2)[0])
	// Output:
	// 1 <nil>
	// password=[REDACTED]
}
