package redact

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// referenceStripControl is StripControl as it was before it read eight
// bytes at a time wherever it could and searched an escape's string with
// IndexByte: byte by byte throughout.
func referenceStripControl(s string) string {
	if referenceCleanText(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '\n' || c == '\t' || (c >= 0x20 && c < 0x7f):
			j := i + 1
			for j < len(s) && (s[j] == '\n' || s[j] == '\t' || (s[j] >= 0x20 && s[j] < 0x7f)) {
				j++
			}
			b.WriteString(s[i:j])
			i = j
		case c == '\r':
			b.WriteByte('\n')
			i++
			if i < len(s) && s[i] == '\n' {
				i++
			}
		case c == 0x1b:
			i += referenceEscapeLen(s[i:])
		case c < 0x80:
			i++
		default:
			r, size := utf8.DecodeRuneInString(s[i:])
			switch {
			case r == utf8.RuneError && size == 1:
				b.WriteRune(utf8.RuneError)
			case r == '\u009b':
				size += csiBodyLen(s[i+size:])
			case isControlRune(r):
			default:
				b.WriteString(s[i : i+size])
			}
			i += size
		}
	}
	return b.String()
}

// referenceCleanText is cleanText one byte or rune at a time.
func referenceCleanText(s string) bool {
	for i := 0; i < len(s); {
		c := s[i]
		if c < 0x80 {
			if (c < 0x20 && c != '\n' && c != '\t') || c == 0x7f {
				return false
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && size == 1) || isControlRune(r) {
			return false
		}
		i += size
	}
	return true
}

// referenceEscapeLen is escapeLen with the string of an OSC (DCS, SOS, PM,
// APC) read byte by byte.
func referenceEscapeLen(s string) int {
	if len(s) < 2 {
		return len(s)
	}
	switch s[1] {
	case '[':
		return 2 + csiBodyLen(s[2:])
	case ']', 'P', 'X', '^', '_':
		for j := 2; j < len(s); j++ {
			switch {
			case s[j] == 0x07:
				return j + 1
			case s[j] == 0x1b && j+1 < len(s) && s[j+1] == '\\':
				return j + 2
			case s[j] == '\n':
				return j
			}
		}
		return len(s)
	}
	j := 1
	for j < len(s) && s[j] >= 0x20 && s[j] <= 0x2f {
		j++
	}
	if j < len(s) && s[j] >= 0x30 && s[j] <= 0x7e {
		return j + 1
	}
	return j
}

// checkStripControl fails t when StripControl, cleanText or escapeLen
// disagree with their references on s: cleanText on every suffix too, and
// escapeLen at every escape, since a word read whole starts anywhere.
func checkStripControl(t *testing.T, s string) {
	t.Helper()
	if got, want := StripControl(s), referenceStripControl(s); got != want {
		t.Fatalf("StripControl(%.200q)\n fast      %.300q\n reference %.300q", s, got, want)
	}
	if got, want := cleanText(s), referenceCleanText(s); got != want {
		t.Fatalf("cleanText(%.200q) = %v, the reference says %v", s, got, want)
	}
	if len(s) > 4096 {
		return // the positions of a long text cost quadratic time
	}
	for i := 0; i <= len(s); i++ {
		if got, want := cleanText(s[i:]), referenceCleanText(s[i:]); got != want {
			t.Fatalf("cleanText(%.200q) = %v, the reference says %v", s[i:], got, want)
		}
		if i < len(s) && s[i] == 0x1b {
			if got, want := escapeLen(s[i:]), referenceEscapeLen(s[i:]); got != want {
				t.Fatalf("escapeLen(%.200q) = %d, the reference says %d", s[i:], got, want)
			}
		}
	}
}

// Every byte in every place of an eight-byte word: cleanText's word tests
// tell the bytes StripControl keeps from the others, whatever is around
// them.
func TestPrintableWordByteByByte(t *testing.T) {
	for c := 0; c < 256; c++ {
		for pos := 0; pos < 16; pos++ {
			for _, fill := range []byte{'a', '\n', '\t', ' ', '~', 0x1f, 0x7f} {
				b := []byte(strings.Repeat(string(rune(fill)), 16))
				if fill >= 0x80 {
					continue
				}
				b[pos] = byte(c)
				checkStripControl(t, string(b))
			}
		}
	}
}
