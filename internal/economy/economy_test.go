package economy

import (
	"errors"
	"math"
	"testing"

	"github.com/contextkit/compact/models"
)

// The prices of two families, from the table: Anthropic's, whose cache
// writes cost 1.25 times input and reads 0.1, and OpenAI's, whose writes
// cost input and reads 0.1.
var (
	sonnet = lookup("claude-sonnet-4-5")
	gpt5   = lookup("gpt-5")
)

func lookup(name string) models.Pricing {
	m, _ := models.Lookup(name)
	return m.Pricing
}

// near reports whether a and b agree to a part in a billion.
func near(a, b float64) bool {
	return a == b || math.Abs(a-b) <= 1e-9*math.Max(math.Abs(a), math.Abs(b))
}

func TestBreakEvenIsTheRewriteOverTheSavingPerRequest(t *testing.T) {
	long, _ := sonnet.Long()
	noCache := models.Pricing{Input: 10, CacheRead: 10, CacheWrite: 10, Output: 30}
	tests := []struct {
		name               string
		p                  models.Pricing
		rewritten, cleared int
		want               float64
	}{
		// (1.25 - 0.1) * 137,000 / (0.1 * 6,000) = 262.58...
		{"re-billing 137k to clear 6k pays back after 263 requests", sonnet, 137_000, 6_000, 1.15 * 137_000 / 600},
		{"clearing as much as is rewritten pays back in 11.5", sonnet, 10_000, 10_000, 11.5},
		{"the hour-long cache writes at twice the price", long, 10_000, 10_000, 19},
		{"OpenAI's free writes pay back in 9", gpt5, 10_000, 10_000, 9},
		{"an edit at the very end rewrites nothing", sonnet, 0, 5_000, 0},
		{"without a cache an edit costs nothing extra", noCache, 100_000, 1, 0},
		{"an edit that clears nothing never pays back", sonnet, 5_000, 0, math.Inf(1)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := BreakEven(tt.p, tt.rewritten, tt.cleared)
			if err != nil || !near(got, tt.want) {
				t.Fatalf("BreakEven(%d, %d) = %v, %v; want %v", tt.rewritten, tt.cleared, got, err, tt.want)
			}
		})
	}
}

func TestCycleCostIsReadingWritingAndCompactingPerRequest(t *testing.T) {
	// 20 requests from 10,000 to 30,000 tokens, each adding 1,000.
	got, err := CycleCost(sonnet, 10_000, 30_000, 1_000, 10_000, 5_000)
	if err != nil {
		t.Fatal(err)
	}
	want := 0.1*20_000 + 1.25*1_000 + 1_000*(1.15*10_000+5_000)/20_000
	if !near(got, want) {
		t.Fatalf("CycleCost = %v, want %v", got, want)
	}
	if c, _ := CycleCost(sonnet, 10_000, 10_000, 1_000, 0, 0); !math.IsInf(c, 1) {
		t.Fatalf("a cycle that compacts at every request costs %v, want +Inf", c)
	}
	if _, err := CycleCost(sonnet, -1, 10, 1, 0, 0); !errors.Is(err, models.ErrInvalidTokens) {
		t.Fatalf("a negative size: %v", err)
	}
	if _, err := CycleCost(models.Pricing{}, 1, 10, 1, 0, 0); !errors.Is(err, models.ErrUnpriced) {
		t.Fatalf("an unknown price: %v", err)
	}
}

// Spacing is where CycleCost is least: compacting a little earlier or a
// little later costs more per request.
func TestSpacingIsTheCheapestCycle(t *testing.T) {
	for _, p := range []models.Pricing{sonnet, gpt5} {
		for _, fixed := range []float64{0, 2_000, 20_000} {
			after, growth := 12_000, 600
			d, err := Spacing(p, after, growth, fixed)
			if err != nil || d <= 0 {
				t.Fatalf("Spacing = %v, %v", d, err)
			}
			best, _ := CycleCost(p, after, after+int(d), growth, after, fixed)
			for _, f := range []float64{0.7, 0.9, 1.1, 1.4} {
				other, _ := CycleCost(p, after, after+int(d*f), growth, after, fixed)
				if other < best {
					t.Fatalf("%+v, fixed %v: growing %.0f tokens costs %v a request, %.0f costs less (%v)", p, fixed, d, best, d*f, other)
				}
			}
		}
	}
	if d, _ := Spacing(sonnet, 10_000, 600, 0); !near(d, math.Sqrt(2*600*1.15*10_000/0.1)) {
		t.Fatalf("Spacing = %v", d)
	}
	free := sonnet
	free.CacheRead = 0
	if d, _ := Spacing(free, 10_000, 600, 0); !math.IsInf(d, 1) {
		t.Fatalf("with free reads, Spacing = %v, want +Inf", d)
	}
	noCache := models.Pricing{Input: 10, CacheRead: 10, CacheWrite: 10, Output: 30}
	if d, _ := Spacing(noCache, 10_000, 600, 0); d != 0 {
		t.Fatalf("without a cache and a free summary, Spacing = %v, want 0", d)
	}
}

