package msgtest

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// excerptBytes bounds what a failure message quotes of one value: enough
// to see the place, short enough that a fuzzed body of megabytes does not
// bury the report.
const excerptBytes = 240

// Excerpt is s quoted, cut to its first excerptBytes bytes with its full
// length named when it is longer: what a failure message prints of a value
// that may be huge.
func Excerpt[T ~string | ~[]byte](s T) string {
	if len(s) <= excerptBytes {
		return fmt.Sprintf("%q", s)
	}
	return fmt.Sprintf("%q... (%d bytes)", cut(string(s), 0, excerptBytes), len(s))
}

// Difference describes where a and b first differ, quoting a bounded
// window of each around that byte: what a failure message prints of two
// encodings that should be equal. It returns "" when they are equal.
func Difference[T ~string | ~[]byte](a, b T) string {
	x, y := string(a), string(b)
	if x == y {
		return ""
	}
	i := 0
	for i < len(x) && i < len(y) && x[i] == y[i] {
		i++
	}
	from := max(i-excerptBytes/4, 0)
	return fmt.Sprintf("they differ at byte %d (of %d and %d):\n  %q\n  %q",
		i, len(x), len(y), cut(x, from, from+excerptBytes), cut(y, from, from+excerptBytes))
}

// Around quotes a bounded window of s around the first place sub occurs,
// naming that place and s's length: what a failure message prints of a
// long output to show where something it must not hold turned up. It is
// [Excerpt] of s when sub does not occur.
func Around(s, sub string) string {
	i := strings.Index(s, sub)
	if i < 0 || len(s) <= excerptBytes {
		return Excerpt(s)
	}
	from := max(i-excerptBytes/2, 0)
	return fmt.Sprintf("at byte %d of %d: ...%q...", i, len(s), cut(s, from, from+excerptBytes))
}

// cut is s[from:to] clamped to s and widened to whole UTF-8 characters.
func cut(s string, from, to int) string {
	to = min(to, len(s))
	from = min(from, to)
	for from > 0 && !utf8.RuneStart(s[from]) {
		from--
	}
	for to < len(s) && !utf8.RuneStart(s[to]) {
		to++
	}
	return s[from:to]
}
