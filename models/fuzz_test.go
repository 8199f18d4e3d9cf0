package models

import (
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
