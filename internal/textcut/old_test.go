package textcut

// The implementations of Arguments, ReplaceLongStrings and Middle as they
// were before they were made faster, kept to check that the new ones give
// the same output for every input (see compare_test.go).

import (
	"encoding/json"
	"strings"
	"unicode/utf8"
)

// oldSize returns the length of s in u.
func (u Unit) oldSize(s string) int {
	if u == InBytes {
		return len(s)
	}
	return utf8.RuneCountInString(s)
}

// oldHead returns the byte length of the longest prefix of s of at most n
// units, and tail that of the longest suffix.
func (u Unit) oldHead(s string, n int) int {
	if u == InBytes {
		return len(Head(s, n))
	}
	return oldRuneOffset(s, max(n, 0))
}

func (u Unit) oldTail(s string, n int) int {
	if u == InBytes {
		return len(Tail(s, n))
	}
	return len(s) - oldTailOffset(s, n)
}

// oldMiddle returns s shortened to at most limit units, marker included:
// its head (share of what is kept) and tail around a marker made from
// format, whose %d says how many characters were cut. A negative limit
// means no limit. Cuts fall on rune boundaries, and on a line break when one
// is within 160 bytes. When limit is too small for the marker, only the
// head is kept.
func oldMiddle(s string, limit int, u Unit, share float64, format string) string {
	if limit < 0 || len(s) <= limit {
		return s
	}
	total := u.oldSize(s)
	if total <= limit {
		return s
	}
	room := limit - u.oldSize(Marker(format, utf8.RuneCountInString(s)))
	if room < 2 {
		return s[:u.oldHead(s, limit)]
	}
	hb := u.oldHead(s, int(float64(room)*share))
	tb := len(s) - u.oldTail(s, room-u.oldSize(s[:hb]))
	if nl := strings.LastIndexByte(s[:hb], '\n'); nl >= 0 && hb-nl <= snapWindow {
		hb = nl + 1
	}
	if nl := strings.IndexByte(s[tb:], '\n'); nl >= 0 && nl < snapWindow && tb+nl+1 < len(s) {
		tb += nl + 1
	}
	cut := utf8.RuneCountInString(s[hb:tb])
	return strings.TrimRight(s[:hb], "\n") + Marker(format, cut) + strings.TrimLeft(s[tb:], "\n")
}

// oldRuneOffset returns the byte offset of the n-th rune of s (len(s) when s
// has fewer).
func oldRuneOffset(s string, n int) int {
	for i := range s {
		if n == 0 {
			return i
		}
		n--
	}
	return len(s)
}

// oldTailOffset returns the byte offset where the last n runes of s begin.
func oldTailOffset(s string, n int) int {
	i := len(s)
	for ; n > 0 && i > 0; n-- {
		_, size := utf8.DecodeLastRuneInString(s[:i])
		i -= size
	}
	return i
}

// oldArguments returns a tool call's arguments in at most limit
// characters (negative: no limit). Valid JSON is shortened by cutting the
// middle of its long string values, all to the same length, chosen as long
// as the limit allows, so the result is still valid JSON with every key in
// place. When even that is too long (many keys, long arrays of numbers) or
// the arguments are not JSON, the text keeps its head and tail.
func oldArguments(args string, limit int, share float64) string {
	if limit < 0 || len(args) <= limit || utf8.RuneCountInString(args) <= limit {
		return args
	}
	if json.Valid([]byte(args)) {
		spans := oldStringSpans(args)
		if keep, ok := oldStringKeep(args, spans, limit); ok {
			if out := oldShortenStrings(args, spans, keep, share); utf8.RuneCountInString(out) <= limit {
				return out
			}
		}
		args = oldShortenStrings(args, spans, MinStringKeep, share)
	}
	return oldMiddle(args, limit, InChars, share, InlineMarker)
}

// oldStringSpans returns the string literals of a valid JSON text, in order.
func oldStringSpans(s string) []Span {
	var spans []Span
	for i := 0; i < len(s); i++ {
		if s[i] != '"' {
			continue
		}
		j := i + 1
		for j < len(s) && s[j] != '"' {
			if s[j] == '\\' {
				j++
			}
			j++
		}
		spans = append(spans, Span{i, j + 1})
		i = j
	}
	return spans
}

// oldStringKeep finds the largest length every string can be cut to (counting
// its literal's characters) so that the whole fits limit, markers included.
// ok is false when even MinStringKeep does not fit.
func oldStringKeep(s string, spans []Span, limit int) (int, bool) {
	lens := make([]int, len(spans))
	fixed := utf8.RuneCountInString(s)
	longest := 0
	for i, sp := range spans {
		lens[i] = utf8.RuneCountInString(s[sp.Start:sp.End])
		fixed -= lens[i]
		longest = max(longest, lens[i])
	}
	markerLen := len(Marker(InlineMarker, len(s)))
	size := func(keep int) int {
		n := fixed
		for _, l := range lens {
			if l > keep+markerLen {
				n += keep + markerLen
			} else {
				n += l
			}
		}
		return n
	}
	if size(MinStringKeep) > limit {
		return 0, false
	}
	lo, hi := MinStringKeep, longest // size(lo) fits; find the largest keep that does
	for lo < hi {
		mid := lo + (hi-lo+1)/2
		if size(mid) <= limit {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return lo, true
}

// oldShortenStrings cuts the middle of every string literal of s longer than
// keep characters (plus a marker), re-encoding it so the JSON stays valid.
func oldShortenStrings(s string, spans []Span, keep int, share float64) string {
	return oldReplaceLongStrings(s, spans, keep+len(Marker(InlineMarker, len(s))), share, nil)
}

// oldReplaceLongStrings replaces each string literal of s (at spans) longer
// than target runes, unless skip says otherwise, by its value cut in the
// middle and re-encoded, so valid JSON stays valid. s comes back as it is
// when nothing was replaced.
func oldReplaceLongStrings(s string, spans []Span, target int, share float64, skip func(Span) bool) string {
	var b strings.Builder
	last := 0
	for _, sp := range spans {
		lit := s[sp.Start:sp.End]
		if len(lit) <= target || utf8.RuneCountInString(lit) <= target || skip != nil && skip(sp) {
			continue
		}
		var v string
		if json.Unmarshal([]byte(lit), &v) != nil {
			continue
		}
		short, ok := oldShortLiteral(v, target, share)
		if !ok {
			continue
		}
		b.WriteString(s[last:sp.Start])
		b.WriteString(short)
		last = sp.End
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// oldShortLiteral returns v cut in the middle and encoded as a JSON string
// literal of at most target characters. Escapes (\n, \") make a literal
// longer than its text, so the cut is tightened until the literal fits.
func oldShortLiteral(v string, target int, share float64) (string, bool) {
	keep := target - 2 // the quotes
	for try := 0; try < 4 && keep > 0; try++ {
		lit, err := oldMarshalString(oldMiddle(v, keep, InChars, share, InlineMarker))
		if err != nil {
			return "", false
		}
		n := utf8.RuneCountInString(lit)
		if n <= target {
			return lit, true
		}
		keep = keep*target/n - 1
	}
	return "", false
}

// oldMarshalString encodes v as a JSON string without HTML escaping, so "<"
// and "&" in commands stay readable.
func oldMarshalString(v string) (string, error) {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "", err
	}
	return strings.TrimSuffix(b.String(), "\n"), nil
}
