package textcut

import (
	"strings"
	"testing"
)

func squashReference(s string) string { return strings.Join(strings.Fields(s), " ") }

func TestSquash(t *testing.T) {
	for _, s := range []string{"", " ", "a", "a b", " a", "a ", "a  b", "a\tb", "a \tb", "\n\va\fb\r ",
		"go test ./...", "x\u00a0y", "x\u0085 y", "é  ü", "a\xffb  c", " \xff ", "00 \xdf"} {
		if got, want := Squash(s), squashReference(s); got != want {
			t.Errorf("Squash(%q) = %q, want %q", s, got, want)
		}
	}
}

func TestSquashLeavesASquashedTextAsIs(t *testing.T) {
	s := strings.Repeat("go test ./... ", 10) + "done"
	if n := testing.AllocsPerRun(10, func() { _ = Squash(s) }); n != 0 {
		t.Errorf("Squash of a squashed text allocates %v times", n)
	}
}

func FuzzSquash(f *testing.F) {
	for _, s := range []string{"", "a  b", " x\ty\n", "\u00a0a", "a\xff  b", "\u3000"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := Squash(s), squashReference(s); got != want {
			t.Errorf("Squash(%q) = %q, want %q", s, got, want)
		}
	})
}
