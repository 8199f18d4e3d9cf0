package models

import (
	"errors"
	"fmt"
	"math"
	"time"
)

// Pricing is what a family's tokens cost and how its prompt cache keeps
// them. Prices are US dollars per million tokens.
//
// A provider's prompt cache serves the leading part of a request that is
// byte-identical to one it has stored (CacheRead); the rest of the input is
// written to the cache (CacheWrite). Where writing costs nothing extra, as
// at OpenAI, CacheWrite equals Input. A family without a prompt cache has
// CacheRead and CacheWrite equal to Input and a CacheLifetime of 0, so the
// same arithmetic prices it.
//
// The zero Pricing is an unknown one: Known reports false, and Cost,
// Equivalent return ErrUnpriced.
type Pricing struct {
	Input      float64 // an input token billed in full
	CacheRead  float64 // an input token read from the prompt cache
	CacheWrite float64 // an input token written to the cache for CacheLifetime
	Output     float64 // a token of the reply

	// CacheWriteLong is the price of a write kept for LongCacheLifetime
	// (Anthropic's one-hour cache); both are 0 when the family offers no
	// such choice. Long returns the Pricing of a host that uses it.
	CacheWriteLong    float64
	LongCacheLifetime time.Duration

	// CacheLifetime is how long a stored prefix lives without being read;
	// each read starts it again. 0 means the family has no prompt cache.
	CacheLifetime time.Duration
	// MinCachePrefix is the fewest tokens a prefix must hold to be stored.
	MinCachePrefix int

	Source      string // where the prices come from
	CacheSource string // where the lifetime and the minimum prefix come from
}

// Tokens are one request's tokens by how they are billed. Input tokens are
// CacheRead + CacheWrite + Uncached.
type Tokens struct {
	CacheRead  int // input read from the prompt cache
	CacheWrite int // input written to the prompt cache
	Uncached   int // input neither read from nor written to the cache
	Output     int // the reply
}

// Errors of the billing arithmetic. A *PriceError wraps ErrInvalidPrice.
var (
	// ErrUnpriced is returned for a family whose prices are not known.
	ErrUnpriced = errors.New("models: no known price")
	// ErrInvalidPrice is returned for a price that is negative or not
	// finite, or a priced family without an input price.
	ErrInvalidPrice = errors.New("models: invalid price")
	// ErrInvalidTokens is returned for a negative token count.
	ErrInvalidTokens = errors.New("models: invalid token count")
)

// PriceError names the field of a Pricing that holds an invalid value.
type PriceError struct {
	Field string  // "Input", "CacheRead", "CacheWrite", "CacheWriteLong" or "Output"
	Value float64 // the value refused
}

func (e *PriceError) Error() string {
	return fmt.Sprintf("models: Pricing.%s %v: a price must be finite and not negative, and a priced family needs an input price", e.Field, e.Value)
}

// Unwrap returns ErrInvalidPrice.
func (e *PriceError) Unwrap() error { return ErrInvalidPrice }

// Known reports whether p holds prices: false for the zero Pricing, which
// Lookup returns for a family whose prices could not be sourced.
func (p Pricing) Known() bool { return p != Pricing{} }

// Check returns a *PriceError for the first price that is negative or not
// finite, or for a priced family whose input price is 0; nil otherwise.
// The zero Pricing checks out: it is unknown, not invalid.
func (p Pricing) Check() error {
	if !p.Known() {
		return nil
	}
	fields := []struct {
		name string
		v    float64
	}{{"Input", p.Input}, {"CacheRead", p.CacheRead}, {"CacheWrite", p.CacheWrite},
		{"CacheWriteLong", p.CacheWriteLong}, {"Output", p.Output}}
	for _, f := range fields {
		if math.IsNaN(f.v) || math.IsInf(f.v, 0) || f.v < 0 {
			return &PriceError{Field: f.name, Value: f.v}
		}
	}
	if p.Input == 0 {
		return &PriceError{Field: "Input", Value: 0}
	}
	return nil
}

// usable returns ErrUnpriced for an unknown p and Check's error for an
// invalid one.
func (p Pricing) usable() error {
	if !p.Known() {
		return ErrUnpriced
	}
	return p.Check()
}

// Long returns the Pricing of a host that writes to the cache with the long
// lifetime: CacheWrite and CacheLifetime become CacheWriteLong and
// LongCacheLifetime. It reports false, and returns p, when the family
// offers no long lifetime.
func (p Pricing) Long() (Pricing, bool) {
	if p.LongCacheLifetime <= 0 {
		return p, false
	}
	p.CacheWrite, p.CacheLifetime = p.CacheWriteLong, p.LongCacheLifetime
	return p, true
}

// perMillion is the unit prices are given in.
const perMillion = 1e6

// Cost returns what a request billed as t costs under p, in US dollars.
func (p Pricing) Cost(t Tokens) (float64, error) {
	if err := p.usable(); err != nil {
		return 0, err
	}
	if err := t.check(); err != nil {
		return 0, err
	}
	return (float64(t.CacheRead)*p.CacheRead + float64(t.CacheWrite)*p.CacheWrite +
		float64(t.Uncached)*p.Input + float64(t.Output)*p.Output) / perMillion, nil
}

// Equivalent returns what a request billed as t costs in base input
// tokens: how many input tokens billed in full would cost as much. It
// compares bills across families whatever their prices.
func (p Pricing) Equivalent(t Tokens) (float64, error) {
	c, err := p.Cost(t)
	if err != nil {
		return 0, err
	}
	return c * perMillion / p.Input, nil
}

// check returns an error wrapping ErrInvalidTokens for a negative count.
func (t Tokens) check() error {
	counts := []struct {
		name string
		n    int
	}{{"CacheRead", t.CacheRead}, {"CacheWrite", t.CacheWrite}, {"Uncached", t.Uncached}, {"Output", t.Output}}
	for _, c := range counts {
		if c.n < 0 {
			return fmt.Errorf("%w: Tokens.%s %d", ErrInvalidTokens, c.name, c.n)
		}
	}
	return nil
}
