package sqlitestore_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/session"
	"github.com/contextkit/compact/session/sqlitestore"
)

// A conversation kept in a SQLite file outlives the process that held it.
func ExampleOpen() {
	ctx := context.Background()
	dir, _ := os.MkdirTemp("", "example-")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "sessions.db")

	st, err := sqlitestore.Open(ctx, path)
	if err != nil {
		fmt.Println(err)
		return
	}
	s, _ := session.Open(context.Background(), "agent-7", nil, session.WithStore(st))
	for _, text := range []string{"Deploy the fix.", "Deployed: all checks green."} {
		if err := s.Append(ctx, compact.Message{Role: compact.RoleUser, Content: text}); err != nil {
			fmt.Println(err)
			return
		}
	}
	st.Close()

	// Later, in another process:
	st, _ = sqlitestore.Open(ctx, path)
	defer st.Close()
	again, _ := session.Open(context.Background(), "agent-7", nil, session.WithStore(st))
	_ = again.Sync(ctx) // or any call that takes a ctx
	fmt.Println(again.Len(), "messages, the last:", again.Messages()[1].Content)
	found, _ := st.Search(ctx, "agent-7", "CHECKS GREEN", 0, 10)
	fmt.Println("found in record", found[0].Seq)
	// Output:
	// 2 messages, the last: Deployed: all checks green.
	// found in record 2
}
