package textcut

import (
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// JSON string literals as encoding/json reads and writes them, without
// its reflection and buffers: the few literals Arguments shortens are
// most of its work.

// unquote returns the value of lit as json.Unmarshal decodes it into a
// string, when lit is one well-formed JSON string literal; ok is false
// otherwise (json.Unmarshal then decides). Invalid UTF-8 and lone
// surrogates become U+FFFD, so the value is valid UTF-8.
func unquote(lit string) (v string, ok bool) {
	if len(lit) < 2 || lit[0] != '"' || lit[len(lit)-1] != '"' {
		return "", false
	}
	s := lit[1 : len(lit)-1]
	r := 0
	for r < len(s) {
		if r+8 <= len(s) && plain8(word(s[r:r+8])) {
			r += 8
			continue
		}
		c := s[r]
		if c == '\\' || c == '"' || c < ' ' {
			break
		}
		if c < utf8.RuneSelf {
			r++
			continue
		}
		rr, size := utf8.DecodeRuneInString(s[r:])
		if rr == utf8.RuneError && size == 1 {
			break
		}
		r += size
	}
	if r == len(s) {
		return s, true
	}
	b := make([]byte, r, len(s)+utf8.UTFMax)
	copy(b, s[:r])
	for r < len(s) {
		if c := s[r]; c >= ' ' && c < utf8.RuneSelf && c != '"' && c != '\\' {
			j := r + 1 // copy the run of such bytes at once
			for j+8 <= len(s) && plain8(word(s[j:j+8])) {
				j += 8
			}
			for j < len(s) && s[j] >= ' ' && s[j] < utf8.RuneSelf && s[j] != '"' && s[j] != '\\' {
				j++
			}
			b = append(b, s[r:j]...)
			r = j
			continue
		}
		switch c := s[r]; {
		case c == '\\':
			r++
			if r >= len(s) {
				return "", false
			}
			switch s[r] {
			case '"', '\\', '/':
				b = append(b, s[r])
			case 'b':
				b = append(b, '\b')
			case 'f':
				b = append(b, '\f')
			case 'n':
				b = append(b, '\n')
			case 'r':
				b = append(b, '\r')
			case 't':
				b = append(b, '\t')
			case 'u':
				r--
				rr := getu4(s[r:])
				if rr < 0 {
					return "", false
				}
				r += 6
				if utf16.IsSurrogate(rr) {
					if dec := utf16.DecodeRune(rr, getu4(s[r:])); dec != unicode.ReplacementChar {
						r += 6 // a valid pair
						b = utf8.AppendRune(b, dec)
						continue
					}
					rr = unicode.ReplacementChar
				}
				b = utf8.AppendRune(b, rr)
				continue
			default:
				return "", false
			}
			r++
		case c == '"', c < ' ':
			return "", false
		default:
			rr, size := utf8.DecodeRuneInString(s[r:])
			r += size
			b = utf8.AppendRune(b, rr)
		}
	}
	return string(b), true
}

// getu4 decodes \uXXXX from the start of s, or returns -1.
func getu4(s string) rune {
	if len(s) < 6 || s[0] != '\\' || s[1] != 'u' {
		return -1
	}
	var r rune
	for _, c := range []byte(s[2:6]) {
		switch {
		case '0' <= c && c <= '9':
			c = c - '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			return -1
		}
		r = r*16 + rune(c)
	}
	return r
}

// writeQuoted writes s encoded as the inside of a JSON string literal, as
// a json.Encoder that does not escape HTML writes it (so "<" and "&" in
// commands stay readable): ", \ and control characters escaped, invalid
// UTF-8 as \ufffd, U+2028 and U+2029 as escapes, the rest as it is.
func writeQuoted(b *strings.Builder, s string) {
	start := 0
	for i := 0; i < len(s); {
		if i+8 <= len(s) && plain8(word(s[i:i+8])) {
			i += 8
			continue
		}
		if c := s[i]; c < utf8.RuneSelf {
			if c >= ' ' && c != '"' && c != '\\' {
				i++
				continue
			}
			b.WriteString(s[start:i])
			switch c {
			case '\\', '"':
				b.WriteByte('\\')
				b.WriteByte(c)
			case '\b':
				b.WriteString(`\b`)
			case '\f':
				b.WriteString(`\f`)
			case '\n':
				b.WriteString(`\n`)
			case '\r':
				b.WriteString(`\r`)
			case '\t':
				b.WriteString(`\t`)
			default:
				b.WriteString(`\u00`)
				b.WriteByte(hexDigits[c>>4])
				b.WriteByte(hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		c, size := utf8.DecodeRuneInString(s[i:])
		if c == utf8.RuneError && size == 1 {
			b.WriteString(s[start:i])
			b.WriteString(`\ufffd`)
			i += size
			start = i
			continue
		}
		if c == '\u2028' || c == '\u2029' {
			b.WriteString(s[start:i])
			b.WriteString(`\u202`)
			b.WriteByte(hexDigits[c&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b.WriteString(s[start:])
}

// quotedRunes is the length in characters of what writeQuoted writes for s.
func quotedRunes(s string) int {
	n := 0
	for i := 0; i < len(s); {
		if i+8 <= len(s) && plain8(word(s[i:i+8])) {
			i, n = i+8, n+8
			continue
		}
		if c := s[i]; c < utf8.RuneSelf {
			switch {
			case c >= ' ' && c != '"' && c != '\\':
				n++
			case c == '\\', c == '"', c == '\b', c == '\f', c == '\n', c == '\r', c == '\t':
				n += 2
			default:
				n += 6
			}
			i++
			continue
		}
		c, size := utf8.DecodeRuneInString(s[i:])
		if c == utf8.RuneError && size == 1 || c == '\u2028' || c == '\u2029' {
			n += 6
		} else {
			n++
		}
		i += size
	}
	return n
}

// hexDigits are the digits of a \u escape, as encoding/json writes them.
const hexDigits = "0123456789abcdef"

// plain8 reports whether the eight bytes of x are printable ASCII other
// than " and \, which a JSON string literal holds as they are.
func plain8(x uint64) bool { return x&highBits == 0 && inString8(x) }

// inString8 reports whether none of the eight bytes of x is a control
// character, " or \: bytes a JSON string literal holds as they are, or
// starts a rune with.
func inString8(x uint64) bool {
	const ones = 0x0101010101010101
	// Some byte is below 0x20 when subtracting 0x20 from every byte sets
	// the high bit of a byte that lacked it; some byte is c when x with
	// every byte xor c has a zero byte, found the same way.
	low := (x - ones*0x20) &^ x
	quote := (x ^ ones*'"' - ones) &^ (x ^ ones*'"')
	slash := (x ^ ones*'\\' - ones) &^ (x ^ ones*'\\')
	return (low|quote|slash)&highBits == 0
}
