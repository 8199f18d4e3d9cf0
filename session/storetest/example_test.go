package storetest_test

import (
	"context"
	"fmt"

	"github.com/contextkit/compact/session"
	"github.com/contextkit/compact/session/storetest"
)

// A host that wrote its own Store checks it in its tests with Run, or
// anywhere with Check.
func ExampleCheck() {
	err := storetest.Check(context.Background(), session.NewMemoryStore())
	fmt.Println("MemoryStore breaks no rule:", err == nil)
	// Output:
	// MemoryStore breaks no rule: true
}
