package session

import (
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"unicode/utf8"
)

// maxQuery bounds a query, in bytes: room for a long error line or
// command, not for a document.
const maxQuery = 1000

// maxRegexInsts bounds a compiled regular expression, in RE2 instructions.
// RE2 runs in time linear in the text whatever the pattern, but the factor
// is the program's size; counted repetitions (a{1000}) are what grow it.
const maxRegexInsts = 10000

// matcher finds a query in a message's text: a plain query ignoring case
// (as strings.ToLower folds it, the way a Searcher matches), or an RE2
// expression.
type matcher struct {
	lower string         // a plain query, lower-cased
	re    *regexp.Regexp // or an expression
	// literals are texts one of which every match contains, lower-cased,
	// for a Searcher to narrow the messages to check; nil when there are
	// none to use.
	literals []string
	// lineLits, for an expression whose matches never span a line break,
	// are texts one of which every match contains, as written: the
	// expression then runs only on the lines that hold one. nil otherwise.
	lineLits []string
}

// newMatcher checks a query and compiles it.
func newMatcher(query string, regex bool) (*matcher, error) {
	switch {
	case query == "":
		return nil, badArgs(`"query" is empty`)
	case len(query) > maxQuery:
		return nil, badArgs(`"query" is %d bytes; at most %d are allowed (search for a distinctive part)`, len(query), maxQuery)
	case !utf8.ValidString(query):
		return nil, badArgs(`"query" is not valid UTF-8`)
	}
	if !regex {
		q := strings.ToLower(query)
		return &matcher{lower: q, literals: []string{q}}, nil
	}
	// Lines are what a search shows, so ^ and $ match at their ends.
	query = "(?m)" + query
	tree, err := syntax.Parse(query, syntax.Perl)
	if err != nil {
		return nil, badArgs(`"query" is not a valid RE2 regular expression: %v`, err)
	}
	prog, err := syntax.Compile(tree.Simplify())
	if err != nil {
		return nil, badArgs(`"query" is not a valid RE2 regular expression: %v`, err)
	}
	if len(prog.Inst) > maxRegexInsts {
		return nil, badArgs(`"query" compiles to %d instructions; at most %d are allowed (use fewer counted repetitions)`,
			len(prog.Inst), maxRegexInsts)
	}
	re, err := regexp.Compile(query)
	if err != nil {
		return nil, badArgs(`"query" is not a valid RE2 regular expression: %v`, err)
	}
	lits := literalsOf(tree, minIndexLiteral, true)
	for i := range lits {
		lits[i] = strings.ToLower(lits[i])
	}
	m := &matcher{re: re, literals: lits}
	if withinLine(tree) {
		m.lineLits = literalsOf(tree, 1, false)
	}
	return m, nil
}

// minIndexLiteral is the shortest literal worth narrowing a regular
// expression's search with: an index of trigrams cannot look up less.
const minIndexLiteral = 3

// maxIndexLiterals bounds the literals one search asks a Searcher for: an
// alternation of more is cheaper to scan for.
const maxIndexLiterals = 8

// requiredLiterals returns texts one of which every match of re contains
// (for an alternation, one a branch; otherwise the longest run), or nil
// when it cannot tell or a text would be too short to narrow an indexed
// search. A literal whose case RE2 folds in ways strings.ToLower does not
// (the long s, the Kelvin sign) is not used.
func requiredLiterals(re *syntax.Regexp) []string {
	return literalsOf(re, minIndexLiteral, true)
}

// literalsOf is requiredLiterals with texts of at least minLen bytes, and
// case-folded literals used only when folded is set.
func literalsOf(re *syntax.Regexp, minLen int, folded bool) []string {
	switch re.Op {
	case syntax.OpLiteral:
		lit := string(re.Rune)
		fold := re.Flags&syntax.FoldCase != 0
		if len(lit) < minLen || fold && (!folded || strings.ContainsAny(lit, "kKsS") || !isASCII(lit)) {
			return nil
		}
		return []string{lit}
	case syntax.OpCapture, syntax.OpPlus:
		return literalsOf(re.Sub[0], minLen, folded)
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return literalsOf(re.Sub[0], minLen, folded)
		}
	case syntax.OpConcat:
		var best []string
		for _, sub := range re.Sub {
			if l := literalsOf(sub, minLen, folded); l != nil && (best == nil || narrower(l, best)) {
				best = l
			}
		}
		return best
	case syntax.OpAlternate:
		var all []string
		for _, sub := range re.Sub {
			l := literalsOf(sub, minLen, folded)
			if l == nil {
				return nil // a branch that needs no literal
			}
			all = append(all, l...)
		}
		if len(all) > maxIndexLiterals {
			return nil
		}
		return all
	}
	return nil
}

