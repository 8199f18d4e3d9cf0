package promptsize

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// runes counts characters as utf8.RuneCountInString does, valid UTF-8 or
// not, on every length around the eight bytes it reads at a time.
func TestRunesCountsAsTheStandardLibrary(t *testing.T) {
	for _, base := range []string{"", "a", "é", "日本語", "\xff", "a\xe2\x82", "𝄞x", "\xc3\xa9\xc3", "plain ascii text"} {
		for n := 0; n < 20; n++ {
			s := strings.Repeat(base, n) + base[:len(base)/2]
			if got, want := runes(s), utf8.RuneCountInString(s); got != want {
				t.Fatalf("runes(%q) = %d, want %d", s, got, want)
			}
		}
	}
}

func FuzzRunes(f *testing.F) {
	f.Add("héllo wörld, 日本語 \xff\xfe")
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := runes(s), utf8.RuneCountInString(s); got != want {
			t.Fatalf("runes(%q) = %d, want %d", s, got, want)
		}
	})
}

// keptChars is what the rendering keeps of a text in characters: all of
// it, or the cap when the text is longer.
func FuzzKeptChars(f *testing.F) {
	f.Add("héllo wörld, 日本語 \xff\xfe", 5)
	f.Fuzz(func(t *testing.T, s string, limit int) {
		limit = limit%64 - 1
		want := utf8.RuneCountInString(s)
		if limit >= 0 {
			want = min(want, limit)
		}
		if got := keptChars(s, limit); got != want {
			t.Fatalf("keptChars(%q, %d) = %d, want %d", s, limit, got, want)
		}
	})
}
