package models

import (
	"fmt"
	"math"
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

// ratios returns p's read and write prices as fractions of its input
// price, after checking p.
func (p Pricing) ratios() (r, w float64, err error) {
	if err := p.usable(); err != nil {
		return 0, 0, err
	}
	return p.CacheRead / p.Input, p.CacheWrite / p.Input, nil
}

// CycleCost returns the cost per request, in base input tokens, of a
// history compacted at until tokens down to after, growing by growth
// tokens a request, each compaction rewriting rewritten tokens and costing
// fixed base input tokens more (its summarizer). It is +Inf when until is
// not above after: the history would be compacted at every request.
func (p Pricing) CycleCost(after, until, growth, rewritten int, fixed float64) (float64, error) {
	r, w, err := p.ratios()
	if err != nil {
		return 0, err
	}
	if after < 0 || until < 0 || growth < 0 || rewritten < 0 || fixed < 0 || math.IsNaN(fixed) {
		return 0, fmt.Errorf("%w: after %d, until %d, growth %d, rewritten %d, fixed %v",
			ErrInvalidTokens, after, until, growth, rewritten, fixed)
	}
	if until <= after {
		return math.Inf(1), nil
	}
	g := float64(growth)
	return r*float64(after+until)/2 + w*g + g*(max(w-r, 0)*float64(rewritten)+fixed)/float64(until-after), nil
}

// Spacing returns how many tokens a history should grow past after, its
// size right after a compaction, before it is compacted again, for the
// least cost per request (see CycleCost): sqrt(2·growth·((w - r)·after +
// fixed)/r). It is +Inf when reads are free, and 0 when a compaction
// costs nothing.
func (p Pricing) Spacing(after, growth int, fixed float64) (float64, error) {
	r, w, err := p.ratios()
	if err != nil {
		return 0, err
	}
	if after < 0 || growth < 0 || fixed < 0 || math.IsNaN(fixed) {
		return 0, fmt.Errorf("%w: after %d, growth %d, fixed %v", ErrInvalidTokens, after, growth, fixed)
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
