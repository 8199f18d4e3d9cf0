package compact

import "unicode/utf8"

// Hooks for the external tests (package compact_test), which check this
// package's encoder against tiktoken-go through package tiktokengo: an
// internal test cannot import that package, since it imports this one.

// SplitText returns the pieces the named encoding's scanner splits s into,
// with invalid UTF-8 read as U+FFFD.
func SplitText(encoding, s string) ([]string, error) {
	enc, err := loadEncoding(encoding)
	if err != nil {
		return nil, err
	}
	if !utf8.ValidString(s) {
		s = replaceInvalid(s)
	}
	var pieces []string
	for i := 0; i < len(s); {
		j := enc.next(s, i)
		pieces = append(pieces, s[i:j])
		i = j
	}
	return pieces, nil
}

// TokenRanks returns the named encoding's tokens in rank order.
func TokenRanks(encoding string) ([]string, error) {
	enc, err := loadEncoding(encoding)
	if err != nil {
		return nil, err
	}
	tokens := make([]string, len(enc.ranks.offsets)-1)
	for r := range tokens {
		tokens[r] = enc.ranks.token(uint32(r))
	}
	return tokens, nil
}

// RaceEnabled reports whether the race detector is on, which slows the
// oracle (tiktoken-go and its regular expression engine) tenfold: the
// largest comparisons then check a sample.
const RaceEnabled = raceEnabled

// WithCacheSize sets the message memo's size; 0 turns it off, so that the
// oracle tests count every message afresh.
var WithCacheSize = withCacheSize

// DefaultImageTokensForTest is what the counters charge for an image of
// detail "high" or "auto".
const DefaultImageTokensForTest = defaultImageTokens
