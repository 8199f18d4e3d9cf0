package extractive

import (
	"strings"
	"testing"

	"github.com/contextkit/compact/internal/textcut"
)

// FuzzSquashedLabel holds squashedLabel to what it stands for: the whole
// text squashed, then cut in the middle.
func FuzzSquashedLabel(f *testing.F) {
	long := strings.Repeat("word  \t", 40)
	for _, s := range []string{
		"", "ls", "  a  b  ", long, " " + long + "x", long + "é", "cat > f <<EOF\n" + long + "\nEOF\n",
		strings.Repeat("x", 200), strings.Repeat("ab ", 41) + " ", strings.Repeat(" a", 61) + "  ",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want := textcut.Middle(textcut.Squash(s), maxRunLabel, textcut.InBytes, textcut.TwoThirds, shortenMark)
		if got := squashedLabel(s); got != want {
			t.Fatalf("squashedLabel(%q) = %q, want %q", s, got, want)
		}
	})
}

func TestSquashedEnds(t *testing.T) {
	for _, s := range []string{"", " ", "a", " a  b\t\nc ", strings.Repeat("ab  c ", 30)} {
		sq := textcut.Squash(s)
		n, ascii := squashedLen(s)
		if !ascii || n != len(sq) {
			t.Errorf("squashedLen(%q) = %d, %v; want %d", s, n, ascii, len(sq))
		}
		for _, k := range []int{0, 1, 2, 5, 60, 1000} {
			if got, want := squashedHead(s, k), sq[:min(k, len(sq))]; got != want {
				t.Errorf("squashedHead(%q, %d) = %q, want %q", s, k, got, want)
			}
			if got, want := squashedTail(s, k), sq[len(sq)-min(k, len(sq)):]; got != want {
				t.Errorf("squashedTail(%q, %d) = %q, want %q", s, k, got, want)
			}
		}
	}
}
