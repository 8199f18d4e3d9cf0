package textcut

import (
	"strings"
	"unicode/utf8"
)

// Squash returns s with each run of white space made one space and none
// at either end: strings.Join(strings.Fields(s), " "), without the slice
// of fields. Text of ASCII alone takes one pass and at most one
// allocation, and none when it is squashed already; other text goes the
// way of strings.Fields, whose idea of white space (unicode.IsSpace) it
// keeps.
func Squash(s string) string {
	squashed := true
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= utf8.RuneSelf {
			return strings.Join(strings.Fields(s), " ")
		}
		if asciiSpace[c] && (c != ' ' || i == 0 || i == len(s)-1 || isASCIISpace(s[i+1])) {
			squashed = false
		}
	}
	if squashed {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	gap := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if asciiSpace[c] {
			gap = b.Len() > 0
			continue
		}
		if gap {
			b.WriteByte(' ')
			gap = false
		}
		b.WriteByte(c)
	}
	return b.String()
}

// isASCIISpace reports an ASCII byte unicode.IsSpace reports.
func isASCIISpace(c byte) bool { return c < utf8.RuneSelf && asciiSpace[c] }

// asciiSpace holds the ASCII bytes unicode.IsSpace reports.
var asciiSpace = [utf8.RuneSelf]bool{'\t': true, '\n': true, '\v': true, '\f': true, '\r': true, ' ': true}
