package bpe

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Before byte-pair merging, tiktoken splits text into pieces with a regular
// expression, one per encoding, and merges within each piece only. The
// scanners here split as those expressions do, match for match, without a
// regular expression engine. The patterns, as openai/tiktoken publishes
// them (tiktoken_ext/openai_public.py), are
//
//	o200k_base:
//	  [^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?
//	| [^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?
//	| \p{N}{1,3}
//	|  ?[^\s\p{L}\p{N}]+[\r\n/]*
//	| \s*[\r\n]+
//	| \s+(?!\S)
//	| \s+
//
//	cl100k_base:
//	  (?i:'s|'t|'re|'ve|'m|'ll|'d)
//	| [^\r\n\p{L}\p{N}]?\p{L}+
//	| \p{N}{1,3}
//	|  ?[^\s\p{L}\p{N}]+[\r\n]*
//	| \s*[\r\n]+
//	| \s+(?!\S)
//	| \s+
//
// A backtracking engine tries the alternatives in order at each position
// and takes the first that matches; within one, quantifiers are greedy and
// give back only as much as the rest needs. Every character is matched by
// some alternative, so the pieces tile the text. The classes are those of
// Go's unicode package, as the regexp2 engine of tiktoken-go reads them:
// \s is unicode.IsSpace, (?i) compares unicode.ToLower of the text with
// the pattern. Text is read as runes, with each byte of invalid UTF-8 read
// as U+FFFD, as tiktoken-go reads it.

// Character classes, as bits: a rune may be in several.
const (
	clLetter  uint8 = 1 << iota // \p{L}
	clNumber                    // \p{N}
	clSpace                     // \s
	clUpper                     // [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}], o200k_base's first letters
	clLower                     // [\p{Ll}\p{Lm}\p{Lo}\p{M}], o200k_base's last letters
	clNewline                   // [\r\n]

	// clMultibyte marks a byte that starts no ASCII character in
	// byteClasses: the rune there must be decoded.
	clMultibyte
)

// byteClasses holds the classes of every ASCII character, by its byte, and
// clMultibyte for every other byte.
var byteClasses = func() (t [256]uint8) {
	for b := range t {
		t[b] = clMultibyte
		if b < utf8.RuneSelf {
			t[b] = runeClass(rune(b))
		}
	}
	return t
}()

// runeClass returns the classes r is in.
func runeClass(r rune) uint8 {
	switch {
	case r == '\r' || r == '\n':
		return clSpace | clNewline
	case unicode.IsLetter(r):
		switch {
		case unicode.Is(unicode.Ll, r):
			return clLetter | clLower
		case unicode.Is(unicode.Lu, r), unicode.Is(unicode.Lt, r):
			return clLetter | clUpper
		default: // Lm, Lo
			return clLetter | clUpper | clLower
		}
	case unicode.IsMark(r):
		return clUpper | clLower
	case unicode.IsNumber(r):
		return clNumber
	case unicode.IsSpace(r):
		return clSpace
	}
	return 0
}

// classAt returns the classes of the rune that starts at s[i], and its
// length. s is valid UTF-8.
func classAt(s string, i int) (uint8, int) {
	if c := byteClasses[s[i]]; c != clMultibyte {
		return c, 1
	}
	return classAtRune(s, i)
}

// classAtRune is classAt past ASCII, apart so that classAt is inlined.
func classAtRune(s string, i int) (uint8, int) {
	r, n := utf8.DecodeRuneInString(s[i:])
	return runeClass(r), n
}

// canLead reports whether a rune of classes c may lead a word as
// [^\r\n\p{L}\p{N}]: anything but a letter, a number or a line break.
func canLead(c uint8) bool { return c&(clLetter|clNumber|clNewline) == 0 }

// isSymbol reports whether a rune of classes c is [^\s\p{L}\p{N}].
func isSymbol(c uint8) bool { return c&(clSpace|clLetter|clNumber) == 0 }

// nextO200k returns the end of the piece that starts at s[i] by
// o200k_base's pattern.
func nextO200k(s string, i int) int {
	c, n := classAt(s, i)
	lead := canLead(c) && i+n < len(s)
	if lead || c&(clUpper|clLower) != 0 {
		// The first two alternatives, each tried with the leading
		// character and then without it.
		if lead {
			if e := upperLower(s, i+n); e >= 0 {
				return contraction(s, e)
			}
		}
		if e := upperLower(s, i); e >= 0 {
			return contraction(s, e)
		}
		if lead {
			if e := upperThenLower(s, i+n); e >= 0 {
				return contraction(s, e)
			}
		}
		if e := upperThenLower(s, i); e >= 0 {
			return contraction(s, e)
		}
	}
	if c&clNumber != 0 {
		return digits(s, i+n)
	}
	if e := symbols(s, i, true); e >= 0 {
		return e
	}
	return spaces(s, i)
}

// nextCL100k returns the end of the piece that starts at s[i] by
// cl100k_base's pattern.
func nextCL100k(s string, i int) int {
	if s[i] == '\'' {
		if e := contraction(s, i); e > i {
			return e
		}
	}
	c, n := classAt(s, i)
	if c&clLetter != 0 {
		return letters(s, i+n)
	}
	if canLead(c) && i+n < len(s) {
		if c1, n1 := classAt(s, i+n); c1&clLetter != 0 {
			return letters(s, i+n+n1)
		}
	}
	if c&clNumber != 0 {
		return digits(s, i+n)
	}
	if e := symbols(s, i, false); e >= 0 {
		return e
	}
	return spaces(s, i)
}

