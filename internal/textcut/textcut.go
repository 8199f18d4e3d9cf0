package textcut

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/contextkit/compact/redact"
)

// Cutting text to size. Every part that shortens text does it here: in the
// middle (Middle), to a prefix (Head, Tail, Clip) or onto
// one line (OneLine). Every cut falls on a rune boundary, so valid UTF-8
// stays valid.

// Markers that stand where text was cut: one for a message's text (on a
// line of its own) and one inside a line or a JSON string.
const (
	LineMarker   = "\n[... %d characters cut ...]\n"
	InlineMarker = " [... %d characters cut ...] "
)

// marker returns format with n filled in.
func Marker(format string, n int) string {
	return strings.Replace(format, "%d", strconv.Itoa(n), 1)
}

// snapWindow is how far (in bytes) a cut moves back or forward to fall on a
// line break.
const snapWindow = 160

// Unit is what a cut's limit counts.
type Unit int

const (
	InChars Unit = iota // characters (runes): what a reader sees
	InBytes             // bytes: what a budget on size bounds
)

// size returns the length of s in u: in characters as
// utf8.RuneCountInString counts them (an invalid byte is one), in one pass
// that skips ASCII sixteen bytes at a time.
func (u Unit) size(s string) int {
	n := len(s)
	if u == InBytes {
		return n
	}
	for i := 0; i < len(s); {
		for i+16 <= len(s) && (word(s[i:i+8])|word(s[i+8:i+16]))&highBits == 0 {
			i += 16 // sixteen ASCII bytes
		}
		if i == len(s) {
			break
		}
		if s[i] < utf8.RuneSelf {
			i++
			continue
		}
		_, size := utf8.DecodeRuneInString(s[i:])
		n -= size - 1
		i += size
	}
	return n
}

// head returns the byte length of the longest prefix of s of at most n
// units, and tail that of the longest suffix.
func (u Unit) head(s string, n int) int {
	if u == InBytes {
		return len(Head(s, n))
	}
	return runeOffset(s, max(n, 0))
}

func (u Unit) tail(s string, n int) int {
	if u == InBytes {
		return len(Tail(s, n))
	}
	return len(s) - tailOffset(s, n)
}

// Middle returns s shortened to at most limit units, marker included:
// its head (share of what is kept) and tail around a marker made from
// format, whose %d says how many characters were cut. A negative limit
// means no limit. Cuts fall on rune boundaries, and on a line break when one
// is within 160 bytes. When limit is too small for the marker, only the
// head is kept.
func Middle(s string, limit int, u Unit, share float64, format string) string {
	if limit < 0 || len(s) <= limit {
		return s
	}
	chars := InChars.size(s)
	total := chars
	if u == InBytes {
		total = len(s)
	}
	if total <= limit {
		return s
	}
	room := limit - u.size(Marker(format, chars))
	if room < 2 {
		return s[:u.head(s, limit)]
	}
	hb := u.head(s, int(float64(room)*share))
	tb := len(s) - u.tail(s, room-u.size(s[:hb]))
	if nl := strings.LastIndexByte(s[:hb], '\n'); nl >= 0 && hb-nl <= snapWindow {
		hb = nl + 1
	}
	if nl := strings.IndexByte(s[tb:], '\n'); nl >= 0 && nl < snapWindow && tb+nl+1 < len(s) {
		tb += nl + 1
	}
	cut := InChars.size(s[hb:tb])
	return strings.TrimRight(s[:hb], "\n") + Marker(format, cut) + strings.TrimLeft(s[tb:], "\n")
}

// runeOffset returns the byte offset of the n-th rune of s (len(s) when s
// has fewer), skipping ASCII sixteen bytes at a time.
func runeOffset(s string, n int) int {
	i := 0
	for n > 0 && i < len(s) {
		if n >= 16 && i+16 <= len(s) && (word(s[i:i+8])|word(s[i+8:i+16]))&highBits == 0 {
			i, n = i+16, n-16
			continue
		}
		if s[i] < utf8.RuneSelf {
			i++
		} else {
			_, size := utf8.DecodeRuneInString(s[i:])
			i += size
		}
		n--
	}
	return i
}

// tailOffset returns the byte offset where the last n runes of s begin,
// as utf8.DecodeLastRuneInString steps back over them.
func tailOffset(s string, n int) int {
	i := len(s)
	for ; n > 0 && i > 0; n-- {
		if n >= 16 && i >= 16 && (word(s[i-16:i-8])|word(s[i-8:i]))&highBits == 0 {
			i, n = i-16, n-15
			continue
		}
		_, size := utf8.DecodeLastRuneInString(s[:i])
		i -= size
	}
	return i
}

// Runes returns the length of s in characters, as
// utf8.RuneCountInString counts it (an invalid byte is one), in one pass
// that skips ASCII sixteen bytes at a time.
func Runes(s string) int { return InChars.size(s) }

// highBits is the high bit of each byte of a word.
const highBits = 0x8080808080808080

// word is the eight bytes of w as one little-endian word.
func word(w string) uint64 {
	_ = w[7]
	return uint64(w[0]) | uint64(w[1])<<8 | uint64(w[2])<<16 | uint64(w[3])<<24 |
		uint64(w[4])<<32 | uint64(w[5])<<40 | uint64(w[6])<<48 | uint64(w[7])<<56
}

// Head returns the longest prefix of s of at most n bytes that ends on
// a rune boundary ("" when n <= 0).
func Head(s string, n int) string {
	if n <= 0 {
		return ""
	}
	if n >= len(s) {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// Tail returns the longest suffix of s of at most n bytes that starts
// on a rune boundary.
func Tail(s string, n int) string {
	if n >= len(s) {
		return s
	}
	k := len(s) - n
	for k < len(s) && !utf8.RuneStart(s[k]) {
		k++
	}
	return s[k:]
}

// Clip returns s cut to at most n characters, ending in "..." when cut.
func Clip(s string, n int) string {
	if len(s) <= n || InChars.size(s) <= n {
		return s
	}
	return s[:runeOffset(s, n-3)] + "..."
}

// OneLine puts s on one line: control characters go, each line's white
// space becomes single spaces, blank lines are dropped, and the lines left
// are joined with " ⏎ ".
func OneLine(s string) string {
	s = redact.StripControl(s)
	if !strings.ContainsAny(s, "\n\t\v\f") && !strings.Contains(s, "  ") {
		return strings.TrimSpace(s)
	}
	var parts []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.Join(strings.Fields(l), " "); l != "" {
			parts = append(parts, l)
		}
	}
	return strings.Join(parts, " ⏎ ")
}

func IsLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// IsWordByte reports bytes that continue a word: letters, digits, _.
func IsWordByte(c byte) bool { return IsLetter(c) || c >= '0' && c <= '9' || c == '_' }

// HeadShare is the part of a long text a cut keeps from its start; the
// rest comes from its end, where commands print their errors and results.
const HeadShare = 0.6

// TwoThirds is the head's share of a cut that keeps more of a text's start,
// where what it is about is usually said.
const TwoThirds = 2.0 / 3

// ToTokens returns s cut in the middle (see Middle, two thirds of it kept
// from the head) until count counts it at most maxTokens.
func ToTokens(s string, maxTokens int, count func(string) int) string {
	out, n, size := s, count(s), len(s)
	for tries := 0; n > maxTokens && tries < 8; tries++ {
		size = int(float64(size) * float64(maxTokens) / float64(n) * 0.95)
		out = Middle(s, max(size, 0), InBytes, TwoThirds, LineMarker)
		n = count(out)
	}
	return out
}
