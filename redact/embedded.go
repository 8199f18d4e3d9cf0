package redact

import "strings"

// redactEmbeddedJSON reads the JSON objects and arrays inside text as JSON
// reads them: a log line's JSON payload, the JSON body a command printed,
// a JSON text whole. Each is redacted string by string, decoded first, so a
// secret behind JSON escapes (a query's "\u0026sig=", "https:\/\/",
// "Cookie\u003a") or under a key that names it goes, and the JSON stays
// valid. The text around them is left to the other rules. f redacts each
// string, given with its control characters stripped: String's rules
// (or, in tests, String as it ran before the fast path).
func redactEmbeddedJSON(s string, f func(string) string) string {
	if strings.IndexByte(s, '{') < 0 && strings.IndexByte(s, '[') < 0 {
		return s
	}
	var b strings.Builder
	last := 0
	for _, sp := range jsonSpans(s) {
		v := s[sp.start:sp.end] // valid JSON: jsonScanner checked it as encoding/json would
		out := redactJSONValue(v, f, 0)
		if out == v {
			continue
		}
		if last == 0 {
			b.Grow(len(s))
		}
		b.WriteString(s[last:sp.start])
		b.WriteString(out)
		last = sp.end
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// span is s[start:end] of some s.
type span struct{ start, end int }

// jsonSpans returns the outermost JSON objects and arrays in s that hold a
// string, in order. A value cut off or broken keeps the objects and arrays
// inside it that were whole. It reads s once: after a value that failed,
// reading goes on where it failed.
func jsonSpans(s string) []span {
	var out []span
	opens := pairFinder{s: s, a: '{', b: '['}
	for i := 0; ; {
		if i = opens.next(i); i < 0 {
			return out
		}
		r := jsonScanner{src: s}
		end, ok := r.scan(i)
		out = append(out, r.done...)
		if ok {
			i = end
		} else {
			i = max(end, i+1)
		}
	}
}

// maxJSONDepth bounds the nesting the scanner follows, as encoding/json
// bounds it.
const maxJSONDepth = 10000

// jsonScanner checks that a JSON object or array is valid, byte by byte,
// and records the objects and arrays holding a string that it read whole.
type jsonScanner struct {
	src   string
	stack []container
	done  []span // outermost whole containers holding a string, in order
}

// container is an object or array being read.
type container struct {
	start     int
	kind      byte // '{' or '['
	hasString bool
}

// scan reads the value starting at src[i], which is '{' or '['. It returns
// the end of the value and true when it is valid, or where reading failed.
func (r *jsonScanner) scan(i int) (int, bool) {
	s := r.src
	for {
		// A value is expected at s[i].
		i = skipJSONSpace(s, i)
		if i >= len(s) {
			return i, false
		}
		switch c := s[i]; {
		case c == '{' || c == '[':
			if len(r.stack) == maxJSONDepth {
				return i, false
			}
			r.stack = append(r.stack, container{start: i, kind: c})
			i = skipJSONSpace(s, i+1)
			if i < len(s) && (s[i] == '}' && c == '{' || s[i] == ']' && c == '[') {
				r.close(i)
				i++
				break
			}
			if c == '{' {
				var ok bool
				if i, ok = r.key(i); !ok {
					return i, false
				}
			}
			continue
		case c == '"':
			e, ok := jsonStringEnd(s, i)
			if !ok {
				return e, false
			}
			r.stack[len(r.stack)-1].hasString = true
			i = e
		default:
			e := jsonLiteralEnd(s, i)
			if e == i {
				return i, false
			}
			i = e
		}
		// A value was read: a separator or a closing bracket follows.
		for {
			if len(r.stack) == 0 {
				return i, true
			}
			i = skipJSONSpace(s, i)
			if i >= len(s) {
				return i, false
			}
			top := r.stack[len(r.stack)-1]
			if s[i] == ',' {
				i++
				if top.kind == '{' {
					var ok bool
					if i, ok = r.key(skipJSONSpace(s, i)); !ok {
						return i, false
					}
				}
				break
			}
			if s[i] != top.kind+2 { // '{'+2 is '}', '['+2 is ']'
				return i, false
			}
			r.close(i)
			i++
		}
	}
}

// key reads an object's key and its colon at s[i] and returns where the
// value starts.
func (r *jsonScanner) key(i int) (int, bool) {
	if i >= len(r.src) || r.src[i] != '"' {
		return i, false
	}
	e, ok := jsonStringEnd(r.src, i)
	if !ok {
		return e, false
	}
	r.stack[len(r.stack)-1].hasString = true
	e = skipJSONSpace(r.src, e)
	if e >= len(r.src) || r.src[e] != ':' {
		return e, false
	}
	return e + 1, true
}

// close ends the container on top of the stack at its closing bracket
// src[i].
func (r *jsonScanner) close(i int) {
	c := r.stack[len(r.stack)-1]
	r.stack = r.stack[:len(r.stack)-1]
	if !c.hasString {
		return
	}
	if len(r.stack) > 0 {
		r.stack[len(r.stack)-1].hasString = true
	}
	for len(r.done) > 0 && r.done[len(r.done)-1].start >= c.start {
		r.done = r.done[:len(r.done)-1]
	}
	r.done = append(r.done, span{c.start, i + 1})
}

func skipJSONSpace(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r') {
		i++
	}
	return i
}

// jsonStringEnd returns the end of the string literal starting at s[i]
// (a quote), and whether it is valid: no raw control character, only the
// escapes JSON has.
func jsonStringEnd(s string, i int) (int, bool) {
	for i++; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"':
			return i + 1, true
		case c < 0x20:
			return i, false
		case c == '\\':
			if i+1 >= len(s) {
				return i, false
			}
			i++
			switch s[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if hex4(s[i+1:]) < 0 {
					return i, false
				}
				i += 4
			default:
				return i, false
			}
		}
	}
	return i, false
}

// jsonLiteralEnd returns the end of the number, true, false or null at
// s[i], or i when there is none. A number is checked against JSON's
// grammar.
func jsonLiteralEnd(s string, i int) int {
	for _, lit := range [...]string{"true", "false", "null"} {
		if strings.HasPrefix(s[i:], lit) {
			return i + len(lit)
		}
	}
	j := i
	if j < len(s) && s[j] == '-' {
		j++
	}
	switch {
	case j < len(s) && s[j] == '0':
		j++
	case j < len(s) && s[j] >= '1' && s[j] <= '9':
		j = digits(s, j)
	default:
		return i
	}
	if j < len(s) && s[j] == '.' {
		if k := digits(s, j+1); k > j+1 {
			j = k
		} else {
			return i
		}
	}
	if j < len(s) && (s[j] == 'e' || s[j] == 'E') {
		k := j + 1
		if k < len(s) && (s[k] == '+' || s[k] == '-') {
			k++
		}
		if e := digits(s, k); e > k {
			j = e
		} else {
			return i
		}
	}
	return j
}

func digits(s string, i int) int {
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return i
}
