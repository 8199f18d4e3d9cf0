package searchpart

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// Every text of up to Overlap+1 bytes of a long text, wherever it starts,
// is whole in one piece; the pieces cover the text in order, start and end
// at runes, and are at most Size bytes but for a rune's widening and the
// last.
func TestSplitKeepsEveryShortTextWholeInAPiece(t *testing.T) {
	for _, text := range []string{
		"short",
		strings.Repeat("x", Size),
		strings.Repeat("abcdefg ", 3*Size/8+5),
		strings.Repeat("é🦀x", 3*Size/7),
		strings.Repeat("a\xffb", Size),
	} {
		parts, sp := Split(text, 1<<20), spans(text, 1<<20)
		if len(text) <= Size && (len(parts) != 1 || parts[0] != text) {
			t.Fatalf("Split of %d bytes = %d pieces, want the text", len(text), len(parts))
		}
		for i, p := range parts {
			if p != text[sp[i][0]:sp[i][1]] {
				t.Fatalf("%d bytes: piece %d is not the text's [%d, %d)", len(text), i, sp[i][0], sp[i][1])
			}
			if i > 0 && (sp[i][0] <= sp[i-1][0] || sp[i][0] > sp[i-1][1]) {
				t.Fatalf("%d bytes: piece %d starts at %d, after piece %d's [%d, %d)", len(text), i, sp[i][0], i-1, sp[i-1][0], sp[i-1][1])
			}
			if utf8.ValidString(text) && !utf8.ValidString(p) {
				t.Fatalf("%d bytes: piece %d cuts a rune", len(text), i)
			}
			if i < len(parts)-1 && len(p) > Size+2*utf8.UTFMax {
				t.Fatalf("%d bytes: piece %d is %d bytes", len(text), i, len(p))
			}
		}
		if last := sp[len(sp)-1][1]; sp[0][0] != 0 || last != len(text) {
			t.Fatalf("%d bytes: the pieces cover [%d, %d)", len(text), sp[0][0], last)
		}
		for a := 0; a < len(text); a++ {
			b := min(a+Overlap+1, len(text))
			whole := false
			for i, p := range parts {
				if sp[i][0] <= a && b <= sp[i][0]+len(p) {
					whole = true
					break
				}
			}
			if !whole {
				t.Fatalf("%d bytes: [%d, %d) is in no piece whole", len(text), a, b)
			}
		}
	}
}

// The window is the text, or a prefix of it at most a quarter of the
// overlap long, cut at a rune; the folded window, at most the overlap.
func TestWindow(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{"keyerror: ", "keyerror: "},
		{strings.Repeat("a", 100), strings.Repeat("a", Overlap/4)},
		{strings.Repeat("a", Overlap/4-1) + "é tail", strings.Repeat("a", Overlap/4-1)},
	} {
		if got := Window(c.text); got != c.want {
			t.Errorf("Window(%.20q...) = %q, want %q", c.text, got, c.want)
		}
		if got, want := FoldedWindow(c.text+strings.Repeat("b", Overlap)), (c.text + strings.Repeat("b", Overlap))[:Overlap]; got != want {
			t.Errorf("FoldedWindow(%.20q...) = %.20q..., want %.20q...", c.text, got, want)
		}
	}
}

// At most max pieces: the last holds the rest of the text.
func TestSplitStopsAtMax(t *testing.T) {
	text := strings.Repeat("abcdefg ", 4*Size)
	parts := Split(text, 3)
	if len(parts) != 3 || !strings.HasSuffix(text, parts[2]) || len(parts[2]) <= Size {
		t.Fatalf("Split(%d bytes, 3) = %d pieces, the last %d bytes", len(text), len(parts), len(parts[len(parts)-1]))
	}
	if parts := Split(text, 1); len(parts) != 1 || parts[0] != text {
		t.Fatalf("Split(%d bytes, 1) = %d pieces, want the text", len(text), len(parts))
	}
}
