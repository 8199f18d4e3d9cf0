package models_test

import (
	"errors"
	"fmt"

	"github.com/contextkit/compact/models"
)

// A request to Claude Sonnet 4.5 whose first 60,000 tokens the cache
// served, with 2,000 new tokens written to it and a 500-token reply.
func ExamplePricing_Cost() {
	m, _ := models.Lookup("claude-sonnet-4-5-20250929")
	tok := models.Tokens{CacheRead: 60_000, CacheWrite: 2_000, Output: 500}
	dollars, err := m.Pricing.Cost(tok)
	if err != nil {
		fmt.Println(err)
		return
	}
	equiv, _ := m.Pricing.Equivalent(tok)
	fmt.Printf("$%.4f, as much as %.0f input tokens billed in full\n", dollars, equiv)
	// Output:
	// $0.0330, as much as 11000 input tokens billed in full
}

// A host that asks Anthropic for the hour-long cache pays twice the input
// price for each write.
func ExamplePricing_Long() {
	m, _ := models.Lookup("claude-haiku-4-5")
	long, ok := m.Pricing.Long()
	fmt.Println(ok, long.CacheLifetime, long.CacheWrite)
	_, ok = models.Pricing{Input: 1}.Long()
	fmt.Println(ok)
	// Output:
	// true 1h0m0s 2
	// false
}

// A model the table does not price has an unknown Pricing, and the
// arithmetic says so instead of guessing; a price given by hand is
// checked.
func ExamplePricing_Known() {
	m, _ := models.Lookup("gemini-2.5-pro")
	_, err := m.Pricing.Cost(models.Tokens{Uncached: 1000})
	fmt.Println(m.Pricing.Known(), errors.Is(err, models.ErrUnpriced))
	own := models.Pricing{Input: 2, CacheRead: -0.2, Output: 8}
	fmt.Println(own.Check())
	// Output:
	// false true
	// models: Pricing.CacheRead -0.2: a price must be finite and not negative, and a priced family needs an input price
}

// A compaction that rewrites the 30,000 tokens it leaves and clears
// 60,000 from every later request, with a 1,500-token summary written by
// the same model from a 40,000-token prompt.
func ExamplePricing_PriceEdit() {
	m, _ := models.Lookup("claude-sonnet-4-5")
	e := m.Pricing.PriceEdit(models.Edit{Rewritten: 30_000, Cleared: 60_000,
		Summarizer: models.Tokens{Uncached: 40_000, Output: 1_500}})
	fmt.Printf("%.0f base input tokens ($%.3f), paid back after %.1f requests\n", *e.Equivalent, *e.Dollars, *e.Payback)
	// Output:
	// 82000 base input tokens ($0.246), paid back after 13.7 requests
}