// upperLower matches [upper]*[lower]+ at s[j] and returns its end, or -1.
// The first run gives back what the second needs: when no lower-class rune
// follows it, the match ends after the run's last rune that is also lower.
func upperLower(s string, j int) int {
	end := -1 // after the last rune of the upper run that is also lower
	for k := j; k < len(s); {
		c, n := byteClasses[s[k]], 1 // classAt, inlined by hand
		if c == clMultibyte {
			c, n = classAtRune(s, k)
		}
		if c&clUpper == 0 {
			if c&clLower != 0 {
				return run(s, k+n, clLower)
			}
			break
		}
		k += n
		if c&clLower != 0 {
			end = k
		}
	}
	return end
}

// upperThenLower matches [upper]+[lower]* at s[j] and returns its end, or
// -1.
func upperThenLower(s string, j int) int {
	k := run(s, j, clUpper)
	if k == j {
		return -1
	}
	return run(s, k, clLower)
}

// run returns the end of the run of runes in class from s[k].
func run(s string, k int, class uint8) int {
	for k < len(s) {
		c, n := byteClasses[s[k]], 1 // classAt, inlined by hand
		if c == clMultibyte {
			c, n = classAtRune(s, k)
		}
		if c&class == 0 {
			break
		}
		k += n
	}
	return k
}

// letters returns the end of the run of letters from s[k].
func letters(s string, k int) int { return run(s, k, clLetter) }

// digits returns the end of \p{N}{1,3} whose first rune ends at s[k].
func digits(s string, k int) int {
	for m := 1; m < 3 && k < len(s); m++ {
		c, n := classAt(s, k)
		if c&clNumber == 0 {
			break
		}
		k += n
	}
	return k
}

// contraction returns the end of (?i:'s|'t|'re|'ve|'m|'ll|'d) at s[e], or
// e when there is none.
func contraction(s string, e int) int {
	if e+1 >= len(s) || s[e] != '\'' {
		return e
	}
	r, n := lowerAt(s, e+1)
	switch r {
	case 's', 't', 'm', 'd':
		return e + 1 + n
	case 'r', 'v', 'l':
		if e+1+n < len(s) {
			want := 'e'
			if r == 'l' {
				want = 'l'
			}
			if r2, n2 := lowerAt(s, e+1+n); r2 == want {
				return e + 1 + n + n2
			}
		}
	}
	return e
}

// lowerAt returns unicode.ToLower of the rune at s[i], and its length.
func lowerAt(s string, i int) (rune, int) {
	if b := s[i]; b < utf8.RuneSelf {
		if 'A' <= b && b <= 'Z' {
			b += 'a' - 'A'
		}
		return rune(b), 1
	}
	r, n := utf8.DecodeRuneInString(s[i:])
	return unicode.ToLower(r), n
}

// symbols matches " ?[^\s\p{L}\p{N}]+[\r\n]*" at s[i], with "/" among the
// trailing characters when slash is set, and returns its end, or -1.
func symbols(s string, i int, slash bool) int {
	j := i
	if s[i] == ' ' && i+1 < len(s) {
		if c, _ := classAt(s, i+1); isSymbol(c) {
			j = i + 1
		}
	}
	c, n := classAt(s, j)
	if !isSymbol(c) {
		return -1
	}
	k := j + n
	for k < len(s) {
		c, n := byteClasses[s[k]], 1 // classAt, inlined by hand
		if c == clMultibyte {
			c, n = classAtRune(s, k)
		}
		if !isSymbol(c) {
			break
		}
		k += n
	}
	for k < len(s) && (s[k] == '\r' || s[k] == '\n' || slash && s[k] == '/') {
		k++
	}
	return k
}

// spaces matches the last three alternatives at s[i], a space:
// whitespace up to and including its last line break; else whitespace
// that ends the text or leaves its last rune to lead what follows; else one
// rune of whitespace.
func spaces(s string, i int) int {
	k, last, afterBreak := i, i, -1
	for k < len(s) {
		c, n := byteClasses[s[k]], 1 // classAt, inlined by hand
		if c == clMultibyte {
			c, n = classAtRune(s, k)
		}
		if c&clSpace == 0 {
			break
		}
		if c&clNewline != 0 {
			afterBreak = k + n
		}
		last = k
		k += n
	}
	switch {
	case afterBreak >= 0:
		return afterBreak
	case k == len(s) || last == i:
		return k
	}
	return last
}

// Seam returns the first place in s after its start where both encodings
// split s into the pieces of s before it followed by the pieces of s from
// it, or len(s) when it finds none: a line break followed by an ASCII
// character that is neither a space nor a slash. So a text counts as the
// sum of its parts cut at seams, and a part seen before counts as before
// wherever it reappears between seams.
//
// Why: no piece holds both sides of such a place. A word (either
// pattern's letter alternatives, with their contractions) and a number
// hold no line break, and a line break cannot lead a word; a run of
// symbols ends with its line breaks (and in o200k_base its slashes), so it
// ends at the character after the break; a run of whitespace ends at it,
// and having met a line break it ends there whatever follows (the first
// space alternative). So the pieces before the seam end at it, and since
// no scanner reads more than one character past the piece it matches,
// they are the pieces of s before it alone. No scanner looks behind: the
// pieces from the seam on are those of s from it. Invalid UTF-8 is
// replaced byte by byte, and a seam's bytes are ASCII, so the two sides
// are replaced as the whole is.
func Seam(s string) int {
	for i := 0; ; {
		j := strings.IndexByte(s[i:], '\n')
		if j < 0 {
			return len(s)
		}
		p := i + j + 1
		if p >= len(s) {
			return len(s)
		}
		if b := s[p]; b < utf8.RuneSelf && b != '/' && byteClasses[b]&clSpace == 0 {
			return p
		}
		i = p
	}
}
