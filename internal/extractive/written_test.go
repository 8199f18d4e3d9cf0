package extractive

import (
	"strings"
	"testing"

	"github.com/contextkit/compact/redact"
)

// A remembered written form is the one written afresh: for the same text at
// another cap, for a text changed in place of one remembered, across the
// generations the memo keeps, and with no memo at all.
func TestWrittenFormsAreNeverStale(t *testing.T) {
	secret := "sk-" + strings.Repeat("a1B2", 12)
	texts := []string{
		"error: build failed at main.go:12",
		"token " + secret + " rejected",
		"error: build failed at main.go:13", // one byte changed
		strings.Repeat("long line of output ", 40),
	}
	for _, w := range []*written{nil, newWritten()} {
		for round := 0; round < 3; round++ {
			for _, s := range texts {
				for _, n := range []int{16, 80, 400} {
					if got, want := w.item(s, n), itemText(s, n); got != want {
						t.Fatalf("item(%q, %d) = %q, want %q", s, n, got, want)
					}
				}
				if got, want := w.str(s), redact.String(s); got != want {
					t.Fatalf("str(%q) = %q, want %q", s, got, want)
				}
			}
		}
	}
	// Past a generation's bound the first texts are forgotten, then written
	// again as they were.
	w := newWritten()
	for i := 0; i < 2*writtenEntries+1; i++ {
		w.str("id-" + strings.Repeat("x", i%7) + string(rune('a'+i%26)) + string(rune(i)))
	}
	for _, s := range texts {
		if got, want := w.str(s), redact.String(s); got != want {
			t.Fatalf("str(%q) after eviction = %q, want %q", s, got, want)
		}
	}
}
