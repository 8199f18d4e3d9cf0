package compact_test

import (
	"context"
	"fmt"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/tokens"
)

// A compaction accounts for every input message: a host can log which were
// kept, folded into the summary, carried in it or lifted after it.
func ExampleMessageFate() {
	msgs := partialConversation()
	c := compact.New(compact.WithContextWindow(1500), compact.WithTokenCounter(tokens.Estimator{}))
	res, err := c.Compress(context.Background(), msgs, compact.Force())
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, a := range res.Account {
		fmt.Printf("%2d %-9s %-4s %-7s -> %d\n", a.Index, a.Role, a.Tool, a.Fate, a.Output)
	}
	// Output:
	//  0 system         kept    -> 0
	//  1 user           kept    -> 1
	//  2 assistant bash folded  -> 2
	//  3 tool      bash folded  -> 2
	//  4 assistant      folded  -> 2
	//  5 user           carried -> 2
	//  6 assistant bash folded  -> 2
	//  7 tool      bash folded  -> 2
	//  8 assistant      folded  -> 2
	//  9 user           kept    -> 3
	// 10 assistant bash kept    -> 4
	// 11 tool      bash kept    -> 5
	// 12 assistant      kept    -> 6
}
