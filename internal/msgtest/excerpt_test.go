package msgtest

import (
	"strings"
	"testing"
)

func TestExcerptQuotesShortValuesWholeAndCutsLongOnes(t *testing.T) {
	if got := Excerpt("short"); got != `"short"` {
		t.Errorf("Excerpt(short) = %s", got)
	}
	got := Excerpt([]byte(strings.Repeat("é", 1000)))
	if !strings.HasSuffix(got, "... (2000 bytes)") || len(got) > excerptBytes+40 {
		t.Errorf("Excerpt of 2000 bytes is %d bytes: %.80s...", len(got), got)
	}
}

func TestDifferenceNamesTheFirstDifferingByteWithABoundedWindow(t *testing.T) {
	if got := Difference("same", "same"); got != "" {
		t.Errorf("Difference of equal values = %q", got)
	}
	a := strings.Repeat("x", 5000) + "A" + strings.Repeat("y", 5000)
	b := strings.Repeat("x", 5000) + "B" + strings.Repeat("y", 5000)
	got := Difference(a, b)
	for _, want := range []string{"byte 5000 (of 10001 and 10001)", "xA", "xB"} {
		if !strings.Contains(got, want) {
			t.Errorf("Difference does not say %q:\n%s", want, got)
		}
	}
	if len(got) > 3*excerptBytes {
		t.Errorf("Difference of two 10 KB values is %d bytes", len(got))
	}
	if got := Difference("ab", "abc"); !strings.Contains(got, "byte 2 (of 2 and 3)") {
		t.Errorf("Difference(ab, abc) = %s", got)
	}
}

func TestAroundQuotesABoundedWindowWhereTheTextOccurs(t *testing.T) {
	long := strings.Repeat("x", 5000) + "SECRET" + strings.Repeat("y", 5000)
	got := Around(long, "SECRET")
	if !strings.Contains(got, "at byte 5000 of 10006") || !strings.Contains(got, "xSECRETy") || len(got) > excerptBytes+60 {
		t.Errorf("Around of 10 KB is %d bytes: %s", len(got), got)
	}
	if got := Around("short", "o"); got != `"short"` {
		t.Errorf("Around(short) = %s", got)
	}
	if got := Around(long, "absent"); !strings.HasSuffix(got, "... (10006 bytes)") {
		t.Errorf("Around without the text = %.80s...", got)
	}
}