// FuzzSpacing: for any sizes and prices, Spacing and CycleCost are never
// negative or NaN, and no cycle is cheaper than the one Spacing gives.
func FuzzSpacing(f *testing.F) {
	f.Add(12_000, 600, 2_000.0, 1.25, 0.1)
	f.Add(0, 0, 0.0, 1.0, 1.0)
	f.Fuzz(func(t *testing.T, after, growth int, fixed, write, read float64) {
		p := models.Pricing{Input: 1, CacheRead: read, CacheWrite: write, Output: 1}
		if p.Check() != nil || after < 0 || growth < 0 || after > 1<<30 || growth > 1<<20 || !(fixed >= 0) || fixed > 1e9 {
			return
		}
		d, err := Spacing(p, after, growth, fixed)
		if err != nil || math.IsNaN(d) || d < 0 {
			t.Fatalf("Spacing(%d, %d, %v) = %v, %v", after, growth, fixed, d, err)
		}
		if math.IsInf(d, 1) || d < 100 || d > 1<<30 { // under 100 tokens, whole tokens round the cycle off
			return
		}
		best, err := CycleCost(p, after, after+int(d), growth, after, fixed)
		if err != nil || math.IsNaN(best) || best < 0 {
			t.Fatalf("CycleCost = %v, %v", best, err)
		}
		for _, f := range []float64{0.5, 2} {
			if other, _ := CycleCost(p, after, after+int(d*f), growth, after, fixed); other < best*(1-1e-9) {
				t.Fatalf("%+v: spacing %v costs %v, %v costs %v", p, d, best, d*f, other)
			}
		}
	})
}

// The arithmetic refuses an unknown price and an invalid one, and a
// negative count.
func TestTheArithmeticRefusesUnknownAndInvalidPrices(t *testing.T) {
	for _, tt := range []struct {
		p    models.Pricing
		want error
	}{
		{models.Pricing{}, models.ErrUnpriced},
		{models.Pricing{Input: 1, CacheRead: -0.1}, models.ErrInvalidPrice},
	} {
		if _, err := BreakEven(tt.p, 1, 1); !errors.Is(err, tt.want) {
			t.Fatalf("BreakEven under %+v: %v; want %v", tt.p, err, tt.want)
		}
		if _, err := Spacing(tt.p, 1, 1, 0); !errors.Is(err, tt.want) {
			t.Fatalf("Spacing under %+v: %v; want %v", tt.p, err, tt.want)
		}
	}
	if _, err := BreakEven(sonnet, -1, 5); !errors.Is(err, models.ErrInvalidTokens) {
		t.Fatalf("BreakEven(-1, 5): %v; want ErrInvalidTokens", err)
	}
}

// The figures the models package's examples showed: clearing 6,000
// tokens pays back the rewrite of 137,000 after 263 requests at Anthropic
// and 206 at OpenAI, and the cheapest spacing past 12,000 tokens at 600 a
// request.
func TestTheTablesFigures(t *testing.T) {
	for _, tt := range []struct {
		p          models.Pricing
		payback    float64
		free, paid float64
	}{
		{sonnet, 263, 12869, 20140},
		{gpt5, 206, 11384, 19225},
	} {
		n, err := BreakEven(tt.p, 137_000, 6_000)
		if err != nil || math.Ceil(n) != tt.payback {
			t.Fatalf("BreakEven = %v, %v; want %v", n, err, tt.payback)
		}
		free, _ := Spacing(tt.p, 12_000, 600, 0)
		paid, _ := Spacing(tt.p, 12_000, 600, 20_000)
		if math.Round(free) != tt.free || math.Round(paid) != tt.paid {
			t.Fatalf("Spacing = %v, %v; want %v, %v", free, paid, tt.free, tt.paid)
		}
	}
}
