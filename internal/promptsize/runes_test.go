package promptsize

import (
	"testing"
	"unicode/utf8"
)

// keptChars is what the rendering keeps of a text in characters: all of
// it, or the cap when the text is longer. (textcut tests the count.)
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
