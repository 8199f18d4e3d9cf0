package compact_test

import (
	"context"
	"fmt"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/prune"
	"github.com/contextkit/compact/tokens"
)

// A Compressor prunes before it summarises: when that is enough, no
// summarizer is called at all.
func ExampleWithPruning() {
	calls := 0
	count := compact.SummarizerFunc(func(ctx context.Context, req compact.SummaryRequest) (string, error) {
		calls++
		return "summary", nil
	})
	c := compact.New(compact.WithContextWindow(4200), compact.WithThresholdBounds(0, 0),
		compact.WithTokenCounter(tokens.Estimator{}), compact.WithSummarizer(count),
		compact.WithPruning(true), compact.WithPruneOptions(prune.WithClearAtLeast(500)))
	msgs := agentHistory(10)
	fmt.Println("should compress:", c.ShouldCompressMessages(msgs))
	res, err := c.Compress(context.Background(), msgs)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("summarizer calls:", calls, "summary index:", res.SummaryIndex, "pruned:", len(res.Pruned))
	fmt.Println("should compress now:", c.ShouldCompressMessages(res.Messages))
	// Output:
	// should compress: true
	// summarizer calls: 0 summary index: -1 pruned: 7
	// should compress now: false
}
