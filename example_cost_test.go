package compact_test

import (
	"context"
	"fmt"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/models"
)

// With the prices known (the model table's for Claude Sonnet 4.5 here, or
// WithPricing's), a Compressor keeps the conversation's bill from the usage
// reports, and each compaction says what it costs and when it pays back.
func ExampleWithPricing() {
	c := compact.New(compact.WithModel("claude-sonnet-4-5"), compact.WithContextWindow(4_000), compact.WithPruning(false))
	msgs := agentHistory(12)
	c.UpdateUsage(compact.Usage{PromptTokens: 3_000, CompletionTokens: 100, CachedTokens: 2_800, CacheWriteTokens: 200})
	res, err := c.Compress(context.Background(), msgs, compact.Force())
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("system prompt unchanged:", res.Messages[0].Content == msgs[0].Content)
	fmt.Printf("the next request writes %d tokens again, and every later one reads %d fewer\n", res.Cost.Rewritten, res.Cost.Cleared)
	fmt.Printf("it pays back after %.1f requests\n", *res.Cost.Payback)
	st := c.Status()
	fmt.Printf("billed so far: %d request, %.0f%% from the cache, $%.5f\n", st.Cost.Requests, 100*st.Cost.HitRatio(), *st.Cost.Dollars)

	unpriced := compact.New(compact.WithModel("my-local-model"))
	unpriced.UpdateUsage(compact.Usage{PromptTokens: 3_000})
	fmt.Println("an unknown model's bill:", unpriced.Status().Cost.Dollars)
	// Output:
	// system prompt unchanged: true
	// the next request writes 1594 tokens again, and every later one reads 5728 fewer
	// it pays back after 3.2 requests
	// billed so far: 1 request, 93% from the cache, $0.00309
	// an unknown model's bill: <nil>
}

// Economy mode compacts when that is cheapest per request: well before the
// threshold, as soon as the history has grown by the square-root rule's
// spacing past what a compaction leaves.
func ExampleWithEconomy() {
	prices, _ := models.Lookup("claude-sonnet-4-5")
	c := compact.New(compact.WithContextWindow(128_000), compact.WithPricing(prices.Pricing), compact.WithEconomy(true))
	st := c.Status()
	fmt.Println("economy:", st.Economy)
	fmt.Println("threshold:", st.Threshold)
	fmt.Println("due at:", st.Trigger)
	fmt.Println("at 25,000 tokens:", c.ShouldCompress(25_000))
	fmt.Println("at 32,000 tokens:", c.ShouldCompress(32_000))
	// Output:
	// economy: true
	// threshold: 89856
	// due at: 31104
	// at 25,000 tokens: false
	// at 32,000 tokens: true
}
