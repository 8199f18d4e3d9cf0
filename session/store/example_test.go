package store_test

import (
	"context"
	"fmt"

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
