package store_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/session/store"
)

// archived gives session id of st ten records and a compaction folding
// the first eight.
func archived(ctx context.Context, st store.Store, id string) error {
	msgs := make([]compact.Message, 10)
	for i := range msgs {
		msgs[i] = compact.Message{Role: compact.RoleUser, Content: fmt.Sprintf("message %d", i+1)}
	}
	if _, _, err := st.Append(ctx, id, msgs...); err != nil {
		return err
	}
	_, err := st.Commit(ctx, id, store.Compaction{N: 1, Through: 9, FoldedFrom: 1, FoldedThrough: 8,
		Live: []compact.Message{{Role: compact.RoleUser, Content: "Summary of messages 1-8."}, msgs[8]}}, store.Lease{})
	return err
}

// Delete deletes a session whole unless a lease on it is held; its id
// stays taken.
func ExampleMemory_Delete() {
	ctx := context.Background()
	st := store.NewMemory()
	lease, _ := st.Acquire(ctx, "agent-7", time.Minute)
	err := st.Delete(ctx, "agent-7")
	fmt.Println(errors.Is(err, store.ErrBusy))
	_ = st.Release(ctx, "agent-7", lease)
	fmt.Println(st.Delete(ctx, "agent-7"))
	_, _, err = st.Append(ctx, "agent-7", compact.Message{Role: compact.RoleUser, Content: "hi"})
	fmt.Println(errors.Is(err, store.ErrDeleted))
	// Output:
	// true
	// <nil>
	// true
}

// Expire deletes the folded records older than an age, by the store's
// clock; the live history is untouched.
func ExampleMemory_Expire() {
	ctx := context.Background()
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	st := store.NewMemoryClock(func() time.Time { return now })
	if err := archived(ctx, st, "agent-7"); err != nil {
		fmt.Println(err)
		return
	}
	now = now.Add(31 * 24 * time.Hour)
	got, err := st.Expire(ctx, store.Retention{Folded: 30 * 24 * time.Hour})
	fmt.Printf("%+v %v\n", got, err)
	recs, _ := st.Read(ctx, "agent-7", 1, 0)
	live, _, _, _ := st.Live(ctx, "agent-7")
	fmt.Println(len(recs), "records left;", len(live), "live messages")
	_, err = st.Snapshot(ctx, store.SnapshotID("agent-7", 1))
	fmt.Println(errors.Is(err, store.ErrExpired))
	// Output:
	// {Records:8 Sessions:0} <nil>
	// 2 records left; 3 live messages
	// true
}

// Rewrite replaces folded records only: the live history stays verbatim.
func ExampleMemory_Rewrite() {
	ctx := context.Background()
	st := store.NewMemory()
	if err := archived(ctx, st, "agent-7"); err != nil {
		fmt.Println(err)
		return
	}
	clean := compact.Message{Role: compact.RoleUser, Content: "message 3 [REDACTED]"}
	fmt.Println(st.Rewrite(ctx, "agent-7", []store.Record{{Seq: 3, Message: clean}}))
	err := st.Rewrite(ctx, "agent-7", []store.Record{{Seq: 10, Message: clean}})
	fmt.Println(errors.Is(err, store.ErrInvalidRange))
	recs, _ := st.Read(ctx, "agent-7", 3, 3)
	fmt.Println(recs[0].Message.Content)
	// Output:
	// <nil>
	// true
	// message 3 [REDACTED]
}

// Delete deletes a session a user asked to be forgotten, waiting while
// another process compacts it; that process's next call fails.
func ExampleDelete() {
	ctx := context.Background()
	st := store.NewMemory()
	if err := archived(ctx, st, "user-42"); err != nil {
		fmt.Println(err)
		return
	}
	lease, _ := st.Acquire(ctx, "user-42", 50*time.Millisecond) // a compaction elsewhere
	fmt.Println(store.Delete(ctx, st, "user-42"))
	_, err := st.Commit(ctx, "user-42", store.Compaction{N: 2, Through: 10}, lease)
	fmt.Println(errors.Is(err, store.ErrDeleted))
	// Output:
	// <nil>
	// true
}

// RedactMessage removes secrets from a message's text and its tool calls'
// arguments, which stay valid JSON.
func ExampleRedactMessage() {
	m := compact.Message{Role: compact.RoleAssistant, Content: "Using Authorization: Bearer sk-live-0123456789abcdef0123",
		ToolCalls: []openai.ToolCall{{ID: "c1", Type: openai.ToolTypeFunction,
			Function: openai.FunctionCall{Name: "bash", Arguments: `{"command":"curl -u admin:hunter2hunter2 https://ci.internal/api"}`}}}}
	r := store.RedactMessage(m)
	fmt.Println(r.Content)
	fmt.Println(r.ToolCalls[0].Function.Arguments)
	// Output:
	// Using Authorization: Bearer [REDACTED]
	// {"command":"curl -u admin:[REDACTED] https://ci.internal/api"}
}

// RedactFolded redacts an archive written before redaction at rest was on;
// a second run has nothing left to change.
func ExampleRedactFolded() {
	ctx := context.Background()
	st := store.NewMemory()
	if err := archived(ctx, st, "deploy-2"); err != nil {
		fmt.Println(err)
		return
	}
	secret := compact.Message{Role: compact.RoleUser, Content: "password=hunter2hunter2"}
	_ = st.Rewrite(ctx, "deploy-2", []store.Record{{Seq: 4, Message: secret}}) // as written before
	fmt.Println(store.RedactFolded(ctx, st, "deploy-2"))
	fmt.Println(store.RedactFolded(ctx, st, "deploy-2"))
	recs, _ := st.Read(ctx, "deploy-2", 4, 4)
	fmt.Println(recs[0].Message.Content)
	// Output:
	// 1 <nil>
	// 0 <nil>
	// password=[REDACTED]
}

// RedactRange redacts the records one compaction folded, as a Session with
// redaction at rest does when the compaction commits.
func ExampleRedactRange() {
	ctx := context.Background()
	st := store.NewMemory()
	if err := archived(ctx, st, "deploy-3"); err != nil {
		fmt.Println(err)
		return
	}
	secret := compact.Message{Role: compact.RoleUser, Content: "export AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"}
	_ = st.Rewrite(ctx, "deploy-3", []store.Record{{Seq: 2, Message: secret}})
	fmt.Println(store.RedactRange(ctx, st, "deploy-3", 1, 8))
	recs, _ := st.Read(ctx, "deploy-3", 2, 2)
	fmt.Println(recs[0].Message.Content)
	// Output:
	// 1 <nil>
	// export AWS_SECRET_ACCESS_KEY=[REDACTED]
}
