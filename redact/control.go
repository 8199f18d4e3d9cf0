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
		case printableASCII[c]:
			j := i + 1
			for j < len(s) && printableASCII[s[j]] {
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
// control. It reads eight bytes at a time while all eight are printable
// ASCII (the word's tests are written out here, where the engine's every
// text passes: each is exact byte by byte, since no carry crosses a byte
// when no byte reaches 0x80).
func cleanText(s string) bool {
	for i := 0; ; {
		for i+8 <= len(s) {
			t := s[i : i+8]
			w := uint64(t[0]) | uint64(t[1])<<8 | uint64(t[2])<<16 | uint64(t[3])<<24 |
				uint64(t[4])<<32 | uint64(t[5])<<40 | uint64(t[6])<<48 | uint64(t[7])<<56
			if w&highBits != 0 {
				break
			}
			// A byte is below 0x20 when adding 0x60 leaves its top bit
			// clear, and is c when x = w^c has a zero byte there, which
			// adding 0x7f to it leaves with its top bit clear.
			below := ^(w + 0x60*lowBytes) & highBits
			nl, tab, del := w^'\n'*lowBytes, w^'\t'*lowBytes, w^0x7f*lowBytes
			isNL := ^((nl + 0x7f*lowBytes) | nl) & highBits
			isTab := ^((tab + 0x7f*lowBytes) | tab) & highBits
			isDel := ^((del + 0x7f*lowBytes) | del) & highBits
			if below&^(isNL|isTab)|isDel != 0 {
				break
			}
			i += 8
		}
		for i < len(s) && printableASCII[s[i]] {
			i++
		}
		if i == len(s) {
			return true
		}
		if s[i] < 0x80 {
			return false
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && size == 1) || isControlRune(r) {
			return false
		}
		i += size
	}
}

// printableASCII holds the ASCII bytes StripControl keeps as they are:
// the printable ones, tab and newline.
var printableASCII = func() (c [256]bool) {
	for b := 0x20; b < 0x7f; b++ {
		c[b] = true
	}
	c['\n'], c['\t'] = true, true
	return c
}()

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
		// The first of a BEL, an ST or the line's end ends it; each is
		// searched for with IndexByte, as the string may be long (an
		// inline image).
		end := len(s) // the line's end, or the text's
		if nl := strings.IndexByte(s[2:], '\n'); nl >= 0 {
			end = 2 + nl
		}
		if bel := strings.IndexByte(s[2:end], 0x07); bel >= 0 {
			end = 2 + bel
		}
		for j := 2; ; j++ {
			k := strings.IndexByte(s[j:end], 0x1b)
			if k < 0 {
				break
			}
			if j += k; j+1 < len(s) && s[j+1] == '\\' {
				return j + 2
			}
		}
		if end < len(s) && s[end] == 0x07 {
			return end + 1
		}
		return end
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
