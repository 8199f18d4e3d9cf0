package redact

import (
	"strings"
	"unicode/utf8"
)

// StripControl returns s made safe to show a reader or write to a file: valid
// UTF-8 (invalid bytes become U+FFFD) with no terminal control left in it.
//
// It removes ANSI escape sequences (CSI such as colours and cursor moves,
// OSC such as window titles and hyperlinks, and the shorter escapes), C0
// control characters except tab and newline, DEL, C1 controls, and the
// Unicode bidirectional embedding, override and isolate characters, which can
// make text read differently from what it holds. A carriage return ends a
// line: "\r\n" becomes "\n" and a lone "\r" (a progress bar redrawing itself)
// becomes "\n", so text a terminal would have overwritten stays readable
// instead of running together. Text with nothing to remove is returned as is,
// without copying. StripControl is idempotent.
func StripControl(s string) string {
	if cleanText(s) {
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
			i += escapeLen(s[i:])
		case c < 0x80:
			i++ // other C0 controls and DEL
		default:
			r, size := utf8.DecodeRuneInString(s[i:])
			switch {
			case r == utf8.RuneError && size == 1:
				b.WriteRune(utf8.RuneError)
			case r == '\u009b': // 8-bit CSI: drop it with its parameters
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

// cleanText reports whether StripControl has nothing to do with s: printable
// ASCII, tab and newline, and valid multi-byte runes none of which is a
// control.
func cleanText(s string) bool {
	for i := 0; i < len(s); {
		// Eight bytes at a time while they are ASCII: none below 0x20 but
		// tab and newline, and no DEL.
		if i+8 <= len(s) {
			w := uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
				uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
			if w&highBits == 0 {
				if hasByteBelow(w, 0x20) || hasByteBelow(w^0x7f7f7f7f7f7f7f7f, 1) {
					for _, c := range []byte(s[i : i+8]) {
						if (c < 0x20 && c != '\n' && c != '\t') || c == 0x7f {
							return false
						}
					}
				}
				i += 8
				continue
			}
		}
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

// highBits has the top bit of each byte of a word.
const highBits = 0x8080808080808080

// hasByteBelow reports whether a word of ASCII bytes holds a byte below n
// (at most 0x80).
func hasByteBelow(w uint64, n uint64) bool {
	return (w-n*0x0101010101010101)&^w&highBits != 0
}

// isControlRune reports whether r is a non-ASCII rune StripControl removes:
// a C1 control or a bidirectional formatting character.
func isControlRune(r rune) bool {
	return (r >= 0x80 && r <= 0x9f) ||
		(r >= '\u202a' && r <= '\u202e') || // embeddings and overrides
		(r >= '\u2066' && r <= '\u2069') // isolates
}

// escapeLen returns the length of the escape sequence s starts with (s[0] is
// ESC). An unterminated sequence runs to the end of its line, so a cut-off
// colour code cannot swallow the text after it.
func escapeLen(s string) int {
	if len(s) < 2 {
		return len(s)
	}
	switch s[1] {
	case '[': // CSI: parameters and intermediates, then one final byte
		return 2 + csiBodyLen(s[2:])
	case ']', 'P', 'X', '^', '_': // OSC, DCS, SOS, PM, APC: a string up to BEL or ST
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
	// nF escapes: intermediate bytes, then one final byte.
	j := 1
	for j < len(s) && s[j] >= 0x20 && s[j] <= 0x2f {
		j++
	}
	if j < len(s) && s[j] >= 0x30 && s[j] <= 0x7e {
		return j + 1
	}
	return j
}

// csiBodyLen returns the length of a control sequence's parameters,
// intermediates and final byte, s starting just after the introducer.
func csiBodyLen(s string) int {
	for j := 0; j < len(s); j++ {
		c := s[j]
		switch {
		case c >= 0x40 && c <= 0x7e:
			return j + 1
		case c < 0x20 || c >= 0x7f:
			return j // not part of a sequence: stop before it
		}
	}
	return len(s)
}
