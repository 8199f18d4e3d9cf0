package redact

// This file holds the word-at-a-time tests the scans of every byte of a
// text are written with: eight bytes read as one word, each tested at once
// and exactly (a byte's result never depends on its neighbours).

// Masks of the eight bytes of a word.
const (
	highBits = 0x8080808080808080 // the top bit of each byte
	lowBytes = 0x0101010101010101 // 1 in each byte
)

// word returns s[i:i+8] as a little-endian word: s[i] is its low byte.
func word(s string, i int) uint64 {
	t := s[i : i+8]
	return uint64(t[0]) | uint64(t[1])<<8 | uint64(t[2])<<16 | uint64(t[3])<<24 |
		uint64(t[4])<<32 | uint64(t[5])<<40 | uint64(t[6])<<48 | uint64(t[7])<<56
}

// zeroBytes returns the top bit of each byte of w that is zero. Any byte
// may have its top bit set: it is cleared before the addition, so no carry
// crosses into the next byte.
func zeroBytes(w uint64) uint64 {
	return ^(((w &^ highBits) + 0x7f*lowBytes) | w) & highBits
}

// equalBytes returns the top bit of each byte of w that is c.
func equalBytes(w uint64, c byte) uint64 {
	return zeroBytes(w ^ uint64(c)*lowBytes)
}
