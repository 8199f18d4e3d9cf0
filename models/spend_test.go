package models

import (
	"math"
	"testing"
)

func TestPriceEditIsTheRewritePremiumAndTheSummarizerOverTheSaving(t *testing.T) {
	tests := []struct {
		name    string
		p       Pricing
		e       Edit
		equiv   float64 // base input tokens
		payback float64 // requests
	}{
		{"a rewrite costs the write premium over a read", sonnet, Edit{Rewritten: 10_000, Cleared: 5_000},
			10_000 * 1.15, 10_000 * 1.15 / (5_000 * 0.1)},
		{"the summarizer adds its call", sonnet, Edit{Rewritten: 10_000, Cleared: 5_000, Summarizer: Tokens{Uncached: 2_000, Output: 100}},
			10_000*1.15 + 2_000 + 100*5, (10_000*1.15 + 2_000 + 100*5) / (5_000 * 0.1)},
		{"at OpenAI a write costs the input price", gpt5, Edit{Rewritten: 10_000, Cleared: 1_000},
			10_000 * 0.9, 10_000 * 0.9 / (1_000 * 0.1)},
		{"clearing nothing never pays back", sonnet, Edit{Rewritten: 10_000}, 10_000 * 1.15, math.Inf(1)},
		{"an edit that costs nothing pays back at once", sonnet, Edit{Cleared: 10}, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.p.PriceEdit(tt.e)
			if got.Equivalent == nil || got.Dollars == nil || got.Payback == nil {
				t.Fatalf("PriceEdit(%+v) left a figure unknown: %+v", tt.e, got)
			}
			if !near(*got.Equivalent, tt.equiv) || !near(*got.Payback, tt.payback) {
				t.Fatalf("PriceEdit(%+v) = %v tokens, pays back after %v; want %v, %v", tt.e, *got.Equivalent, *got.Payback, tt.equiv, tt.payback)
			}
			if !near(*got.Dollars, tt.equiv*tt.p.Input/perMillion) {
				t.Fatalf("dollars %v for %v base input tokens", *got.Dollars, tt.equiv)
			}
			if got.Rewritten != tt.e.Rewritten || got.Cleared != tt.e.Cleared || got.Summarizer != tt.e.Summarizer {
				t.Fatalf("the counts changed: %+v", got)
			}
		})
	}
	if got := (Pricing{}).PriceEdit(Edit{Rewritten: 1, Cleared: 1}); got.Equivalent != nil || got.Payback != nil {
		t.Fatalf("an unknown price priced an edit: %+v", got)
	}
	if got := sonnet.PriceEdit(Edit{Rewritten: -1}); got.Equivalent != nil {
		t.Fatalf("a negative count was priced: %+v", got)
	}
}

func TestSpendAddsStretchesOfOneConversation(t *testing.T) {
	a := sonnet.PriceSpend(Spend{Requests: 2, Billed: Tokens{CacheRead: 1_000, CacheWrite: 100, Output: 10},
		Compactions: map[string]int{"summary": 1}})
	b := sonnet.PriceSpend(Spend{Requests: 1, Billed: Tokens{CacheRead: 500}, SummarizerCalls: 1,
		Summarizer: Tokens{Uncached: 300, Output: 20}, Compactions: map[string]int{"summary": 1, "idle": 1}})
	sum := a.Add(b)
	want := Spend{Requests: 3, Billed: Tokens{CacheRead: 1_500, CacheWrite: 100, Output: 10}, SummarizerCalls: 1,
		Summarizer: Tokens{Uncached: 300, Output: 20}}
	if sum.Requests != want.Requests || sum.Billed != want.Billed || sum.Summarizer != want.Summarizer || sum.SummarizerCalls != 1 {
		t.Fatalf("Add = %+v, want the counts of %+v", sum, want)
	}
	if sum.Compactions["summary"] != 2 || sum.Compactions["idle"] != 1 {
		t.Fatalf("compactions %v", sum.Compactions)
	}
	repriced := sonnet.PriceSpend(sum)
	if sum.Equivalent == nil || !near(*sum.Equivalent, *repriced.Equivalent) || !near(*sum.Dollars, *repriced.Dollars) {
		t.Fatalf("the sum of priced figures %v is not the price of the sum %v", sum.Equivalent, repriced.Equivalent)
	}
	if a.Compactions["idle"] != 0 || len(a.Compactions) != 1 {
		t.Fatalf("Add changed its receiver's map: %v", a.Compactions)
	}
	if got := a.Add(Spend{Requests: 1, Billed: Tokens{Uncached: 5}}); got.Equivalent != nil {
		t.Fatalf("an unpriced stretch that spent something left the sum priced: %v", *got.Equivalent)
	}
	if got := a.Add(Spend{Compactions: map[string]int{"prune": 1}}); got.Equivalent == nil || !near(*got.Equivalent, *a.Equivalent) {
		t.Fatal("a stretch that spent nothing changed the priced sum")
	}
	if r := (Spend{Billed: Tokens{CacheRead: 3, CacheWrite: 1}}).HitRatio(); !near(r, 0.75) {
		t.Fatalf("HitRatio = %v", r)
	}
	if r := (Spend{}).HitRatio(); r != 0 {
		t.Fatalf("HitRatio of nothing = %v", r)
	}
	if got := (Pricing{}).PriceSpend(a); got.Equivalent != nil || got.Dollars != nil || got.Requests != 2 {
		t.Fatalf("an unknown price priced a spend: %+v", got)
	}
}
