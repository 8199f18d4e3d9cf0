package extractive

import (
	"strings"
	"testing"

	"github.com/contextkit/compact/internal/textcut"
)

// strongCues and weakCues are the phrases cueStrength's tables file by
// their first byte, as first written.
var (
	strongCues = [...]string{"decided", "decide to", "instead", "because", "the fix is", "root cause"}
	weakCues   = [...]string{"i'll", "i will", "let's", "we'll", "we will"}
)

// containsWord reports whether s holds w with no word byte on either side.
func containsWord(s, w string) bool {
	for off := 0; ; {
		k := strings.Index(s[off:], w)
		if k < 0 {
			return false
		}
		k += off
		end := k + len(w)
		if (k == 0 || !textcut.IsWordByte(s[k-1])) && (end == len(s) || !textcut.IsWordByte(s[end])) {
			return true
		}
		off = k + 1
	}
}

// decisionStrengthByLower and isAbbrevByLower are decisionStrength and
// isAbbrev as they were written first, over a lower-cased copy: the
// references the allocation-free forms are held to.
func decisionStrengthByLower(sentence string) int {
	s := strings.ToLower(strings.ReplaceAll(sentence, "’", "'"))
	for _, c := range strongCues {
		if containsWord(s, c) {
			return 2
		}
	}
	for _, c := range weakCues {
		if containsWord(s, c) {
			return 1
		}
	}
	return 0
}

func isAbbrevByLower(s string) bool {
	l := strings.ToLower(s)
	return strings.HasSuffix(l, "e.g") || strings.HasSuffix(l, "i.e") || strings.HasSuffix(l, " vs")
}

var cueSamples = []string{
	"I'll fix the parser because it drops the last line.",
	"İ'll do it", "İ.e", "x İ.E", "E.G", "e.g", "a VS", "aVS", "i.e", "I.e", "x.e", "\xc4\xb0.e",
	"We decided to keep the old API instead of the new one.",
	"Let’s run the tests again before we commit anything.",
	"LET’S go", "the fix is", "The Fix Is simple", "rootcause", "root causes", "root cause.",
	"\u212aeep it because", "because\u0130", "xbecause", "be\xffcause", "‘I’ll’", "I’ll", "WE WILL",
	"we’ll see whether instead_of works", "instead—we", "Ünstead", "i will\u0301",
	strings.Repeat("a", maxDecisionLen) + " because", strings.Repeat("é", 300) + " because",
}

// TestCuesMatchTheReference holds decisionStrength and isAbbrev to their
// lower-casing forms on samples and on every prefix of them.
func TestCuesMatchTheReference(t *testing.T) {
	for _, s := range cueSamples {
		for i := 0; i <= len(s); i++ {
			checkCues(t, s[:i])
			checkCues(t, s[i:])
		}
	}
}

func checkCues(t *testing.T, s string) {
	t.Helper()
	if got, want := decisionStrength(s), decisionStrengthByLower(s); got != want {
		t.Fatalf("decisionStrength(%q) = %d, want %d", s, got, want)
	}
	if got, want := isAbbrev(s), isAbbrevByLower(s); got != want {
		t.Fatalf("isAbbrev(%q) = %v, want %v", s, got, want)
	}
}

// FuzzDecisionCues holds decisionStrength and isAbbrev to their
// lower-casing forms.
func FuzzDecisionCues(f *testing.F) {
	for _, s := range cueSamples {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) { checkCues(t, s) })
}

// TestCueTablesHoldEveryCue checks that cueStrength's tables hold the
// cues and no others, each under the first byte that files it.
func TestCueTablesHoldEveryCue(t *testing.T) {
	want := map[string]int{}
	for _, c := range strongCues {
		want[c] = 2
	}
	for _, c := range weakCues {
		want[c] = 1
	}
	got := map[string]int{}
	for _, c := range dCues {
		got[c.text] = c.strength
		if c.text[0] != 'd' {
			t.Errorf("%q filed under d", c.text)
		}
	}
	for _, c := range iCues {
		got[c.text] = c.strength
		if c.text[0] != 'i' {
			t.Errorf("%q filed under i", c.text)
		}
	}
	for _, c := range otherCues {
		got[c.text] = c.strength
		if !strings.ContainsRune("btrlw", rune(c.text[0])) {
			t.Errorf("%q filed under btrlw", c.text)
		}
	}
	if len(got) != len(want) {
		t.Fatalf("tables hold %v, want %v", got, want)
	}
	for c, n := range want {
		if got[c] != n {
			t.Errorf("%q: strength %d, want %d", c, got[c], n)
		}
	}
}
