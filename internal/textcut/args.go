package textcut

import (
	"encoding/json"
	"strings"
)

// MinStringKeep is the least a shortened JSON string keeps: enough to
// recognise a path or the start of a command.
const MinStringKeep = 48

// Arguments returns a tool call's arguments in at most limit
// characters (negative: no limit). Valid JSON is shortened by cutting the
// middle of its long string values, all to the same length, chosen as long
// as the limit allows, so the result is still valid JSON with every key in
// place. When even that is too long (many keys, long arrays of numbers) or
// the arguments are not JSON, the text keeps its head and tail.
func Arguments(args string, limit int, share float64) string {
	if limit < 0 || len(args) <= limit || Runes(args) <= limit {
		return args
	}
	if spans, ok := jsonSpans(args); ok {
		if keep, ok := stringKeep(args, spans, limit); ok {
			if out := shortenStrings(args, spans, keep, share); Runes(out) <= limit {
				return out
			}
		}
		args = shortenStrings(args, spans, MinStringKeep, share)
	}
	return Middle(args, limit, InChars, share, InlineMarker)
}

// Span is the byte range of a JSON string literal, quotes included.
type Span struct{ Start, End int }

// StringSpans returns the string literals of a valid JSON text, in order.
func StringSpans(s string) []Span {
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

// stringKeep finds the largest length every string can be cut to (counting
// its literal's characters) so that the whole fits limit, markers included.
// ok is false when even MinStringKeep does not fit.
func stringKeep(s string, spans []Span, limit int) (int, bool) {
	lens := make([]int, len(spans))
	fixed := Runes(s)
	longest := 0
	for i, sp := range spans {
		lens[i] = Runes(s[sp.Start:sp.End])
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

// shortenStrings cuts the middle of every string literal of s longer than
// keep characters (plus a marker), re-encoding it so the JSON stays valid.
func shortenStrings(s string, spans []Span, keep int, share float64) string {
	return ReplaceLongStrings(s, spans, keep+len(Marker(InlineMarker, len(s))), share, nil)
}

// ReplaceLongStrings replaces each string literal of s (at spans) longer
// than target runes, unless skip says otherwise, by its value cut in the
// middle and re-encoded, so valid JSON stays valid. s comes back as it is
// when nothing was replaced.
func ReplaceLongStrings(s string, spans []Span, target int, share float64, skip func(Span) bool) string {
	var b strings.Builder
	last := 0
	for _, sp := range spans {
		lit := s[sp.Start:sp.End]
		if len(lit) <= target || Runes(lit) <= target || skip != nil && skip(sp) {
			continue
		}
		v, ok := unquote(lit)
		if !ok {
			if json.Unmarshal([]byte(lit), &v) != nil {
				continue
			}
		}
		short, ok := shortLiteral(v, target, share)
		if !ok {
			continue
		}
		if last == 0 {
			b.Grow(len(s))
		}
		b.WriteString(s[last:sp.Start])
		b.WriteByte('"')
		writeQuoted(&b, short)
		b.WriteByte('"')
		last = sp.End
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// shortLiteral returns v cut in the middle (see Middle) so that its
// encoding as a JSON string literal (see writeQuoted) takes at most target
// characters, and whether some cut did. Escapes (\n, \") make a literal
// longer than its text, so the cut is tightened until the literal fits.
func shortLiteral(v string, target int, share float64) (string, bool) {
	keep := target - 2 // the quotes
	for try := 0; try < 4 && keep > 0; try++ {
		short := Middle(v, keep, InChars, share, InlineMarker)
		n := 2 + quotedRunes(short)
		if n <= target {
			return short, true
		}
		keep = keep*target/n - 1
	}
	return "", false
}
