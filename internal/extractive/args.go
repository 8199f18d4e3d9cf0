package extractive

import (
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/contextkit/compact/internal/textcut"
)

// decodeArgs returns a call's arguments decoded as json.Unmarshal decodes
// them into a map[string]any, or nil where it fails. A call's arguments
// are read here in one pass without reflection; what this reader leaves
// (a \u escape of a surrogate, bytes that are not UTF-8, a number out of
// range, nesting past maxArgsDepth, bad JSON) goes to json.Unmarshal, so
// the result is always its result. FuzzDecodeArgs holds the two together.
func decodeArgs(args string) map[string]any {
	i := skipSpace(args, 0)
	if i < len(args) && args[i] == '{' {
		if m, end, ok := readObject(args, i, 0); ok && skipSpace(args, end) == len(args) {
			return m
		}
	}
	var m map[string]any
	if json.Unmarshal([]byte(args), &m) != nil {
		return nil
	}
	return m
}

// maxArgsDepth is how deep readObject reads nested objects and arrays
// itself.
const maxArgsDepth = 64

// readObject reads the JSON object at s[i] (a '{'), depth levels down,
// returning it and the index after it. It reports false for anything it
// does not read, bad JSON included.
func readObject(s string, i, depth int) (map[string]any, int, bool) {
	m := map[string]any{}
	i = skipSpace(s, i+1)
	if i < len(s) && s[i] == '}' {
		return m, i + 1, true
	}
	for {
		key, next, ok := readString(s, i)
		if !ok {
			return nil, i, false
		}
		i = skipSpace(s, next)
		if i == len(s) || s[i] != ':' {
			return nil, i, false
		}
		v, next, ok := readValue(s, skipSpace(s, i+1), depth)
		if !ok {
			return nil, i, false
		}
		m[key] = v
		i = skipSpace(s, next)
		if i == len(s) {
			return nil, i, false
		}
		switch s[i] {
		case ',':
			i = skipSpace(s, i+1)
		case '}':
			return m, i + 1, true
		default:
			return nil, i, false
		}
	}
}

// readArray reads the JSON array at s[i] (a '['), as readObject reads an
// object.
func readArray(s string, i, depth int) ([]any, int, bool) {
	a := []any{}
	i = skipSpace(s, i+1)
	if i < len(s) && s[i] == ']' {
		return a, i + 1, true
	}
	for {
		v, next, ok := readValue(s, i, depth)
		if !ok {
			return nil, i, false
		}
		a = append(a, v)
		i = skipSpace(s, next)
		if i == len(s) {
			return nil, i, false
		}
		switch s[i] {
		case ',':
			i = skipSpace(s, i+1)
		case ']':
			return a, i + 1, true
		default:
			return nil, i, false
		}
	}
}

// readValue reads the JSON value at s[i:], a value of an object or array
// depth levels down.
func readValue(s string, i, depth int) (any, int, bool) {
	if i < len(s) && (s[i] == '{' || s[i] == '[') {
		if depth >= maxArgsDepth {
			return nil, i, false
		}
		if s[i] == '{' {
			return readObject(s, i, depth+1)
		}
		return readArray(s, i, depth+1)
	}
	return readScalar(s, i)
}

// skipSpace returns the index of the first byte of s at or after i that is
// not JSON white space.
func skipSpace(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\n' || s[i] == '\t' || s[i] == '\r') {
		i++
	}
	return i
}

// readScalar reads the string, number or literal at s[i:].
func readScalar(s string, i int) (any, int, bool) {
	if i == len(s) {
		return nil, i, false
	}
	switch c := s[i]; {
	case c == '"':
		return readString(s, i)
	case c == '-' || c >= '0' && c <= '9':
		end, ok := textcut.NumberEnd(s, i)
		if !ok {
			return nil, i, false
		}
		f, err := strconv.ParseFloat(s[i:end], 64)
		if err != nil {
			return nil, i, false
		}
		return f, end, true
	}
	for _, lit := range [...]struct {
		word string
		v    any
	}{{"true", true}, {"false", false}, {"null", nil}} {
		if strings.HasPrefix(s[i:], lit.word) {
			return lit.v, i + len(lit.word), true
		}
	}
	return nil, i, false
}

// readString reads the JSON string at s[i:], returning its value and the
// index after its closing quote. It reports false for a \u escape of a
// surrogate and for bytes that are not UTF-8 (json.Unmarshal's way with
// those is left to it), and for anything that is not a JSON string.
func readString(s string, i int) (string, int, bool) {
	if i == len(s) || s[i] != '"' {
		return "", i, false
	}
	i++
	start := i
	for i < len(s) {
		c := s[i]
		switch {
		case c == '"':
			return s[start:i], i + 1, true
		case c == '\\':
			return readEscaped(s, start, i)
		case c < 0x20:
			return "", i, false
		case c >= utf8.RuneSelf:
			r, n := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && n == 1 {
				return "", i, false
			}
			i += n
		default:
			i++
		}
	}
	return "", i, false
}

// readEscaped goes on with readString from its first backslash at s[i],
// the string's text starting at s[start].
func readEscaped(s string, start, i int) (string, int, bool) {
	var b strings.Builder
	b.Grow(i - start + 16)
	b.WriteString(s[start:i])
	for i < len(s) {
		c := s[i]
		switch {
		case c == '"':
			return b.String(), i + 1, true
		case c == '\\':
			if i+1 == len(s) {
				return "", i, false
			}
			switch e := s[i+1]; e {
			case '"', '\\', '/':
				b.WriteByte(e)
			case 'b':
				b.WriteByte('\b')
			case 'f':
				b.WriteByte('\f')
			case 'n':
				b.WriteByte('\n')
			case 'r':
				b.WriteByte('\r')
			case 't':
				b.WriteByte('\t')
			case 'u':
				if i+6 > len(s) {
					return "", i, false
				}
				r, err := strconv.ParseUint(s[i+2:i+6], 16, 32)
				if err != nil || r >= 0xD800 && r < 0xE000 {
					return "", i, false
				}
				b.WriteRune(rune(r))
				i += 6
				continue
			default:
				return "", i, false
			}
			i += 2
		case c < 0x20:
			return "", i, false
		case c >= utf8.RuneSelf:
			r, n := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && n == 1 {
				return "", i, false
			}
			b.WriteString(s[i : i+n])
			i += n
		default:
			b.WriteByte(c)
			i++
		}
	}
	return "", i, false
}
