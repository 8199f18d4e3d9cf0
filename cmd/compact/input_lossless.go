package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// encoding/json reads some valid-looking JSON without a word and changes
// it on the way: a lone UTF-16 surrogate ("\ud800") or a byte that is not
// UTF-8 becomes U+FFFD, and of a key given twice only the last value is
// kept. The command would then write back something other than it read,
// with exit status 0. checkLossless finds those before decoding.

// errNotJSON is what the scanner says about bytes that are not JSON; its
// callers have already checked that they are, so it is only a guard.
var errNotJSON = errors.New("not JSON")

// checkLossless reports the first place in raw, a JSON value, that
// encoding/json would not read back exactly: a string (value or key) with
// a lone surrogate or invalid UTF-8, or an object with a key twice. The
// error names the place as a path from raw's root ("content[0].text").
func checkLossless(raw []byte) error {
	s := &scanner{data: raw}
	return s.value("")
}

// scanner walks JSON text that is known to be valid.
type scanner struct {
	data []byte
	pos  int
}

func (s *scanner) value(path string) error {
	s.space()
	if s.pos >= len(s.data) {
		return errNotJSON
	}
	switch s.data[s.pos] {
	case '{':
		return s.object(path)
	case '[':
		return s.array(path)
	case '"':
		if _, err := s.str(); err != nil {
			return atPath(path, err.Error())
		}
		return nil
	}
	// A number, true, false or null: nothing in it can change.
	start := s.pos
	for s.pos < len(s.data) && !isJSONDelim(s.data[s.pos]) {
		s.pos++
	}
	if s.pos == start {
		return errNotJSON
	}
	return nil
}

func (s *scanner) object(path string) error {
	s.pos++ // {
	seen := map[string]bool{}
	for {
		s.space()
		if s.next('}') {
			return nil
		}
		if s.pos >= len(s.data) || s.data[s.pos] != '"' {
			return errNotJSON
		}
		lit, err := s.str()
		if err != nil {
			return atPath(path, "a key has "+err.Error())
		}
		var key string
		if err := json.Unmarshal(lit, &key); err != nil {
			return errNotJSON
		}
		if seen[key] {
			return atPath(path, fmt.Sprintf("key %q appears twice; only the last would be kept", key))
		}
		seen[key] = true
		s.space()
		if !s.next(':') {
			return errNotJSON
		}
		if err := s.value(joinKey(path, key)); err != nil {
			return err
		}
		s.space()
		if s.next('}') {
			return nil
		}
		if !s.next(',') {
			return errNotJSON
		}
	}
}

func (s *scanner) array(path string) error {
	s.pos++ // [
	for i := 0; ; i++ {
		s.space()
		if s.next(']') {
			return nil
		}
		if err := s.value(fmt.Sprintf("%s[%d]", path, i)); err != nil {
			return err
		}
		s.space()
		if s.next(']') {
			return nil
		}
		if !s.next(',') {
			return errNotJSON
		}
	}
}

// str reads the string literal at s.pos and returns it with its quotes.
// Its error says what in it would not survive decoding.
func (s *scanner) str() ([]byte, error) {
	start := s.pos
	i := s.pos + 1
	for i < len(s.data) {
		c := s.data[i]
		switch {
		case c == '"':
			s.pos = i + 1
			return s.data[start:s.pos], nil
		case c == '\\':
			if i+1 >= len(s.data) {
				return nil, errNotJSON
			}
			if s.data[i+1] != 'u' {
				i += 2
				continue
			}
			r, ok := hex4(s.data, i+2)
			if !ok {
				return nil, errNotJSON
			}
			switch {
			case utf16.IsSurrogate(r) && r < 0xdc00: // a high surrogate: a low one must follow
				if lo, ok := hex4(s.data, i+8); ok && s.data[i+6] == '\\' && s.data[i+7] == 'u' &&
					lo >= 0xdc00 && lo <= 0xdfff {
					i += 12
					continue
				}
				return nil, loneSurrogate(r)
			case utf16.IsSurrogate(r):
				return nil, loneSurrogate(r)
			}
			i += 6
		case c < utf8.RuneSelf:
			i++
		default:
			r, size := utf8.DecodeRune(s.data[i:])
			if r == utf8.RuneError && size == 1 {
				return nil, fmt.Errorf("invalid UTF-8 (byte %#x), which would come back as U+FFFD", c)
			}
			i += size
		}
	}
	return nil, errNotJSON
}

func loneSurrogate(r rune) error {
	return fmt.Errorf(`a lone UTF-16 surrogate \u%04x, which would come back as U+FFFD`, r)
}

// hex4 decodes the four hex digits at data[at:], if there are four.
func hex4(data []byte, at int) (rune, bool) {
	if at < 0 || at+4 > len(data) {
		return 0, false
	}
	n, err := strconv.ParseUint(string(data[at:at+4]), 16, 16)
	return rune(n), err == nil
}

func (s *scanner) space() {
	for s.pos < len(s.data) {
		switch s.data[s.pos] {
		case ' ', '\t', '\n', '\r':
			s.pos++
		default:
			return
		}
	}
}

// next consumes c if it is the next byte.
func (s *scanner) next(c byte) bool {
	if s.pos < len(s.data) && s.data[s.pos] == c {
		s.pos++
		return true
	}
	return false
}

func isJSONDelim(c byte) bool {
	switch c {
	case ',', ':', ']', '}', '[', '{', '"', ' ', '\t', '\n', '\r':
		return true
	}
	return false
}

// joinKey extends path by an object key, quoting a key that is not a
// plain name so the path stays one readable line.
func joinKey(path, key string) string {
	plain := key != ""
	for _, r := range key {
		if !(r == '_' || r == '-' || '0' <= r && r <= '9' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z') {
			plain = false
			break
		}
	}
	switch {
	case !plain:
		return fmt.Sprintf("%s[%q]", path, key)
	case path == "":
		return key
	default:
		return path + "." + key
	}
}

// atPath puts path in front of problem, when there is a path.
func atPath(path, problem string) error {
	if path == "" {
		return errors.New(problem)
	}
	return fmt.Errorf("%s: %s", path, problem)
}
