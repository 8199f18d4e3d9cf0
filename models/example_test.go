package models_test

import (
	"fmt"

	"github.com/contextkit/compact/models"
)

// A host passes the model name it sends to the provider, prefixes, dates
// and all, and learns the window, the longest reply and how to count.
func ExampleLookup() {
	for _, name := range []string{
		"gpt-4o-2024-08-06",
		"openrouter/anthropic/claude-sonnet-4-20250514",
		"us.anthropic.claude-3-5-haiku-20241022-v1:0",
		"my-local-model",
	} {
		m, ok := models.Lookup(name)
		if !ok {
			fmt.Printf("%s: unknown, keep the defaults\n", name)
			continue
		}
		count := m.Encoding
		if count == "" {
			count = fmt.Sprintf("o200k_base × %.2f", m.Calibration)
		}
		fmt.Printf("%s: %s, window %d, replies up to %d, counted with %s\n",
			name, m.Name, m.Window, m.MaxOutput, count)
	}
	// Output:
	// gpt-4o-2024-08-06: gpt-4o, window 128000, replies up to 16384, counted with o200k_base
	// openrouter/anthropic/claude-sonnet-4-20250514: claude-sonnet-4, window 200000, replies up to 64000, counted with o200k_base × 1.20
	// us.anthropic.claude-3-5-haiku-20241022-v1:0: claude-3-5-haiku, window 200000, replies up to 8192, counted with o200k_base × 1.20
	// my-local-model: unknown, keep the defaults
}

// All lists every family, for a model picker or a check of one's own
// configuration against the table.
func ExampleAll() {
	largest := models.Model{}
	perProvider := map[string]int{}
	for _, m := range models.All() {
		perProvider[m.Provider]++
		if m.Window > largest.Window {
			largest = m
		}
	}
	fmt.Println("anthropic families:", perProvider["anthropic"])
	fmt.Println("largest window:", largest.Name, largest.Window)
	// Output:
	// anthropic families: 9
	// largest window: gemini-1.5-pro 2097152
}
