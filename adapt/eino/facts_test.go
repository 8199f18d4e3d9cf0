package eino

import (
	"encoding/json"
	"regexp"
	"strings"

	"github.com/contextkit/compact"
)

// This file finds, in a history, the facts a successor needs after a
// compaction, for the comparison with eino's middlewares. Its rules are its
// own (simpler than the compact command's probe) and know nothing of the
// extractive summarizer.

// facts are what a successor needs from a history, by kind.
type facts map[string][]string

// factKinds are the kinds facts are reported by, in order.
var factKinds = []string{"latest ask", "paths", "identifiers", "error lines"}

// pathArgs are tool-call argument names whose string values are paths.
var pathArgs = map[string]bool{"path": true, "file": true, "filename": true, "file_path": true,
	"filepath": true, "target_file": true, "paths": true, "files": true}

// errorLine matches a line of tool output that reports an error: after an
// optional margin (pytest's "E", a list dash), location (file:line:col:) or
// lint code (E999), an error word or an exception name and a colon. Code
// listings (a line number first) and diffs (+ or - and code) do not match.
var errorLine = regexp.MustCompile(`^\s*(E\s+|-\s+)?(\S+:\d+(:\d+)?:\s*|[A-Z]\d{3,4}\s+)?` +
	`((?i:error|fatal|panic|traceback|failed|fail)\b|[A-Z]\w*(Error|Exception)\b:)`)

// factPrefix is how much of a long fact must survive to count as kept: a
// summary may cut a long line after its start.
const factPrefix = 80

// findFacts returns the facts of msgs: the latest real user message, every
// path and identifier a tool call passed (values of path-named arguments
// and of arguments named id or *_id), and every error line tool output
// printed, each once.
func findFacts(msgs []compact.Message) facts {
	f := facts{}
	seen := map[string]bool{}
	add := func(kind, s string) {
		s = strings.TrimSpace(s)
		if len(s) > factPrefix {
			s = s[:factPrefix]
		}
		if len(s) < 3 || seen[kind+"\x00"+s] {
			return
		}
		seen[kind+"\x00"+s] = true
		f[kind] = append(f[kind], s)
	}
	for i := len(msgs) - 1; i >= 0; i-- {
		if compact.IsRealUser(msgs[i]) {
			add("latest ask", compact.Text(msgs[i]))
			break
		}
	}
	for _, m := range msgs {
		for _, c := range m.ToolCalls {
			var args map[string]any
			if json.Unmarshal([]byte(c.Function.Arguments), &args) != nil {
				continue
			}
			for k, v := range args {
				key := strings.ToLower(k)
				switch {
				case pathArgs[key]:
					for _, s := range stringsOf(v) {
						add("paths", s)
					}
				case key == "id" || strings.HasSuffix(key, "_id"):
					for _, s := range stringsOf(v) {
						add("identifiers", s)
					}
				}
			}
		}
		if m.Role == compact.RoleTool {
			for _, line := range strings.Split(compact.Text(m), "\n") {
				if errorLine.MatchString(line) {
					add("error lines", line)
				}
			}
		}
	}
	return f
}

// stringsOf is v's strings: v itself, or the strings of a list.
func stringsOf(v any) []string {
	switch v := v.(type) {
	case string:
		return []string{v}
	case []any:
		var out []string
		for _, x := range v {
			if s, ok := x.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

// keptFacts counts, by kind, the facts of f found verbatim in the text of
// msgs (content, tool calls, reasoning).
func keptFacts(f facts, msgs []compact.Message) map[string]int {
	var b strings.Builder
	for _, m := range msgs {
		b.WriteString(compact.Text(m))
		b.WriteString("\n")
		b.WriteString(m.ReasoningContent)
		for _, c := range m.ToolCalls {
			b.WriteString(c.Function.Arguments)
		}
		b.WriteString("\n")
	}
	text := b.String()
	kept := map[string]int{}
	for kind, list := range f {
		for _, s := range list {
			if strings.Contains(text, s) {
				kept[kind]++
			}
		}
	}
	return kept
}
