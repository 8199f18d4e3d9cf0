package redact

import "strings"

// pairFinder finds, left to right, each of two bytes in s (the "=" and ":"
// of assignments, the "{" and "[" of embedded JSON), searching for each
// with strings.IndexByte once per occurrence, where a loop over every byte
// would be slower: a text's separators and brackets are few among its
// bytes.
type pairFinder struct {
	s        string
	a, b     byte
	na, nb   int // the next a and b found so far, -1 when none is left
	searched bool
}

// next returns the index of the first a or b at or after i, or -1. i never
// decreases from one call to the next.
func (f *pairFinder) next(i int) int {
	if !f.searched || (f.na >= 0 && f.na < i) {
		f.na = indexByteFrom(f.s, f.a, i)
	}
	if !f.searched || (f.nb >= 0 && f.nb < i) {
		f.nb = indexByteFrom(f.s, f.b, i)
	}
	f.searched = true
	if f.na >= 0 && (f.nb < 0 || f.na < f.nb) {
		return f.na
	}
	return f.nb
}

// indexByteFrom returns the index of the first c in s at or after i, or
// -1.
func indexByteFrom(s string, c byte, i int) int {
	if k := strings.IndexByte(s[i:], c); k >= 0 {
		return i + k
	}
	return -1
}
