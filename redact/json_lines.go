package redact

import (
	"encoding/json"
	"strings"
)

// This file holds how JSON finds JSON texts among the lines of a text
// (JSON Lines, a log of JSON records) and reads them one by one.

// hasJSONLines reports whether some line of s after the first may be a JSON
// value, or s starts like one and has more lines: text redactJSONLines
// reads line by line.
func hasJSONLines(s string) bool {
	return lineOpensJSON(s) || mayBeJSON(s) && strings.IndexByte(s, '\n') >= 0
}

// lineOpensJSON reports whether a line of s after the first starts with
// "{" or "[" (s holds "\n{" or "\n["), going from line break to line break
// in one pass.
func lineOpensJSON(s string) bool {
	for i := 0; ; {
		k := strings.IndexByte(s[i:], '\n')
		if k < 0 {
			return false
		}
		i += k + 1
		if i < len(s) && (s[i] == '{' || s[i] == '[') {
			return true
		}
	}
}

// asJSON returns s when it is a JSON text worth reading as JSON, or s
// stripped of control characters when that is one (a raw escape
// character makes JSON invalid; StripControl takes it out, as it would in
// any text). The JSON text itself is read as it stands, never stripped
// whole when it is valid: an 8-bit CSI would take the quote and brace after
// it for its parameters. clean says s holds no control character
// (StripControl(s) == s), so that it need not be stripped to be sure.
func asJSON(s string, clean bool) (string, bool) {
	if mayBeJSON(s) && json.Valid([]byte(s)) {
		return s, true
	}
	if clean {
		return "", false
	}
	// A control character before the JSON counts too: stripped, as any
	// text would be, it leaves JSON, which a second pass would read as such.
	if c := StripControl(s); c != s && mayBeJSON(c) && json.Valid([]byte(c)) {
		return c, true
	}
	return "", false
}

// redactJSONLines redacts text some of whose lines are JSON values: each
// such line is read as JSON, and each run of other lines goes to f whole, so
// that a secret spanning lines (a private key block) is still seen whole.
// clean says s holds no control character (StripControl(s) == s), and so
// neither do its lines. A run is a substring of s: its lines are not
// copied out and joined again.
func redactJSONLines(s string, f func(string) string, depth int, clean bool) string {
	text := func(t string) string {
		if !clean {
			t = StripControl(t)
		}
		return f(t)
	}
	var b strings.Builder
	// s[run:] starts the pending run of non-JSON lines; pending says it
	// holds a line, if only the empty one after a final newline.
	run, pending, found := 0, false, false
	for start := 0; ; {
		end, last := len(s), true // the line is s[start:end], its "\n" included
		if nl := strings.IndexByte(s[start:], '\n'); nl >= 0 {
			end, last = start+nl+1, false
		}
		l := s[start:end]
		if doc, ok := asJSON(strings.TrimRight(l, "\r\n"), clean); ok {
			if !found {
				b.Grow(len(s))
				found = true
			}
			if pending {
				b.WriteString(text(s[run:start]))
			}
			b.WriteString(redactJSONValue(doc, f, depth))
			if strings.HasSuffix(l, "\n") {
				b.WriteByte('\n') // for a "\r\n" too, as StripControl ends a line
			}
			run, pending = end, false
		} else {
			pending = true
		}
		if last {
			break
		}
		start = end
	}
	if !found {
		return text(s)
	}
	if pending {
		b.WriteString(text(s[run:]))
	}
	return b.String()
}
