package sqlitestore_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/session/sqlitestore"
	"github.com/contextkit/compact/session/store"
)

// archived opens a store in a new directory and gives session id ten
// records, the first eight folded by a compaction; the caller removes the
// directory.
func archived(ctx context.Context, id string) (*sqlitestore.Store, string, error) {
	dir, err := os.MkdirTemp("", "example-")
	if err != nil {
		return nil, "", err
	}
	st, err := sqlitestore.Open(ctx, filepath.Join(dir, "sessions.db"))
	if err != nil {
		return nil, dir, err
	}
	msgs := make([]compact.Message, 10)
	for i := range msgs {
		msgs[i] = compact.Message{Role: compact.RoleUser, Content: fmt.Sprintf("message %d", i+1)}
	}
	if _, _, err := st.Append(ctx, id, msgs...); err != nil {
		return st, dir, err
	}
	_, err = st.Commit(ctx, id, store.Compaction{N: 1, Through: 9, FoldedFrom: 1, FoldedThrough: 8,
		Live: []compact.Message{{Role: compact.RoleUser, Content: "Summary of messages 1-8."}, msgs[8]}}, store.Lease{})
	return st, dir, err
}

// Delete removes a session whole; its id stays taken.
func ExampleStore_Delete() {
	ctx := context.Background()
	st, dir, err := archived(ctx, "user-42")
	defer os.RemoveAll(dir)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer st.Close()
	fmt.Println(st.Delete(ctx, "user-42"))
	_, _, _, err = st.Live(ctx, "user-42")
	fmt.Println(errors.Is(err, store.ErrDeleted))
	// Output:
	// <nil>
	// true
}

// Expire deletes the folded records older than an age; Vacuum then gives
// the freed pages back to the file system.
func ExampleStore_Expire() {
	ctx := context.Background()
	st, dir, err := archived(ctx, "agent-7")
	defer os.RemoveAll(dir)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer st.Close()
	time.Sleep(2 * time.Millisecond)
	got, err := st.Expire(ctx, store.Retention{Folded: time.Millisecond})
	fmt.Printf("%+v %v\n", got, err)
	recs, _ := st.Read(ctx, "agent-7", 1, 0)
	var seqs []int64
	for _, r := range recs {
		seqs = append(seqs, r.Seq)
	}
	fmt.Println(seqs)
	fmt.Println(st.Vacuum(ctx))
	// Output:
	// {Records:8 Sessions:0} <nil>
	// [9 10]
	// <nil>
}

// Vacuum rebuilds the file after deletes.
func ExampleStore_Vacuum() {
	ctx := context.Background()
	st, dir, err := archived(ctx, "user-1")
	defer os.RemoveAll(dir)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer st.Close()
	_ = st.Delete(ctx, "user-1")
	fmt.Println(st.Vacuum(ctx))
	// Output:
	// <nil>
}

// Rewrite replaces folded records, and what searches find in them.
func ExampleStore_Rewrite() {
	ctx := context.Background()
	st, dir, err := archived(ctx, "agent-7")
	defer os.RemoveAll(dir)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer st.Close()
	clean := compact.Message{Role: compact.RoleUser, Content: "message 3 [REDACTED]"}
	fmt.Println(st.Rewrite(ctx, "agent-7", []store.Record{{Seq: 3, Message: clean}}))
	hits, _ := st.Search(ctx, "agent-7", "[redacted]", 0, 0)
	fmt.Println(len(hits), hits[0].Seq)
	err = st.Rewrite(ctx, "agent-7", []store.Record{{Seq: 10, Message: clean}})
	fmt.Println(errors.Is(err, store.ErrInvalidRange))
	// Output:
	// <nil>
	// 1 3
	// true
}
