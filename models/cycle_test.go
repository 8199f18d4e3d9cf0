package models

import (
	"errors"
	"math"
	"testing"
)

func TestCycleCostIsReadingWritingAndCompactingPerRequest(t *testing.T) {
	// 20 requests from 10,000 to 30,000 tokens, each adding 1,000.
	got, err := sonnet.CycleCost(10_000, 30_000, 1_000, 10_000, 5_000)
	if err != nil {
		t.Fatal(err)
	}
	want := 0.1*20_000 + 1.25*1_000 + 1_000*(1.15*10_000+5_000)/20_000
	if !near(got, want) {
		t.Fatalf("CycleCost = %v, want %v", got, want)
	}
	if c, _ := sonnet.CycleCost(10_000, 10_000, 1_000, 0, 0); !math.IsInf(c, 1) {
		t.Fatalf("a cycle that compacts at every request costs %v, want +Inf", c)
	}
	if _, err := sonnet.CycleCost(-1, 10, 1, 0, 0); !errors.Is(err, ErrInvalidTokens) {
		t.Fatalf("a negative size: %v", err)
	}
	if _, err := (Pricing{}).CycleCost(1, 10, 1, 0, 0); !errors.Is(err, ErrUnpriced) {
		t.Fatalf("an unknown price: %v", err)
	}
}

// Spacing is where CycleCost is least: compacting a little earlier or a
// little later costs more per request.
func TestSpacingIsTheCheapestCycle(t *testing.T) {
	for _, p := range []Pricing{sonnet, gpt5} {
		for _, fixed := range []float64{0, 2_000, 20_000} {
			after, growth := 12_000, 600
			d, err := p.Spacing(after, growth, fixed)
			if err != nil || d <= 0 {
				t.Fatalf("Spacing = %v, %v", d, err)
			}
			best, _ := p.CycleCost(after, after+int(d), growth, after, fixed)
			for _, f := range []float64{0.7, 0.9, 1.1, 1.4} {
				other, _ := p.CycleCost(after, after+int(d*f), growth, after, fixed)
				if other < best {
					t.Fatalf("%+v, fixed %v: growing %.0f tokens costs %v a request, %.0f costs less (%v)", p, fixed, d, best, d*f, other)
				}
			}
		}
	}
	if d, _ := sonnet.Spacing(10_000, 600, 0); !near(d, math.Sqrt(2*600*1.15*10_000/0.1)) {
		t.Fatalf("Spacing = %v", d)
	}
	free := sonnet
	free.CacheRead = 0
	if d, _ := free.Spacing(10_000, 600, 0); !math.IsInf(d, 1) {
		t.Fatalf("with free reads, Spacing = %v, want +Inf", d)
	}
	noCache := openAIUncached(10, 30, "test")
	if d, _ := noCache.Spacing(10_000, 600, 0); d != 0 {
		t.Fatalf("without a cache and a free summary, Spacing = %v, want 0", d)
	}
}
