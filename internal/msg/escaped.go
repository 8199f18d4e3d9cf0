package msg

import (
	"encoding/json"
	"strings"
)

// EscapedArguments returns, one after another on lines of their own, the
// string values in m's tool-call arguments that the arguments' JSON does
// not hold verbatim: those with a quote, a backslash, a line break or a
// character written as a \u escape. A shell command such as
// grep "x" a.go is stored as "grep \"x\" a.go"; a search for the command
// as it ran must find it, so the text a store searches
// (session/store.SearchText) adds the decoded value. Arguments that are not
// valid JSON add nothing past their first problem.
func EscapedArguments(m Message) string {
	var b strings.Builder
	for _, c := range m.ToolCalls {
		raw := c.Function.Arguments
		if !strings.Contains(raw, `\`) {
			continue // nothing is escaped
		}
		dec := json.NewDecoder(strings.NewReader(raw))
		for {
			tok, err := dec.Token()
			if err != nil {
				break // the end, or the first problem
			}
			s, ok := tok.(string)
			if !ok || s == "" || strings.Contains(raw, s) {
				continue
			}
			if b.Len() > 0 {
				b.WriteByte('\n')
			}
			b.WriteString(s)
		}
	}
	return b.String()
}
