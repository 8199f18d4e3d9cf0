package extractive

import (
	"strconv"
	"strings"

	"github.com/contextkit/compact/internal/english"
)

// This file reads a facts index back, so that a later summary merges it
// with the facts of the new turns.

// parsedFacts is what an index holds beyond the files and error lines it
// adds to a parsedSummary's lists.
type parsedFacts struct {
	errRun   map[string]string // error line → the run that printed it
	resolved map[string]bool   // error lines marked resolved
	ids      []idEntry         // oldest first
	lastCmd  string
	leftOut  [numFactKinds]int
}

// parseFacts reads the lines of a Facts part into p. It reports false when
// a line is none the index writes.
func parseFacts(lines []string, p *parsedSummary) bool {
	f := &p.facts
	f.errRun, f.resolved = map[string]string{}, map[string]bool{}
	var run string
	inErrors, resolved, inCommand := false, false, false
	var cmd []string
	for _, line := range lines {
		if strings.TrimSpace(line) == "" {
			continue
		}
		switch {
		case inErrors && strings.HasPrefix(line, subItem):
			e := strings.TrimSpace(line[len(subItem):])
			p.items[secErrors] = append(p.items[secErrors], e)
			f.errRun[e], f.resolved[e] = run, resolved
			continue
		case inCommand && strings.HasPrefix(line, commandIndent):
			cmd = append(cmd, line[len(commandIndent):])
			continue
		case !strings.HasPrefix(line, "- "):
			return false
		}
		inErrors, inCommand = false, false
		item := line[2:]
		switch {
		case strings.HasPrefix(item, unresolvedHead) || strings.HasPrefix(item, resolvedHead):
			resolved = strings.HasPrefix(item, resolvedHead)
			head := unresolvedHead
			if resolved {
				head = resolvedHead
			}
			var ok bool
			if run, ok = errorRun(strings.TrimPrefix(item, head)); !ok {
				return false
			}
			inErrors = true
		case strings.HasPrefix(item, modifiedLabel):
			p.items[secModified] = append(p.items[secModified], splitList(item[len(modifiedLabel):])...)
		case strings.HasPrefix(item, readLabel):
			p.items[secRead] = append(p.items[secRead], splitList(item[len(readLabel):])...)
		case strings.HasPrefix(item, referLabel):
			p.items[secReferenced] = append(p.items[secReferenced], splitList(item[len(referLabel):])...)
		case strings.HasPrefix(item, idsLabel):
			f.ids = append(f.ids, parseIDs(item[len(idsLabel):])...)
		case strings.HasPrefix(item, commandLabel):
			cmd, inCommand = []string{item[len(commandLabel):]}, true
		case strings.HasPrefix(item, leftOutLabel):
			parseLeftOut(item[len(leftOutLabel):], &f.leftOut)
		default:
			return false
		}
	}
	f.lastCmd = strings.Join(cmd, "\n")
	return true
}

// errorRun reads what follows an error group's head: " from `run`:",
// " the user pasted:" or ":".
func errorRun(rest string) (string, bool) {
	switch {
	case rest == ":":
		return "", true
	case rest == userErrorsTail+":":
		return userRun, true
	case strings.HasPrefix(rest, " from `") && strings.HasSuffix(rest, "`:"):
		return rest[len(" from `") : len(rest)-len("`:")], true
	}
	return "", false
}

// splitList reads a one-line list back: entries split at ", " and "; ",
// an entry written as a code span (see quoteListItem) taken whole.
func splitList(s string) []string {
	var out []string
	for s != "" {
		item, rest, ok := codeSpan(s)
		if !ok {
			if k := listSep(s); k >= 0 {
				item, rest = s[:k], s[k:]
			} else {
				item, rest = s, ""
			}
		}
		s = rest
		if strings.HasPrefix(s, ", ") || strings.HasPrefix(s, "; ") {
			s = s[2:]
		}
		if !ok {
			item = strings.TrimSpace(item)
		}
		if ok || item != "" {
			out = append(out, item)
		}
	}
	return out
}

// codeSpan reads a code span opening s and followed by a list separator or
// the end: its text and what follows it.
func codeSpan(s string) (text, rest string, ok bool) {
	n := 0
	for n < len(s) && s[n] == '`' {
		n++
	}
	if n == 0 {
		return "", s, false
	}
	fence := s[:n]
	for off := n; ; {
		k := strings.Index(s[off:], fence)
		if k < 0 {
			return "", s, false
		}
		k += off
		end := k + n
		if end < len(s) && s[end] == '`' { // a longer run: not the closing fence
			for end < len(s) && s[end] == '`' {
				end++
			}
			off = end
			continue
		}
		if end != len(s) && !strings.HasPrefix(s[end:], ", ") && !strings.HasPrefix(s[end:], "; ") {
			off = end
			continue
		}
		text = s[n:k]
		if len(text) >= 2 && text[0] == ' ' && text[len(text)-1] == ' ' {
			text = text[1 : len(text)-1]
		}
		return text, s[end:], true
	}
}

// listSep returns the offset of the first ", " or "; " in s, or -1.
func listSep(s string) int {
	for i := 0; i+1 < len(s); i++ {
		if (s[i] == ',' || s[i] == ';') && s[i+1] == ' ' {
			return i
		}
	}
	return -1
}

// parseIDs reads the identifier line back in any of its forms:
// "key=a, b (tool1, tool2); key2=c", "key=a, b; key2=c" or "a, b, c".
func parseIDs(s string) []idEntry {
	var out []idEntry
	for _, group := range strings.Split(s, "; ") {
		var tools []string
		if strings.HasSuffix(group, ")") {
			if k := strings.LastIndex(group, " ("); k >= 0 {
				tools = strings.Split(group[k+2:len(group)-1], ", ")
				group = group[:k]
			}
		}
		key := ""
		if k := strings.IndexByte(group, '='); k >= 0 {
			key, group = group[:k], group[k+1:]
		}
		for _, v := range strings.Split(group, ", ") {
			if v = strings.TrimSpace(v); v != "" {
				out = append(out, idEntry{value: v, key: key, tools: tools})
			}
		}
	}
	return out
}

// parseLeftOut reads "3 read files, 1 identifier" into counts by kind. A
// name reads in the singular or the plural whatever its count: summaries
// written before the singular said "1 identifiers".
func parseLeftOut(s string, counts *[numFactKinds]int) {
	for _, part := range strings.Split(s, ", ") {
		n, name, ok := strings.Cut(strings.TrimSpace(part), " ")
		if !ok {
			continue
		}
		k, err := strconv.Atoi(n)
		if err != nil || k < 0 {
			continue
		}
		for kind, kn := range factKindNames {
			if name == kn || name == english.Noun(2, kn) {
				counts[kind] += k
			}
		}
	}
}
