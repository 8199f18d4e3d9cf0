package redact

import "strings"

// lineJoin is how a one-line rendering of text writes a line break: a
// summary's list item, a message quoted on one line.
const lineJoin = " ⏎ "

// redactJoinedLines redacts each line of s that joins lines with lineJoin
// as the text it was made from, its line breaks back: a .netrc entry, a
// credentials file or a private key written on one line keeps the shape
// the rules know it by. Lines without lineJoin are left to redactText.
// text is redactText (or, in tests, the rules as they ran before the fast
// path).
func redactJoinedLines(s string, text func(string) string) string {
	if !containsLineJoin(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for rest := s; rest != ""; {
		line, after, found := strings.Cut(rest, "\n")
		if containsLineJoin(line) {
			// line holds no newline, and no rule writes one: every newline
			// the rules leave is a lineJoin.
			line = strings.ReplaceAll(text(strings.ReplaceAll(line, lineJoin, "\n")), "\n", lineJoin)
		}
		b.WriteString(line)
		if found {
			b.WriteByte('\n')
		}
		rest = after
	}
	return b.String()
}

// containsLineJoin reports whether s holds lineJoin. It searches for the
// rare "⏎" and looks at the bytes around it, where strings.Contains would
// stop at every space.
func containsLineJoin(s string) bool {
	const mark = "⏎" // lineJoin without its spaces
	for i := 0; ; {
		k := strings.Index(s[i:], mark)
		if k < 0 {
			return false
		}
		k += i
		if k > 0 && s[k-1] == ' ' && k+len(mark) < len(s) && s[k+len(mark)] == ' ' {
			return true
		}
		i = k + 1
	}
}
