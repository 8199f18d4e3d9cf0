package pgstore_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/session/pgstore"
	"github.com/contextkit/compact/session/store"
)

// The lifecycle of a session in Postgres: retention a host schedules, and
// a deletion a user asked for. (It needs a server: COMPACT_PG_DSN.)
func ExampleStore_Expire() {
	ctx := context.Background()
	st, err := pgstore.Open(ctx, os.Getenv("COMPACT_PG_DSN"))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer st.Close()
	// Once a day: folded records older than 30 days, sessions idle 90.
	got, err := st.Expire(ctx, store.Retention{Folded: 30 * 24 * time.Hour, Idle: 90 * 24 * time.Hour})
	fmt.Println(got.Records, got.Sessions, err)
}

// Delete waits for nothing: a held lease refuses it with ErrBusy, and
// session.Delete retries until the lease is released or lapses.
func ExampleStore_Delete() {
	ctx := context.Background()
	st, err := pgstore.Open(ctx, os.Getenv("COMPACT_PG_DSN"))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer st.Close()
	if err := st.Delete(ctx, "user-42"); errors.Is(err, store.ErrBusy) {
		err = store.Delete(ctx, st, "user-42")
	}
	_, _, err = st.Append(ctx, "user-42", compact.Message{Role: compact.RoleUser, Content: "hello?"})
	fmt.Println(errors.Is(err, store.ErrDeleted))
}

// Rewrite redacts a folded record; store.RedactFolded does it for every
// folded record of a session.
func ExampleStore_Rewrite() {
	ctx := context.Background()
	st, err := pgstore.Open(ctx, os.Getenv("COMPACT_PG_DSN"))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer st.Close()
	n, err := store.RedactFolded(ctx, st, "agent-7")
	fmt.Println(n, err)
}
