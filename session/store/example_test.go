package store_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/session/store"
	openai "github.com/sashabaranov/go-openai"
)

func ExampleSnapshotID() {
	sid := store.SnapshotID("agent-7", 2)
	fmt.Println(sid)
	id, seq, ok := store.ParseSnapshotID(sid)
	fmt.Println(id, seq, ok)
	_, _, ok = store.ParseSnapshotID("agent-7")
	fmt.Println(ok)
	// Output:
	// agent-7~snapshot-2
	// agent-7 2 true
	// false
}

func ExampleNewMemory() {
	ctx := context.Background()
	st := store.NewMemory()
	last, _, _ := st.Append(ctx, "agent-7",
		compact.Message{Role: compact.RoleUser, Content: "hello"},
		compact.Message{Role: compact.RoleAssistant, Content: "hi"})
	fmt.Println("last record:", last)

	// A compaction replaces the live history; the log keeps every message.
	_, _ = st.Commit(ctx, "agent-7", store.Compaction{N: 1, Through: last,
		Live: []compact.Message{{Role: compact.RoleUser, Content: "[summary] greetings"}}}, store.Lease{})
	_, _, _ = st.Append(ctx, "agent-7", compact.Message{Role: compact.RoleUser, Content: "next"})
	live, through, n, _ := st.Live(ctx, "agent-7")
	fmt.Println(len(live), "live messages through record", through, "after compaction", n)
	recs, _ := st.Read(ctx, "agent-7", 1, 0)
	fmt.Println(len(recs), "records, the first:", recs[0].Message.Content)
	before, _ := st.Snapshot(ctx, store.SnapshotID("agent-7", 1))
	fmt.Println("before compaction 1:", len(before), "messages")
	// Output:
	// last record: 2
	// 2 live messages through record 3 after compaction 1
	// 3 records, the first: hello
	// before compaction 1: 2 messages
}

func ExampleSearchText() {
	m := compact.Message{Role: compact.RoleAssistant, ToolCalls: []openai.ToolCall{{
		ID: "c1", Type: openai.ToolTypeFunction,
		Function: openai.FunctionCall{Name: "bash", Arguments: `{"command":"grep -n \"retry budget\" *.go","timeout":30}`},
	}}}
	// The call as the model wrote it, then the command as it ran.
	fmt.Println(store.SearchText(m))
	// Output:
	// bash({"command":"grep -n \"retry budget\" *.go","timeout":30})
	// grep -n "retry budget" *.go
}

func ExampleCheckID() {
	fmt.Println(store.CheckID("agent-7"))
	fmt.Println(errors.Is(store.CheckID(store.SnapshotID("agent-7", 1)), store.ErrInvalidID))
	fmt.Println(errors.Is(store.CheckID(""), store.ErrInvalidID))
	// Output:
	// <nil>
	// true
	// true
}

func ExampleCheckRange() {
	fmt.Println(store.CheckRange(1, 0)) // from the first through the last
	fmt.Println(errors.Is(store.CheckRange(5, 3), store.ErrInvalidRange))
	// Output:
	// <nil>
	// true
}

func ExampleCheckCompaction() {
	prev := store.Compaction{N: 1, Through: 40}
	fmt.Println(store.CheckCompaction(prev, store.Compaction{N: 2, Through: 60, FoldedFrom: 1, FoldedThrough: 50}, 70))
	// Two holders compacted the same history: the second does not follow.
	fmt.Println(errors.Is(store.CheckCompaction(prev, store.Compaction{N: 1, Through: 60}, 70), store.ErrConflict))
	// Past the end of the log.
	fmt.Println(errors.Is(store.CheckCompaction(prev, store.Compaction{N: 2, Through: 80}, 70), store.ErrConflict))
	// Output:
	// <nil>
	// true
	// true
}

func ExampleCheckLease() {
	now := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	held := store.Lease{ID: store.NewLeaseID(), Fence: 3, Expires: now.Add(30 * time.Second)}
	fmt.Println(store.CheckLease(held, held, now))
	fmt.Println(errors.Is(store.CheckLease(held, store.Lease{ID: "old", Fence: 2}, now), store.ErrStaleFence))
	fmt.Println(errors.Is(store.CheckLease(held, held, now.Add(time.Minute)), store.ErrLeaseLost))
	// Output:
	// <nil>
	// true
	// true
}

func ExampleNewLeaseID() {
	a, b := store.NewLeaseID(), store.NewLeaseID()
	fmt.Println(len(a), a != b)
	// Output:
	// 32 true
}

func ExampleNewMemoryClock() {
	ctx := context.Background()
	now := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	st := store.NewMemoryClock(func() time.Time { return now })
	lease, _ := st.Acquire(ctx, "agent-7", time.Minute)
	fmt.Println("expires", lease.Expires.Format(time.TimeOnly))
	now = now.Add(2 * time.Minute) // the holder paused past its lease
	_, err := st.Renew(ctx, "agent-7", lease, time.Minute)
	fmt.Println(errors.Is(err, store.ErrLeaseLost))
	// Output:
	// expires 09:01:00
	// true
}
