// Package meter follows one conversation's bill for the Compressor: what
// usage reports say it was billed, how fast its history grows, whether its
// provider's prompt cache has gone cold, and when a compaction is due for
// the bill's sake (DESIGN.md, Cost).
package meter

import (
	"slices"
	"time"

	"github.com/contextkit/compact/internal/economy"
	"github.com/contextkit/compact/models"
)

// What a Meter assumes before a conversation teaches it otherwise.
const (
	// DefaultGrowth is the growth per request assumed before usage
	// reports show one: the 30 shared transcripts, joined, add 366k
	// tokens over 584 requests, about 620 a request (compact replay,
	// issue 24).
	DefaultGrowth = 620
	// growthPriorWeight is how many requests that assumption counts for,
	// so the first reports move the estimate without taking it over.
	growthPriorWeight = 4

	// idleFraction: while the provider's cache is cold, a compaction is
	// due once the history has grown this share of the way from its size
	// right after the last compaction to the trigger. Compacting past half
	// the threshold on a cold cache cost 0.65x of the default on the
	// joined replay with a ten-minute pause before every user message
	// (issue 24, phase 1).
	idleFraction = 0.5

	// typicalSteps is how many of the latest growth steps TypicalGrowth
	// takes the median of.
	typicalSteps = 32

	// minSpacing is the least an economy compaction lets the history grow
	// before the next one, however cheap compacting is (a free summarizer
	// on a model without a cache would compact at every request): about
	// six requests at DefaultGrowth.
	minSpacing = 4_000
)

// The kinds of compaction a Meter counts (models.Spend.Compactions).
const (
	Summary  = "summary"  // a summary folded turns
	Fallback = "fallback" // the fallback summary stood in for a failed summarizer
	Prune    = "prune"    // pruning alone was enough
	Idle     = "idle"     // started under the trigger because the cache was cold
	Economy  = "economy"  // started under the threshold by economy mode
)

// Meter is one conversation's bill and what it teaches. The zero Meter is
// ready. It is not safe for concurrent use: the Compressor guards it.
type Meter struct {
	spend  models.Spend
	lastAt time.Time         // when the last request was reported
	prev   int               // the last prompt reported since the last compaction; 0 after one
	grown  int               // tokens the history grew between consecutive reports
	steps  int               // how many such pairs
	recent [typicalSteps]int // the latest of those steps, a ring from steps
	after  int               // the size right after the last compaction; 0 before one
	fixed  float64           // the last model summarizer call, in base input tokens
	seen   bool              // fixed holds an observation
}

// Report adds one request's usage: prompt tokens billed as t (with
// t.Output the reply), sent at at.
func (m *Meter) Report(t models.Tokens, prompt int, at time.Time) {
	m.spend = m.spend.Add(models.Spend{Requests: 1, Billed: t})
	m.lastAt = at
	if m.prev > 0 && prompt >= m.prev {
		m.grown += prompt - m.prev
		m.recent[m.steps%typicalSteps] = prompt - m.prev
		m.steps++
	}
	m.prev = prompt
}

// Compacted records a compaction of the given kind (and, for one under the
// threshold, why it came early) that left after tokens, having called a
// model-backed summarizer for sum (zero when none), priced under p.
func (m *Meter) Compacted(kind, early string, after int, sum models.Tokens, p models.Pricing) {
	add := models.Spend{Compactions: map[string]int{kind: 1}}
	if early != "" {
		add.Compactions[early] = 1
	}
	if sum != (models.Tokens{}) {
		add.SummarizerCalls, add.Summarizer = 1, sum
		if eq, err := p.Equivalent(sum); err == nil {
			m.fixed, m.seen = eq, true
		}
	}
	m.spend = m.spend.Add(add)
	m.after, m.prev = after, 0
}

// Spend returns the bill so far, priced under p.
func (m *Meter) Spend(p models.Pricing) models.Spend { return p.PriceSpend(m.spend) }

// Keep forgets everything but the bill: a conversation reset starts over,
// having been billed all the same.
func (m *Meter) Keep() Meter { return Meter{spend: m.spend} }

// Growth is the growth per request: what the reports show, weighted
// against DefaultGrowth while they are few.
func (m *Meter) Growth() int {
	return (DefaultGrowth*growthPriorWeight + m.grown) / (growthPriorWeight + m.steps)
}

// TypicalGrowth is what a typical request adds: the median of the latest
// steps, with DefaultGrowth counted growthPriorWeight times among them.
// One very large message moves the mean (Growth), which is what a cycle
// costs on average, but not the median: use it where one step must not
// decide, such as how long the history has before it must shrink.
func (m *Meter) TypicalGrowth() int {
	var all [typicalSteps + growthPriorWeight]int
	n := copy(all[:], m.recent[:min(m.steps, typicalSteps)])
	for range growthPriorWeight {
		all[n] = DefaultGrowth
		n++
	}
	slices.Sort(all[:n])
	return all[(n-1)/2]
}

// After is the size the last compaction left, or guess before the first.
func (m *Meter) After(guess int) int {
	if m.after > 0 {
		return m.after
	}
	return guess
}

// Cached is the size of the last request reported since the last
// compaction: what the provider's cache holds while it is warm; 0 right
// after a compaction.
func (m *Meter) Cached() int { return m.prev }

// SummarizerCost is what a summary is expected to cost in base input
// tokens: nothing when no model is called, otherwise the last call's cost,
// or guess before one.
func (m *Meter) SummarizerCost(model bool, guess float64) float64 {
	switch {
	case !model:
		return 0
	case m.seen:
		return m.fixed
	}
	return guess
}

// Cold reports whether p's cache has gone cold at now: the last request
// was reported longer ago than the cache keeps a prefix.
func (m *Meter) Cold(p models.Pricing, now time.Time) bool {
	return p.CacheLifetime > 0 && !m.lastAt.IsZero() && now.Sub(m.lastAt) > p.CacheLifetime
}

// Trigger returns the prompt size at which an economy compaction is due
// with the cache warm: once the history has grown past after by p's
// Spacing for the observed growth and a summary costing fixed, but never
// past threshold.
func (m *Meter) Trigger(p models.Pricing, threshold, after int, fixed float64) int {
	d, err := economy.Spacing(p, after, m.Growth(), fixed)
	if err != nil || d >= float64(threshold) {
		return threshold
	}
	return min(threshold, after+max(int(d), minSpacing))
}

// Due reports whether a prompt of n tokens is due for compaction under
// the threshold: at trigger (why: Economy, when trigger is under the
// threshold), or with the cache cold past half of the way from
// the last compaction's size to trigger (why: Idle).
func (m *Meter) Due(n, threshold, trigger int, cold bool) (bool, string) {
	switch {
	case n >= threshold:
		return true, ""
	case n >= trigger:
		return true, Economy
	}
	after := min(m.after, trigger)
	if cold && n >= after+int(idleFraction*float64(trigger-after)) {
		return true, Idle
	}
	return false, ""
}
