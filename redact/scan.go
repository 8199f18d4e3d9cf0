package redact

// Masks of the eight bytes of a word, for the scans that read a text eight
// bytes at a time (see cleanText).
const (
	highBits = 0x8080808080808080 // the top bit of each byte
	lowBytes = 0x0101010101010101 // 1 in each byte
)
