package compact

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/contextkit/compact/redact"
)

// Cutting text to size. Every part that shortens text does it here: in the
// middle (cutMiddle), to a prefix (runeHead, runeTail, clipRunes) or onto
// one line (oneLine). Every cut falls on a rune boundary, so valid UTF-8
// stays valid.

// Markers that stand where text was cut: one for a message's text (on a
// line of its own) and one inside a line or a JSON string.
const (
	lineMarker   = "\n[... %d characters cut ...]\n"
	inlineMarker = " [... %d characters cut ...] "
)

// marker returns format with n filled in.
func marker(format string, n int) string {
	return strings.Replace(format, "%d", strconv.Itoa(n), 1)
}

// snapWindow is how far (in bytes) a cut moves back or forward to fall on a
// line break.
const snapWindow = 160

// cutUnit is what a cut's limit counts.
type cutUnit int

const (
	inChars cutUnit = iota // characters (runes): what a reader sees
	inBytes                // bytes: what a budget on size bounds
)

// size returns the length of s in u.
func (u cutUnit) size(s string) int {
	if u == inBytes {
		return len(s)
	}
	return utf8.RuneCountInString(s)
}

// head returns the byte length of the longest prefix of s of at most n
// units, and tail that of the longest suffix.
func (u cutUnit) head(s string, n int) int {
	if u == inBytes {
		return len(runeHead(s, n))
	}
	return runeOffset(s, max(n, 0))
}

func (u cutUnit) tail(s string, n int) int {
	if u == inBytes {
		return len(runeTail(s, n))
	}
	return len(s) - tailOffset(s, n)
}

// cutMiddle returns s shortened to at most limit units, marker included:
// its head (share of what is kept) and tail around a marker made from
// format, whose %d says how many characters were cut. A negative limit
// means no limit. Cuts fall on rune boundaries, and on a line break when one
// is within snapWindow. When limit is too small for the marker, only the
// head is kept.
func cutMiddle(s string, limit int, u cutUnit, share float64, format string) string {
	if limit < 0 || len(s) <= limit {
		return s
	}
	total := u.size(s)
	if total <= limit {
		return s
	}
	room := limit - u.size(marker(format, utf8.RuneCountInString(s)))
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
	cut := utf8.RuneCountInString(s[hb:tb])
	return strings.TrimRight(s[:hb], "\n") + marker(format, cut) + strings.TrimLeft(s[tb:], "\n")
}

// runeOffset returns the byte offset of the n-th rune of s (len(s) when s
// has fewer).
func runeOffset(s string, n int) int {
	for i := range s {
		if n == 0 {
			return i
		}
		n--
	}
	return len(s)
}

// tailOffset returns the byte offset where the last n runes of s begin.
func tailOffset(s string, n int) int {
	i := len(s)
	for ; n > 0 && i > 0; n-- {
		_, size := utf8.DecodeLastRuneInString(s[:i])
		i -= size
	}
	return i
}

// runeHead returns the longest prefix of s of at most n bytes that ends on
// a rune boundary ("" when n <= 0).
func runeHead(s string, n int) string {
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

// runeTail returns the longest suffix of s of at most n bytes that starts
// on a rune boundary.
func runeTail(s string, n int) string {
	if n >= len(s) {
		return s
	}
	k := len(s) - n
	for k < len(s) && !utf8.RuneStart(s[k]) {
		k++
	}
	return s[k:]
}

// clipRunes returns s cut to at most n characters, ending in "..." when cut.
func clipRunes(s string, n int) string {
	if len(s) <= n || utf8.RuneCountInString(s) <= n {
		return s
	}
	return s[:runeOffset(s, n-3)] + "..."
}

// oneLine puts s on one line: control characters go, each line's white
// space becomes single spaces, blank lines are dropped, and the lines left
// are joined with " ⏎ ".
func oneLine(s string) string {
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

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// isWordByte reports bytes that continue a word: letters, digits, _.
func isWordByte(c byte) bool { return isLetter(c) || c >= '0' && c <= '9' || c == '_' }

// twoThirds is the head's share of a cut that keeps more of a text's start,
// where what it is about is usually said.
const twoThirds = 2.0 / 3
