package redact

import (
	"regexp"
	"strings"
	"unicode/utf8"
)

// redactXMLElements replaces the text of one-line XML elements whose tag
// says secret: <password>hunter2</password>, <apiKey>...</apiKey>.
func redactXMLElements(s string) string {
	if !strings.Contains(s, "</") {
		return s
	}
	sp := splicer{src: s}
	for i := 0; ; {
		k := strings.Index(s[i:], "</")
		if k < 0 {
			break
		}
		c := i + k
		i = c + 2
		e := tagClass.run(s, c+2)
		if e == c+2 || e >= len(s) || s[e] != '>' || classifyName(s[c+2:e], false) != plainSecret {
			continue
		}
		from := max(sp.done, c-maxQuotedLen)
		if nl := strings.LastIndexByte(s[from:c], '\n'); nl >= 0 {
			from += nl + 1
		}
		open := "<" + s[c+2:e] + ">"
		o := strings.LastIndex(s[from:c], open)
		if o < 0 {
			continue
		}
		a := from + o + len(open)
		if v := s[a:c]; strings.TrimSpace(v) != "" && v != Marker && !isPlaceholder(v) && !strings.ContainsAny(v, "<\"\\") {
			sp.replace(a, c, Marker)
		}
		i = e
	}
	return sp.String()
}

var tagClass = newClass(alnumChars, "_.:-")

// lineRule is a rule for one command's way of taking a password. Its
// regular expression starts with the trigger word and is run only on a
// window from each occurrence of that word: the rest of its line (or of the
// few lines a .netrc entry spans), at most maxRuleWindow bytes.
type lineRule struct {
	trigger string
	lines   int            // lines the window spans
	re      *regexp.Regexp // the secret is the last submatch
}

// maxRuleWindow bounds a lineRule's window, so that a long line full of
// trigger words costs linear time.
const maxRuleWindow = 2048

// windowEnd returns where a rule's window of at most maxRuleWindow bytes
// from s[start] ends: never inside a character, so that what a rule
// replaces never leaves half of one behind (a second pass would read it
// as another character).
func windowEnd(s string, start int) int {
	end := min(len(s), start+maxRuleWindow)
	for end > start && end < len(s) && !utf8.RuneStart(s[end]) {
		end--
	}
	return end
}

// lineRules cover passwords a file lays out over lines: .netrc entries.
var lineRules = []lineRule{
	{"machine", 3, regexp.MustCompile(`^machine\s+\S+\s+login\s+\S+\s+password\s+([^\s'"\\]+)`)},
}

func (r lineRule) redact(s string) string {
	sp := splicer{src: s}
	for i := 0; ; {
		k := strings.Index(s[i:], r.trigger)
		if k < 0 {
			break
		}
		start := i + k
		i = start + len(r.trigger)
		end := start
		for n := 0; n < r.lines && end < len(s); n++ {
			if nl := strings.IndexByte(s[end+1:max(end+1, windowEnd(s, start))], '\n'); nl >= 0 {
				end += 1 + nl
			} else {
				end = windowEnd(s, start)
				break
			}
		}
		m := r.re.FindStringSubmatchIndex(s[start:end])
		if m == nil {
			continue
		}
		a, b := start+m[len(m)-2], start+m[len(m)-1]
		if v := strings.Trim(s[a:b], `'"`); v != "" && v != Marker && !isPlaceholder(v) {
			sp.replace(a, b, Marker)
		}
		i = max(i, b)
	}
	return sp.String()
}
