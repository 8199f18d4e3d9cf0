package textcut

// maxDepth is the deepest nesting of objects and arrays json.Valid
// accepts.
const maxDepth = 10000

// jsonSpans returns the string literals of s in order, as StringSpans
// does, and whether s is valid JSON, as json.Valid says, in one pass.
func jsonSpans(s string) (spans []Span, ok bool) {
	var buf [64]bool
	open := buf[:0] // true for an object, false for an array
	i := 0
	for {
		// A value begins at i.
		i = skipSpace(s, i)
		if i >= len(s) {
			return nil, false
		}
		switch c := s[i]; {
		case c == '{' || c == '[':
			open = append(open, c == '{')
			if len(open) > maxDepth {
				return nil, false
			}
			i = skipSpace(s, i+1)
			if i < len(s) && s[i] == c+2 { // '}' or ']'
				open = open[:len(open)-1]
				i++
				break
			}
			if c == '{' {
				if i, spans, ok = key(s, i, spans); !ok {
					return nil, false
				}
			}
			continue
		case c == '"':
			end, ok := stringEnd(s, i)
			if !ok {
				return nil, false
			}
			spans = append(spans, Span{i, end})
			i = end
		case c == '-' || c >= '0' && c <= '9':
			if i, ok = NumberEnd(s, i); !ok {
				return nil, false
			}
		case c == 't' && len(s)-i >= 4 && s[i:i+4] == "true",
			c == 'n' && len(s)-i >= 4 && s[i:i+4] == "null":
			i += 4
		case c == 'f' && len(s)-i >= 5 && s[i:i+5] == "false":
			i += 5
		default:
			return nil, false
		}
		// A value ended at i: close what it ends, then expect the next.
		for {
			i = skipSpace(s, i)
			if len(open) == 0 {
				return spans, i == len(s)
			}
			if i >= len(s) {
				return nil, false
			}
			object := open[len(open)-1]
			if c := s[i]; object && c == '}' || !object && c == ']' {
				open = open[:len(open)-1]
				i++
				continue
			}
			if s[i] != ',' {
				return nil, false
			}
			i++
			if object {
				if i, spans, ok = key(s, skipSpace(s, i), spans); !ok {
					return nil, false
				}
			}
			break
		}
	}
}

// key reads an object's key at i and the colon after it, returning
// where its value may begin.
func key(s string, i int, spans []Span) (int, []Span, bool) {
	if i >= len(s) || s[i] != '"' {
		return i, spans, false
	}
	end, ok := stringEnd(s, i)
	if !ok {
		return i, spans, false
	}
	spans = append(spans, Span{i, end})
	i = skipSpace(s, end)
	if i >= len(s) || s[i] != ':' {
		return i, spans, false
	}
	return i + 1, spans, true
}

// skipSpace returns the first index from i that is not JSON white space.
func skipSpace(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r') {
		i++
	}
	return i
}

// stringEnd returns the index after the string literal that begins at
// s[i] == '"', and whether it is well formed.
func stringEnd(s string, i int) (int, bool) {
	for i++; i < len(s); {
		if i+8 <= len(s) && inString8(word(s[i:i+8])) {
			i += 8
			continue
		}
		switch c := s[i]; {
		case c == '"':
			return i + 1, true
		case c < ' ':
			return i, false
		case c == '\\':
			if i+1 >= len(s) {
				return i, false
			}
			switch s[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if getu4(s[i:]) < 0 {
					return i, false
				}
				i += 6
			default:
				return i, false
			}
		default:
			i++
		}
	}
	return i, false
}

// NumberEnd returns the index after the JSON number that begins at s[i],
// and whether one does: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?.
// An i at or past the end of s holds none.
func NumberEnd(s string, i int) (int, bool) {
	if i < len(s) && s[i] == '-' {
		i++
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case i < len(s) && s[i] >= '1' && s[i] <= '9':
		i = digitsEnd(s, i+1)
	default:
		return i, false
	}
	if i < len(s) && s[i] == '.' {
		j := digitsEnd(s, i+1)
		if j == i+1 {
			return i, false
		}
		i = j
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		j := digitsEnd(s, i)
		if j == i {
			return i, false
		}
		i = j
	}
	return i, true
}

// digitsEnd returns the first index from i that is not a digit.
func digitsEnd(s string, i int) int {
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return i
}
