// Package economy is the arithmetic of economy mode: when an edit to a
// cached history pays back the cache it breaks (BreakEven), what a cycle
// of compactions costs per request (CycleCost) and the spacing of the
// cheapest cycle (Spacing). The Compressor alone uses it; the prices come
// from package models, and an unknown or invalid Pricing is refused with
// models.ErrUnpriced or its Check error.
package economy

import (
	"fmt"
	"math"

	"github.com/contextkit/compact/models"
)

// This file is the arithmetic of compacting a growing history again and
// again. Right after a compaction the history takes after tokens; each
// request adds growth tokens (the reply and what answers it); at until
// tokens it is compacted again, which costs the rewrite of what follows
// the first changed message and a summarizer's call. With r and w the
// cache's read and write prices as fractions of the input price, a cycle
// of n = (until - after)/growth requests costs, in base input tokens,
//
//	r·n·(after + until)/2  reading what the previous request stored
//	+ w·growth·n           writing what each request adds
//	+ (w - r)·rewritten    writing again what the compaction changed
//	+ fixed                the summarizer
//
// so its cost per request is r·(after + until)/2 + w·growth +
// growth·((w - r)·rewritten + fixed)/(until - after). The first term asks
// for compacting early, the last for compacting rarely; the cost is least
// when until - after = sqrt(2·growth·((w - r)·after + fixed)/r), the
// square-root rule of an economic order quantity (rewritten taken as
// after: a compaction rewrites what it leaves).

// BreakEven returns after how many requests an edit to a cached history
// pays for itself. The edit makes the next request write rewritten tokens
// to the cache (everything from the edit on) instead of reading them, an
// extra (w - r)·rewritten in base input tokens, where r and w are
// CacheRead and CacheWrite as fractions of Input; each later request reads
// cleared tokens fewer, saving r·cleared. The answer is
// (w - r)·rewritten / (r·cleared): 0 when writing costs no more than
// reading (no cache, or a cold one priced that way), +Inf when the edit
// clears nothing or reads are free.
func BreakEven(p models.Pricing, rewritten, cleared int) (float64, error) {
	if err := usable(p); err != nil {
		return 0, err
	}
	if rewritten < 0 || cleared < 0 {
		return 0, fmt.Errorf("%w: rewritten %d, cleared %d", models.ErrInvalidTokens, rewritten, cleared)
	}
	// Input cancels out: (w - r)·T / (r·X) with w and r fractions of
	// Input is (CacheWrite - CacheRead)/CacheRead · T/X.
	switch {
	case p.CacheWrite <= p.CacheRead || rewritten == 0:
		return 0, nil
	case cleared == 0 || p.CacheRead == 0:
		return math.Inf(1), nil
	}
	return (p.CacheWrite - p.CacheRead) / p.CacheRead * (float64(rewritten) / float64(cleared)), nil
}

// usable returns models.ErrUnpriced for an unknown p, or p's Check.
func usable(p models.Pricing) error {
	if !p.Known() {
		return models.ErrUnpriced
	}
	return p.Check()
}

// ratios returns p's read and write prices as fractions of its input
// price, after checking p.
func ratios(p models.Pricing) (r, w float64, err error) {
	if err := usable(p); err != nil {
		return 0, 0, err
	}
	return p.CacheRead / p.Input, p.CacheWrite / p.Input, nil
}

// CycleCost returns the cost under p per request, in base input tokens, of a
// history compacted at until tokens down to after, growing by growth
// tokens a request, each compaction rewriting rewritten tokens and costing
// fixed base input tokens more (its summarizer). It is +Inf when until is
// not above after: the history would be compacted at every request.
func CycleCost(p models.Pricing, after, until, growth, rewritten int, fixed float64) (float64, error) {
	r, w, err := ratios(p)
	if err != nil {
		return 0, err
	}
	if after < 0 || until < 0 || growth < 0 || rewritten < 0 || fixed < 0 || math.IsNaN(fixed) {
		return 0, fmt.Errorf("%w: after %d, until %d, growth %d, rewritten %d, fixed %v",
			models.ErrInvalidTokens, after, until, growth, rewritten, fixed)
	}
	if until <= after {
		return math.Inf(1), nil
	}
	g := float64(growth)
	return r*float64(after+until)/2 + w*g + g*(max(w-r, 0)*float64(rewritten)+fixed)/float64(until-after), nil
}

// Spacing returns how many tokens a history should grow past after, its
// size right after a compaction, before it is compacted again, for the
// least cost per request under p (see CycleCost): sqrt(2·growth·((w - r)·after +
// fixed)/r). It is +Inf when reads are free, and 0 when a compaction
// costs nothing.
func Spacing(p models.Pricing, after, growth int, fixed float64) (float64, error) {
	r, w, err := ratios(p)
	if err != nil {
		return 0, err
	}
	if after < 0 || growth < 0 || fixed < 0 || math.IsNaN(fixed) {
		return 0, fmt.Errorf("%w: after %d, growth %d, fixed %v", models.ErrInvalidTokens, after, growth, fixed)
	}
	cost := max(w-r, 0)*float64(after) + fixed
	if r == 0 {
		if cost == 0 {
			return 0, nil
		}
		return math.Inf(1), nil
	}
	return math.Sqrt(2 * float64(growth) * cost / r), nil
}
