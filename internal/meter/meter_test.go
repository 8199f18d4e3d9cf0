package meter

import (
	"testing"
	"time"

	"github.com/contextkit/compact/internal/economy"
	"github.com/contextkit/compact/models"
)

var (
	t0     = time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	sonnet = func() models.Pricing { m, _ := models.Lookup("claude-sonnet-4-5"); return m.Pricing }()
)

// The growth per request starts at DefaultGrowth and moves toward what
// the reports show, never counting across a compaction.
func TestGrowthLearnsFromConsecutiveReports(t *testing.T) {
	var m Meter
	if g := m.Growth(); g != DefaultGrowth {
		t.Fatalf("before any report: %d", g)
	}
	for i, prompt := range []int{1_000, 3_000, 5_000, 7_000, 9_000, 11_000, 13_000, 15_000, 17_000} {
		m.Report(models.Tokens{Uncached: prompt}, prompt, t0.Add(time.Duration(i)*time.Minute))
	}
	if g := m.Growth(); g != (DefaultGrowth*growthPriorWeight+8*2_000)/(growthPriorWeight+8) {
		t.Fatalf("after eight steps of 2,000: %d", g)
	}
	before := m.Growth()
	m.Compacted(Summary, "", 4_000, models.Tokens{}, sonnet)
	m.Report(models.Tokens{Uncached: 4_500}, 4_500, t0.Add(time.Hour))
	if g := m.Growth(); g != before {
		t.Fatalf("the drop across a compaction moved the growth: %d, was %d", g, before)
	}
	if got := m.Spend(sonnet); got.Requests != 10 || got.Compactions[Summary] != 1 {
		t.Fatalf("spend %+v", got)
	}
}

// The cache is cold once the last report is older than its lifetime.
func TestColdAfterTheCacheLifetime(t *testing.T) {
	var m Meter
	if m.Cold(sonnet, t0) {
		t.Fatal("cold before any request")
	}
	m.Report(models.Tokens{}, 1_000, t0)
	if m.Cold(sonnet, t0.Add(sonnet.CacheLifetime)) {
		t.Fatal("cold at the end of the lifetime")
	}
	if !m.Cold(sonnet, t0.Add(sonnet.CacheLifetime+time.Second)) {
		t.Fatal("warm past the lifetime")
	}
	if m.Cold(models.Pricing{Input: 1}, t0.Add(time.Hour)) {
		t.Fatal("a family without a cache is never cold")
	}
}

func TestDueSaysWhy(t *testing.T) {
	var m Meter
	m.Compacted(Summary, "", 10_000, models.Tokens{}, sonnet)
	tests := []struct {
		name       string
		n, trigger int
		cold       bool
		due        bool
		why        string
	}{
		{"at the threshold", 90_000, 90_000, false, true, ""},
		{"at an earlier trigger", 30_000, 30_000, false, true, Economy},
		{"under it, warm", 29_999, 30_000, false, false, ""},
		{"half-way there, cold", 20_000, 30_000, true, true, Idle},
		{"not half-way, cold", 19_999, 30_000, true, false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			due, why := m.Due(tt.n, 90_000, tt.trigger, tt.cold)
			if due != tt.due || why != tt.why {
				t.Fatalf("Due(%d) = %v, %q; want %v, %q", tt.n, due, why, tt.due, tt.why)
			}
		})
	}
}

// The trigger is the spacing past what a compaction leaves, at least
// minSpacing, never past the threshold.
func TestTriggerIsTheSpacingWithinBounds(t *testing.T) {
	var m Meter
	d, _ := economy.Spacing(sonnet, 12_000, DefaultGrowth, 0)
	if got := m.Trigger(sonnet, 90_000, 12_000, 0); got != 12_000+int(d) {
		t.Fatalf("Trigger = %d, want %d", got, 12_000+int(d))
	}
	if got := m.Trigger(sonnet, 20_000, 12_000, 0); got != 20_000 {
		t.Fatalf("never past the threshold: %d", got)
	}
	noCache := models.Pricing{Input: 1, CacheRead: 1, CacheWrite: 1}
	if got := m.Trigger(noCache, 90_000, 12_000, 0); got != 12_000+minSpacing {
		t.Fatalf("a free compaction still waits minSpacing: %d", got)
	}
	if got := m.Trigger(models.Pricing{}, 90_000, 12_000, 0); got != 90_000 {
		t.Fatalf("without prices, the threshold: %d", got)
	}
}

// A reset keeps the bill and forgets the rest.
func TestKeepKeepsTheBill(t *testing.T) {
	var m Meter
	m.Report(models.Tokens{CacheRead: 5}, 5_000, t0)
	m.Compacted(Prune, "", 3_000, models.Tokens{}, sonnet)
	k := m.Keep()
	if k.Spend(sonnet).Requests != 1 || k.After(7) != 7 || k.Cold(sonnet, t0.Add(time.Hour)) {
		t.Fatalf("Keep = %+v", k)
	}
}

// The typical growth is the median of the latest steps among the prior:
// one huge step moves the mean but not the median.
func TestTypicalGrowthIgnoresOneHugeStep(t *testing.T) {
	var m Meter
	if g := m.TypicalGrowth(); g != DefaultGrowth {
		t.Fatalf("before any report: %d", g)
	}
	prompt := 1_000
	for i, step := range []int{300, 88_000, 300, 300, 300, 300} {
		m.Report(models.Tokens{}, prompt, t0.Add(time.Duration(i)*time.Minute))
		prompt += step
	}
	m.Report(models.Tokens{}, prompt, t0.Add(time.Hour))
	if g := m.Growth(); g < 5_000 {
		t.Fatalf("the mean takes the huge step in: %d", g)
	}
	if g := m.TypicalGrowth(); g != 300 {
		t.Fatalf("typical growth %d, want 300", g)
	}
	for i := range 2 * typicalSteps {
		m.Report(models.Tokens{}, prompt, t0.Add(2*time.Hour+time.Duration(i)*time.Minute))
		prompt += 1_000
	}
	if g := m.TypicalGrowth(); g != 1_000 {
		t.Fatalf("only the latest steps count: %d", g)
	}
}
