package storetest_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/session"
	"github.com/contextkit/compact/session/store"
	"github.com/contextkit/compact/session/storetest"
	"github.com/contextkit/compact/tokens"
)

// A host that wrote its own Store checks it in its tests with Run, or
// anywhere with Check.
func ExampleCheck() {
	err := storetest.Check(context.Background(), store.NewMemory())
	fmt.Println("store.Memory breaks no rule:", err == nil)
	// Output:
	// store.Memory breaks no rule: true
}

// Audit reads a session's log and compactions and finds every record each
// compaction covers folded into its summaries or carried in its Live.
func ExampleAudit() {
	ctx := context.Background()
	st := store.NewMemory()
	engine := compact.New(compact.WithContextWindow(4000), compact.WithThresholdBounds(0, 0),
		compact.WithTokenCounter(tokens.Estimator{}))
	s, err := session.Open(ctx, "agent-7", engine, session.WithStore(st))
	if err != nil {
		fmt.Println(err)
		return
	}
	for i := 0; i < 80; i++ {
		role := compact.RoleUser
		if i%2 == 1 {
			role = compact.RoleAssistant
		}
		_ = s.Append(ctx, compact.Message{Role: role, Content: fmt.Sprintf("turn %d: %s", i, strings.Repeat("more detail ", 12))})
	}
	if _, err := s.Compress(ctx, compact.Force()); err != nil {
		fmt.Println(err)
		return
	}
	comps, _ := st.Compactions(ctx, "agent-7")
	fmt.Printf("compaction 1 covers records 1-%d; its summary stands for %d-%d\n",
		comps[0].Through, comps[0].FoldedFrom, comps[0].FoldedThrough)
	fmt.Println("every record accounted for:", storetest.Audit(ctx, st, "agent-7") == nil)
	// Output:
	// compaction 1 covers records 1-80; its summary stands for 4-70
	// every record accounted for: true
}
