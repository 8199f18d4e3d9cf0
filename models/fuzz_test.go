package models

import (
	"math"
	"strings"
	"testing"
)

// FuzzLookup checks Lookup's contracts on any name: it never panics; a
// family it returns is a table entry, found again under its own name; a
// provider path in front changes nothing; and "-latest" after a name that
// matched (less surrounding space) keeps the match.
func FuzzLookup(f *testing.F) {
	for i := range table {
		f.Add(table[i].name)
		for _, s := range table[i].also {
			f.Add(s + "-20250101")
		}
	}
	for _, s := range []string{"", "/", "ft:", "us.anthropic.", "gpt-4o:8b@x", "claude-opus-4-1", "qwen3:8b", "a.b.c"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		m, ok := Lookup(name)
		if !ok {
			if m != (Model{}) {
				t.Fatalf("Lookup(%q) = %+v with ok false", name, m)
			}
		} else {
			again, ok := Lookup(m.Name)
			if !ok || again != m {
				t.Fatalf("Lookup(%q) = %s, but Lookup(%q) = %+v, %v", name, m.Name, m.Name, again, ok)
			}
		}
		if strings.Contains(name, "/") {
			return
		}
		if p, pok := Lookup("openrouter/" + name); p != m || pok != ok {
			t.Fatalf("Lookup(%q) = %q, %v but with a provider path %q, %v", name, m.Name, ok, p.Name, pok)
		}
		if ok {
			latest := strings.TrimSpace(name) + "-latest"
			if l, lok := Lookup(latest); !lok || l != m {
				t.Fatalf("Lookup(%q) = %q but Lookup(%q) = %q, %v", name, m.Name, latest, l.Name, lok)
			}
		}
	})
}

// FuzzPricing checks the billing arithmetic's contracts on any prices and
// counts: it never panics; invalid prices and negative counts are refused;
// otherwise a cost is finite and not negative, grows with every count,
// and Equivalent prices uncached input at one token each.
func FuzzPricing(f *testing.F) {
	f.Add(3.0, 0.3, 3.75, 15.0, 60_000, 2_000, 10, 500)
	f.Add(1.25, 0.125, 1.25, 10.0, 0, 0, 0, 0)
	f.Add(-1.0, 0.0, 0.0, 0.0, 1, 1, 1, 1)
	f.Add(1.0, 0.0, 0.0, 0.0, -1, 1, 1, 1)
	f.Fuzz(func(t *testing.T, input, read, write, output float64, nRead, nWrite, nUncached, nOut int) {
		p := Pricing{Input: input, CacheRead: read, CacheWrite: write, Output: output}
		tok := Tokens{CacheRead: nRead, CacheWrite: nWrite, Uncached: nUncached, Output: nOut}
		c, err := p.Cost(tok)
		valid := p.Check() == nil && p.Known()
		negative := nRead < 0 || nWrite < 0 || nUncached < 0 || nOut < 0
		if !valid || negative {
			if err == nil {
				t.Fatalf("Cost(%+v) under %+v = %v with no error", tok, p, c)
			}
			return
		}
		if err != nil || c < 0 || math.IsNaN(c) || math.IsInf(c, 0) && !overflows(p, tok) {
			t.Fatalf("Cost(%+v) under %+v = %v, %v", tok, p, c, err)
		}
		more := tok
		more.Uncached++
		if c2, _ := p.Cost(more); c2 < c {
			t.Fatalf("one more token made the cost fall: %v < %v", c2, c)
		}
		if e, _ := p.Equivalent(Tokens{Uncached: 1000}); p.Input > 1e-200 && p.Input < 1e200 && math.Abs(e-1000) > 1e-6 {
			t.Fatalf("1000 uncached tokens are %v base input tokens", e)
		}
	})
}

// overflows reports whether the cost of tok under p may be too large for
// a float64, so an infinite cost is the right answer: a price past 1e280
// times a count up to 1e19 may pass the largest float64.
func overflows(p Pricing, _ Tokens) bool {
	return max(p.Input, p.CacheRead, p.CacheWrite, p.Output) > 1e280
}
