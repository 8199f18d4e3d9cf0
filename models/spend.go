package models

import (
	"maps"
	"math"
)

// Edit is what one change to a cached history is expected to cost: a
// compaction reports one. The counts are always filled in; the priced
// figures only when the prices are known (see Pricing.PriceEdit).
type Edit struct {
	// Rewritten is the tokens of the new history from its first changed
	// message to its end: the next request writes them to the cache
	// instead of reading them.
	Rewritten int
	// Cleared is how many tokens fewer each later request carries.
	Cleared int
	// Summarizer is the summarizer's call as the engine estimates it: its
	// prompt by how it is billed, and its reply as Output. Zero when no
	// model was called. A rendered prompt is sized without being rendered,
	// from the token counts of the messages it lays out, so it is an
	// estimate (within about 5% on the shared transcripts), not a count.
	Summarizer Tokens

	// Equivalent is the edit's cost in base input tokens: the rewrite's
	// premium over reading the same tokens from the cache, (w - r) times
	// Rewritten with w and r the write and read prices as fractions of
	// the input price, plus the summarizer's call. Dollars is the same in
	// US dollars. Payback is after how many later requests the tokens
	// cleared, read r times cheaper each, pay it back: +Inf when nothing
	// is cleared. All three are nil when the prices are unknown.
	Equivalent *float64 `json:",omitempty"`
	Dollars    *float64 `json:",omitempty"`
	Payback    *float64 `json:",omitempty"`
}

// PriceEdit returns e with its priced figures filled in under p, or
// cleared when p is unknown or invalid.
func (p Pricing) PriceEdit(e Edit) Edit {
	e.Equivalent, e.Dollars, e.Payback = nil, nil, nil
	if p.usable() != nil || e.Rewritten < 0 || e.Cleared < 0 || e.Summarizer.check() != nil {
		return e
	}
	premium := float64(e.Rewritten) * max(p.CacheWrite-p.CacheRead, 0) / perMillion // dollars
	sum, _ := p.Cost(e.Summarizer)
	dollars := premium + sum
	eq := dollars * perMillion / p.Input
	payback := math.Inf(1)
	if saving := float64(e.Cleared) * p.CacheRead / perMillion; saving > 0 {
		payback = dollars / saving
	} else if dollars == 0 {
		payback = 0
	}
	e.Equivalent, e.Dollars, e.Payback = &eq, &dollars, &payback
	return e
}

// Spend is what a conversation has been billed so far: its requests as
// the provider's usage reports say, and its compactions' summarizer calls
// as the engine estimates them. The counts are always kept; the priced
// figures only when the prices are known (see Pricing.PriceSpend).
type Spend struct {
	// Requests is how many usage reports were counted, and Billed their
	// tokens by how they were billed (Output is the replies).
	Requests int
	Billed   Tokens
	// SummarizerCalls is how many model-backed summaries were written,
	// and Summarizer their estimated tokens.
	SummarizerCalls int
	Summarizer      Tokens
	// Compactions counts the compactions by kind, as the engine names
	// them; nil before the first.
	Compactions map[string]int `json:",omitempty"`

	// Equivalent is Billed and Summarizer together in base input tokens,
	// and Dollars in US dollars; both nil when the prices are unknown.
	Equivalent *float64 `json:",omitempty"`
	Dollars    *float64 `json:",omitempty"`
}

// HitRatio is the share of the input the provider reported reading from
// its prompt cache; 0 before any input.
func (s Spend) HitRatio() float64 {
	in := s.Billed.CacheRead + s.Billed.CacheWrite + s.Billed.Uncached
	if in <= 0 {
		return 0
	}
	return float64(s.Billed.CacheRead) / float64(in)
}

// Clone returns s with a map of its own.
func (s Spend) Clone() Spend {
	s.Compactions = maps.Clone(s.Compactions)
	s.Equivalent, s.Dollars = clonePtr(s.Equivalent), clonePtr(s.Dollars)
	return s
}

// Add returns the sum of s and o: what two stretches of one conversation
// were billed together (a Session adds what it spent before a restart to
// what its new engine reports). A priced figure of the sum is nil when
// either side has spent something without a price for it.
func (s Spend) Add(o Spend) Spend {
	out := s.Clone()
	out.Requests += o.Requests
	out.Billed = out.Billed.add(o.Billed)
	out.SummarizerCalls += o.SummarizerCalls
	out.Summarizer = out.Summarizer.add(o.Summarizer)
	for k, n := range o.Compactions {
		if out.Compactions == nil {
			out.Compactions = map[string]int{}
		}
		out.Compactions[k] += n
	}
	out.Equivalent = addPriced(s.Equivalent, s.spent(), o.Equivalent, o.spent())
	out.Dollars = addPriced(s.Dollars, s.spent(), o.Dollars, o.spent())
	return out
}

// spent reports whether s holds anything a price applies to.
func (s Spend) spent() bool { return s.Billed != Tokens{} || s.Summarizer != Tokens{} }

// PriceSpend returns s with its priced figures filled in under p, or
// cleared when p is unknown or invalid.
func (p Pricing) PriceSpend(s Spend) Spend {
	s = s.Clone()
	s.Equivalent, s.Dollars = nil, nil
	d1, err1 := p.Cost(s.Billed)
	d2, err2 := p.Cost(s.Summarizer)
	if err1 != nil || err2 != nil {
		return s
	}
	dollars := d1 + d2
	eq := dollars * perMillion / p.Input
	s.Equivalent, s.Dollars = &eq, &dollars
	return s
}

// add returns the sum of two token counts.
func (t Tokens) add(o Tokens) Tokens {
	return Tokens{CacheRead: t.CacheRead + o.CacheRead, CacheWrite: t.CacheWrite + o.CacheWrite,
		Uncached: t.Uncached + o.Uncached, Output: t.Output + o.Output}
}

// addPriced sums two priced figures: a side that spent nothing adds
// nothing, and one that spent without a price makes the sum unknown.
func addPriced(a *float64, aSpent bool, b *float64, bSpent bool) *float64 {
	switch {
	case (a == nil && aSpent) || (b == nil && bSpent):
		return nil
	case a == nil && b == nil:
		return nil
	}
	sum := 0.0
	if a != nil {
		sum += *a
	}
	if b != nil {
		sum += *b
	}
	return &sum
}

func clonePtr(f *float64) *float64 {
	if f == nil {
		return nil
	}
	v := *f
	return &v
}
