package models

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"
)

// sonnet and gpt5 are the two price tables the tests reason with: a cache
// that charges for writes and one that does not.
var (
	sonnet = anthropicPrice(3, 3.75, 6, 0.30, 15, 1024)
	gpt5   = openAIPrice(1.25, 0.125, 10, "test")
)

// near reports whether a and b agree to a part in a billion.
func near(a, b float64) bool {
	return a == b || math.Abs(a-b) <= 1e-9*math.Max(math.Abs(a), math.Abs(b))
}

func TestCostBillsEachKindOfTokenAtItsPrice(t *testing.T) {
	tests := []struct {
		name    string
		p       Pricing
		tok     Tokens
		dollars float64
		equiv   float64 // base input tokens
	}{
		{"a million uncached input tokens cost the input price", sonnet, Tokens{Uncached: 1_000_000}, 3, 1_000_000},
		{"a read costs a tenth", sonnet, Tokens{CacheRead: 1_000_000}, 0.30, 100_000},
		{"an Anthropic write costs a quarter more", sonnet, Tokens{CacheWrite: 1_000_000}, 3.75, 1_250_000},
		{"output costs the output price", sonnet, Tokens{Output: 1_000_000}, 15, 5_000_000},
		{"a request of every kind adds them up",
			sonnet, Tokens{CacheRead: 60_000, CacheWrite: 2_000, Uncached: 10, Output: 500},
			(60_000*0.30 + 2_000*3.75 + 10*3 + 500*15) / 1e6, 60_000*0.1 + 2_000*1.25 + 10 + 500*5},
		{"an OpenAI write costs the input price", gpt5, Tokens{CacheWrite: 1_000_000}, 1.25, 1_000_000},
		{"an OpenAI read costs a tenth", gpt5, Tokens{CacheRead: 200_000, CacheWrite: 800}, (200_000*0.125 + 800*1.25) / 1e6, 20_800},
		{"nothing costs nothing", gpt5, Tokens{}, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.p.Cost(tt.tok)
			if err != nil || !near(got, tt.dollars) {
				t.Fatalf("Cost(%+v) = %v, %v; want %v", tt.tok, got, err, tt.dollars)
			}
			eq, err := tt.p.Equivalent(tt.tok)
			if err != nil || !near(eq, tt.equiv) {
				t.Fatalf("Equivalent(%+v) = %v, %v; want %v", tt.tok, eq, err, tt.equiv)
			}
		})
	}
}

func TestTheArithmeticRefusesUnknownAndInvalidPrices(t *testing.T) {
	tests := []struct {
		name  string
		p     Pricing
		tok   Tokens
		want  error
		field string // the PriceError's field, if any
	}{
		{"an unknown price", Pricing{}, Tokens{Uncached: 1}, ErrUnpriced, ""},
		{"a negative read price", Pricing{Input: 1, CacheRead: -0.1}, Tokens{}, ErrInvalidPrice, "CacheRead"},
		{"a NaN output price", Pricing{Input: 1, Output: math.NaN()}, Tokens{}, ErrInvalidPrice, "Output"},
		{"an infinite write price", Pricing{Input: 1, CacheWrite: math.Inf(1)}, Tokens{}, ErrInvalidPrice, "CacheWrite"},
		{"an infinite input price", Pricing{Input: math.Inf(1)}, Tokens{}, ErrInvalidPrice, "Input"},
		{"a negative long write price", Pricing{Input: 1, CacheWriteLong: -2}, Tokens{}, ErrInvalidPrice, "CacheWriteLong"},
		{"prices without an input price", Pricing{Output: 4}, Tokens{}, ErrInvalidPrice, "Input"},
		{"a negative token count", sonnet, Tokens{Output: -1}, ErrInvalidTokens, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := tt.p.Cost(tt.tok); !errors.Is(err, tt.want) {
				t.Fatalf("Cost: %v; want %v", err, tt.want)
			}
			if _, err := tt.p.Equivalent(tt.tok); !errors.Is(err, tt.want) {
				t.Fatalf("Equivalent: %v; want %v", err, tt.want)
			}
			if tt.field == "" {
				return
			}
			var pe *PriceError
			if err := tt.p.Check(); !errors.As(err, &pe) || pe.Field != tt.field || !strings.Contains(err.Error(), tt.field) {
				t.Fatalf("Check() = %v; want a PriceError naming %s", err, tt.field)
			}
		})
	}
}

func TestLongSwapsInTheHourLongWrite(t *testing.T) {
	long, ok := sonnet.Long()
	if !ok || long.CacheWrite != 6 || long.CacheLifetime != time.Hour || long.CacheRead != sonnet.CacheRead {
		t.Fatalf("Long() = %+v, %v", long, ok)
	}
	if same, ok := gpt5.Long(); ok || same != gpt5 {
		t.Fatalf("Long() of a family with one lifetime = %+v, %v; want it unchanged, false", same, ok)
	}
}

// Every price in the table is valid and cited, belongs to a family of the
// table, and follows its provider's published rule: Anthropic writes at
// 1.25 times the input price (twice for an hour) and reads at a tenth;
// OpenAI writes at the input price and reads at a tenth to a half of it.
func TestEveryPriceIsSoundAndCited(t *testing.T) {
	seen := map[string]bool{}
	for _, pr := range prices {
		if seen[pr.family] {
			t.Errorf("%s is priced twice", pr.family)
		}
		seen[pr.family] = true
		m, ok := Lookup(pr.family)
		if !ok || m.Name != pr.family {
			t.Errorf("price for %q, which is not a family of the table", pr.family)
			continue
		}
		p := m.Pricing
		if err := p.Check(); err != nil || !p.Known() {
			t.Errorf("%s: %v", pr.family, err)
		}
		if !strings.Contains(p.Source, "https://") || !strings.Contains(p.CacheSource, "https://") {
			t.Errorf("%s: sources %q, %q cite no page", pr.family, p.Source, p.CacheSource)
		}
		r, w := p.CacheRead/p.Input, p.CacheWrite/p.Input
		switch {
		case m.Provider == "anthropic":
			if !near(w, 1.25) || !near(p.CacheWriteLong/p.Input, 2) || !near(r, 0.1) ||
				p.CacheLifetime != 5*time.Minute || p.LongCacheLifetime != time.Hour {
				t.Errorf("%s: %+v does not follow Anthropic's cache rule", pr.family, p)
			}
		case m.Provider == "openai" && p.CacheLifetime > 0:
			if w != 1 || r < 0.1-1e-9 || r > 0.5+1e-9 || p.MinCachePrefix != 1024 {
				t.Errorf("%s: %+v does not follow OpenAI's cache rule", pr.family, p)
			}
		case m.Provider == "openai":
			if r != 1 || w != 1 || p.MinCachePrefix != 0 {
				t.Errorf("%s: %+v, a family without a cache, bills input other than in full", pr.family, p)
			}
		default:
			t.Errorf("%s: no rule for %s's prices", pr.family, m.Provider)
		}
	}
}
