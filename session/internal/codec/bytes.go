package codec

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/internal/msg"
)

// A string that is not valid UTF-8 cannot travel in JSON: encoding/json
// writes U+FFFD for each bad byte. A message holding one is kept with every
// string escaped instead, which loses nothing: '%' becomes "%25" and each
// byte that is not part of valid UTF-8 becomes '%' and its two hex digits;
// all else is kept. Such a message's JSON opens with the key below, which
// go-openai never writes, so a message kept before this existed (or one
// whose text is all valid UTF-8, the common case) is plain go-openai JSON,
// as before. NUL needs nothing: JSON writes it as \u0000 and reads it back.

// encodingKey marks a message whose strings are escaped; its value names
// the escape.
const encodingKey = "x-compact-encoding"

const percent = "percent"

// escapedPrefix opens the JSON of a message whose strings are escaped.
var escapedPrefix = []byte(`{"` + encodingKey + `":"` + percent + `"`)

// errEscape reports an escaped string that no escape produced.
var errEscape = errors.New("a string's escapes are broken")

// eachText calls f with a pointer to every string m holds: the role, the
// content, each part's type, text, image URL and detail, the name, the
// refusal, the reasoning, the function call, each tool call's id, type,
// name and arguments, and the tool call id. f writes through the pointer
// only to change the string, so a reading f touches nothing of m's slices.
func eachText(m *compact.Message, f func(*string)) {
	f(&m.Role)
	f(&m.Content)
	f(&m.Refusal)
	for i := range m.MultiContent {
		p := &m.MultiContent[i]
		typed(&p.Type, f)
		f(&p.Text)
		if p.ImageURL != nil {
			f(&p.ImageURL.URL)
			typed(&p.ImageURL.Detail, f)
		}
	}
	f(&m.Name)
	f(&m.ReasoningContent)
	if m.FunctionCall != nil {
		f(&m.FunctionCall.Name)
		f(&m.FunctionCall.Arguments)
	}
	for i := range m.ToolCalls {
		c := &m.ToolCalls[i]
		f(&c.ID)
		typed(&c.Type, f)
		f(&c.Function.Name)
		f(&c.Function.Arguments)
	}
	f(&m.ToolCallID)
}

// typed calls f with a string of a named string type, writing it back only
// when f changed it.
func typed[T ~string](p *T, f func(*string)) {
	s := string(*p)
	f(&s)
	if s != string(*p) {
		*p = T(s)
	}
}

// allValid reports whether every string of m is valid UTF-8.
func allValid(m compact.Message) bool {
	ok := true
	eachText(&m, func(s *string) { ok = ok && utf8.ValidString(*s) })
	return ok
}

// escaped returns m's JSON with every string escaped, for a message that
// holds text that is not UTF-8. m is not modified.
func escaped(m compact.Message) ([]byte, error) {
	c := msg.CloneMessage(m)
	eachText(&c, func(s *string) { *s = escape(*s) })
	b, err := json.Marshal(c)
	if err != nil {
		return nil, err
	}
	// go-openai always writes "role", so the object is never empty.
	return append(append(escapedPrefix[:len(escapedPrefix):len(escapedPrefix)], ','), b[1:]...), nil
}

// unescapeMessage undoes what escaped did to m's strings, when b, the JSON
// m was read from, says it was escaped.
func unescapeMessage(b []byte, m *compact.Message) error {
	if !bytes.Contains(b, []byte(encodingKey)) {
		return nil
	}
	var mark map[string]json.RawMessage
	if err := json.Unmarshal(b, &mark); err != nil {
		return err
	}
	raw, ok := mark[encodingKey]
	if !ok {
		return nil // the key is in some text, not a key of the message
	}
	var how string
	if err := json.Unmarshal(raw, &how); err != nil || how != percent {
		return fmt.Errorf("unknown %s %s", encodingKey, raw)
	}
	var err error
	eachText(m, func(s *string) {
		if err == nil {
			*s, err = unescape(*s)
		}
	})
	return err
}

// escape writes s as valid UTF-8 that unescape reads back byte for byte.
func escape(s string) string {
	var b []byte
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		bad := r == utf8.RuneError && n == 1
		if !bad && s[i] != '%' {
			if b != nil {
				b = append(b, s[i:i+n]...)
			}
			i += n
			continue
		}
		if b == nil {
			b = append(make([]byte, 0, len(s)+8), s[:i]...)
		}
		b = append(b, '%', hex[s[i]>>4], hex[s[i]&15])
		i++
	}
	if b == nil {
		return s
	}
	return string(b)
}

const hex = "0123456789ABCDEF"

// unescape reads what escape wrote.
func unescape(s string) (string, error) {
	i := strings.IndexByte(s, '%')
	if i < 0 {
		return s, nil
	}
	b := append(make([]byte, 0, len(s)), s[:i]...)
	for ; i < len(s); i++ {
		if s[i] != '%' {
			b = append(b, s[i])
			continue
		}
		if i+2 >= len(s) {
			return "", errEscape
		}
		hi, lo := unhex(s[i+1]), unhex(s[i+2])
		if hi < 0 || lo < 0 {
			return "", errEscape
		}
		b = append(b, byte(hi<<4|lo))
		i += 2
	}
	return string(b), nil
}

func unhex(c byte) int {
	switch {
	case '0' <= c && c <= '9':
		return int(c - '0')
	case 'A' <= c && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}