// withinLine reports whether no match of re can hold a line break or
// depend on where the whole text begins or ends, so that matching each
// line on its own finds what matching the text finds ("(?m)" makes ^ and $
// line edges).
func withinLine(re *syntax.Regexp) bool {
	switch re.Op {
	case syntax.OpLiteral:
		return !slices.Contains(re.Rune, '\n')
	case syntax.OpCharClass:
		for i := 0; i+1 < len(re.Rune); i += 2 {
			if re.Rune[i] <= '\n' && '\n' <= re.Rune[i+1] {
				return false
			}
		}
		return true
	case syntax.OpAnyChar, syntax.OpBeginText, syntax.OpEndText:
		return false
	}
	for _, sub := range re.Sub {
		if !withinLine(sub) {
			return false
		}
	}
	return true
}

// narrower reports whether a narrows a search more than b: fewer texts,
// then a longer shortest one.
func narrower(a, b []string) bool {
	if len(a) != len(b) {
		return len(a) < len(b)
	}
	return shortest(a) > shortest(b)
}

func shortest(lits []string) int {
	n := -1
	for _, l := range lits {
		if n < 0 || len(l) < n {
			n = len(l)
		}
	}
	return n
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// find returns the first match in text at or after from.
func (m *matcher) find(text, lower string, from int) (start, end int, ok bool) {
	if m.re != nil {
		loc := m.re.FindStringIndex(text[from:])
		if loc == nil {
			return 0, 0, false
		}
		return from + loc[0], from + loc[1], true
	}
	i := strings.Index(lower[from:], m.lower)
	if i < 0 {
		return 0, 0, false
	}
	return from + i, from + i + len(m.lower), true
}

// span is a match in a text, by byte offsets.
type span struct{ start, end int }

// maxCountedLines bounds how far the lines matching past the shown hits
// are counted in one message.
const maxCountedLines = 1000

// hits returns the first limit matches in text, at most one a line, and how
// many more lines match (up to maxCountedLines). A match that starts in a
// hidden span (whole lines) does not count.
func (m *matcher) hits(text string, limit int, hidden []span) (hits []span, more int) {
	if m.re != nil && m.lineLits != nil {
		return m.literalLineHits(text, limit, hidden)
	}
	lower := text
	if m.re == nil {
		lower = strings.ToLower(text)
		if len(lower) != len(text) {
			// Folding changed some byte lengths, so offsets in lower are
			// not offsets in text: match line by line instead.
			return m.lineHits(text, limit, hidden)
		}
	}
	for from := 0; from <= len(text); {
		s, e, ok := m.find(text, lower, from)
		if !ok {
			break
		}
		if !inSpans(hidden, s) && !tally(&hits, &more, span{s, e}, limit) {
			break
		}
		from = lineEnd(text, max(e-1, s)) + 1
	}
	return hits, more
}

// tally adds hit to hits while they are fewer than limit, and counts it in
// more otherwise; it reports false once more reaches maxCountedLines.
func tally(hits *[]span, more *int, hit span, limit int) bool {
	if len(*hits) < limit {
		*hits = append(*hits, hit)
		return true
	}
	*more++
	return *more < maxCountedLines
}

// inSpans reports whether offset i lies in one of spans.
func inSpans(spans []span, i int) bool {
	for _, sp := range spans {
		if sp.start <= i && i < sp.end {
			return true
		}
	}
	return false
}

// literalLineHits is hits for an expression with lineLits: it runs the
// expression on each line that holds one of them, and skips the rest.
func (m *matcher) literalLineHits(text string, limit int, hidden []span) (hits []span, more int) {
	next := make([]int, len(m.lineLits)) // where each literal is next found
	for i, lit := range m.lineLits {
		next[i] = indexFrom(text, lit, 0)
	}
	for start := 0; start <= len(text); {
		at := -1
		for i, lit := range m.lineLits {
			if next[i] >= 0 && next[i] < start {
				next[i] = indexFrom(text, lit, start)
			}
			if next[i] >= 0 && (at < 0 || next[i] < at) {
				at = next[i]
			}
		}
		if at < 0 {
			break
		}
		first, last := lineStart(text, at), lineEnd(text, at)
		if loc := m.re.FindStringIndex(text[first:last]); loc != nil && !inSpans(hidden, first+loc[0]) {
			if !tally(&hits, &more, span{first + loc[0], first + loc[1]}, limit) {
				break
			}
		}
		start = last + 1
	}
	return hits, more
}

// indexFrom returns the offset of the first lit in text at or after from,
// or -1.
func indexFrom(text, lit string, from int) int {
	if i := strings.Index(text[from:], lit); i >= 0 {
		return from + i
	}
	return -1
}

// lineHits is hits for a plain query in a text whose folding changes byte
// lengths: each matching line is one hit spanning the whole line.
func (m *matcher) lineHits(text string, limit int, hidden []span) (hits []span, more int) {
	start := 0
	for start <= len(text) {
		end := lineEnd(text, start)
		if !inSpans(hidden, start) && strings.Contains(strings.ToLower(text[start:end]), m.lower) {
			if !tally(&hits, &more, span{start, end}, limit) {
				break
			}
		}
		start = end + 1
	}
	return hits, more
}

// lineEnd returns the offset of the line break ending the line that holds
// offset i, or len(text).
func lineEnd(text string, i int) int {
	if i >= len(text) {
		return len(text)
	}
	if j := strings.IndexByte(text[i:], '\n'); j >= 0 {
		return i + j
	}
	return len(text)
}

// lineStart returns the offset where the line holding offset i starts.
func lineStart(text string, i int) int {
	return strings.LastIndexByte(text[:i], '\n') + 1
}

// Snippet sizes: the lines holding a match keep up to snippetWidth bytes
// around it (more when the match itself is long, up to maxSnippet); the
// lines around them, contextWidth bytes each.
const (
	snippetWidth = 240
	snippetLead  = 80
	maxSnippet   = 2 * maxQuery
	contextWidth = 120
)

// ellipsis marks where a snippet cut a line.
const ellipsis = "…"

// snippet returns the lines holding sp with the line before and the line
// after (unless hidden), long lines cut (marked with …), and the number of
// sp's first line.
func snippet(text string, sp span, hidden []span) (string, int) {
	first := lineStart(text, sp.start)
	last := lineEnd(text, max(sp.end-1, sp.start))
	var b strings.Builder
	if first > 0 && !inSpans(hidden, lineStart(text, first-1)) {
		prev := lineStart(text, first-1)
		b.WriteString(cutFrom(text[prev:first-1], 0, contextWidth))
		b.WriteByte('\n')
	}
	width := min(max(snippetWidth, sp.end-sp.start+2*snippetLead), maxSnippet)
	from := max(first, sp.start-snippetLead)
	if last-from < width {
		from = max(first, last-width)
	}
	b.WriteString(cutFrom(text[first:last], from-first, width))
	if last < len(text) && !inSpans(hidden, last+1) {
		b.WriteByte('\n')
		b.WriteString(cutFrom(text[last+1:lineEnd(text, last+1)], 0, contextWidth))
	}
	return b.String(), strings.Count(text[:sp.start], "\n") + 1
}

// cutFrom returns up to width bytes of line from offset from, at rune
// boundaries, with … where it cut.
func cutFrom(line string, from, width int) string {
	from = cutRune(line, from)
	to := cutRune(line, from+width)
	out := line[from:to]
	if from > 0 {
		out = ellipsis + out
	}
	if to < len(line) {
		out += ellipsis
	}
	return out
}

// roleNames are the roles a search can be narrowed to.
var roleNames = map[string]bool{"system": true, "user": true, "assistant": true, "tool": true, "developer": true}

func checkRole(role string) error {
	if role != "" && !roleNames[role] {
		return badArgs(`"role" must be one of system, user, assistant, tool, developer; got %s`, clip(role))
	}
	return nil
}

// maxToolName bounds a tool name in a search's filter.
const maxToolName = 256

func checkToolName(tool string) error {
	if len(tool) > maxToolName {
		return badArgs(`"tool" is %d bytes; tool names are at most %d`, len(tool), maxToolName)
	}
	return nil
}
