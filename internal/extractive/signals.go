package extractive

import (
	"strings"

	"github.com/contextkit/compact/internal/textcut"
)

// This file holds the extractive summarizer's other line-level rules: what
// exit status a command's output shows, and which sentences of the
// assistant state a decision.

// exitStatusTail is how much of an output's end is searched for an exit
// code: runners print it last, and a bounded search keeps huge outputs cheap.
const exitStatusTail = 2048

// exitCode returns the last exit code s states: "exit status 1",
// "exit code: 2", "Exit code 0", "[Command finished with exit code 0]",
// "exited with code 3". It scans by hand; a case-insensitive regexp over
// every output's tail cost more than the rest of the scan.
func exitCode(s string) (string, bool) {
	code, found := "", false
	for off := 0; ; {
		k := strings.Index(s[off:], "xit")
		if k < 0 {
			return code, found
		}
		k += off
		off = k + 3
		if k == 0 || s[k-1] != 'e' && s[k-1] != 'E' {
			continue
		}
		r := s[k+3:]
		if hasPrefixFold(r, "ed with") {
			r = r[len("ed with"):]
		}
		if !strings.HasPrefix(r, " ") {
			continue
		}
		r = r[1:]
		switch {
		case hasPrefixFold(r, "status"):
			r = r[len("status"):]
		case hasPrefixFold(r, "code"):
			r = r[len("code"):]
		default:
			continue
		}
		r = strings.TrimLeft(r, ":= ")
		n := 0
		if strings.HasPrefix(r, "-") {
			n = 1
		}
		start := n
		for n < len(r) && r[n] >= '0' && r[n] <= '9' {
			n++
		}
		if n > start {
			code, found = r[:n], true
		}
	}
}

func hasPrefixFold(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}

// commandStatus says how a command ended, from its output and the error
// lines found in it: "exit N" when the output states a code, otherwise
// "Traceback", "FAIL" or "error" when it shows a failure, otherwise "".
func commandStatus(output string, errs []string) string {
	tail := output
	if len(tail) > exitStatusTail {
		tail = tail[len(tail)-exitStatusTail:]
	}
	if code, ok := exitCode(tail); ok {
		return "exit " + code
	}
	switch {
	case strings.Contains(output, "Traceback (most recent call last)"):
		return "Traceback"
	case len(errs) == 0:
		return ""
	}
	for _, e := range errs {
		if strings.HasPrefix(e, "FAIL") || strings.HasPrefix(e, "--- FAIL") {
			return "FAIL"
		}
	}
	return "error"
}

// decisionStrength says whether a sentence states a decision: 2 for a
// reasoned one (decided, instead, because, the fix is, root cause), 1 for
// an intention (I'll, I will, let's), 0 for none.
func decisionStrength(sentence string) int {
	s := strings.ToLower(strings.ReplaceAll(sentence, "’", "'"))
	for _, c := range strongCues {
		if containsWord(s, c) {
			return 2
		}
	}
	for _, c := range weakCues {
		if containsWord(s, c) {
			return 1
		}
	}
	return 0
}

var (
	strongCues = [...]string{"decided", "decide to", "instead", "because", "the fix is", "root cause"}
	weakCues   = [...]string{"i'll", "i will", "let's", "we'll", "we will"}
)

// containsWord reports whether s holds w with no word byte on either side.
func containsWord(s, w string) bool {
	for off := 0; ; {
		k := strings.Index(s[off:], w)
		if k < 0 {
			return false
		}
		k += off
		end := k + len(w)
		if (k == 0 || !textcut.IsWordByte(s[k-1])) && (end == len(s) || !textcut.IsWordByte(s[end])) {
			return true
		}
		off = k + 1
	}
}

// Sentence lengths worth keeping as a decision, in bytes.
const (
	minDecisionLen = 20
	maxDecisionLen = 600
)

// decisions calls add for each sentence of an assistant's prose that states
// a decision, with its strength. Fenced code is skipped, as are headings,
// tables and quotes.
func decisions(text string, add func(sentence string, strength int)) {
	inFence := false
	for rest := text; rest != ""; {
		var line string
		line, rest = cutLine(rest)
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			inFence = !inFence
			continue
		}
		if inFence || t == "" || strings.ContainsRune("#|>", rune(t[0])) || isCodeIndent(line) {
			continue
		}
		t = strings.TrimLeft(t, "-*+ ")
		for t != "" {
			s := t
			if k := sentenceEnd(t); k >= 0 {
				s, t = t[:k+1], strings.TrimSpace(t[k+1:])
			} else {
				t = ""
			}
			if len(s) < minDecisionLen || len(s) > maxDecisionLen || strings.HasSuffix(s, ":") {
				continue // a colon announces the tool call that follows, not a decision
			}
			if n := decisionStrength(s); n > 0 {
				add(s, n)
			}
		}
	}
}

// sentenceEnd returns the index of the punctuation that ends the first
// sentence of s (., ! or ? before a space), or -1.
func sentenceEnd(s string) int {
	for i := 0; i+1 < len(s); i++ {
		if (s[i] == '.' || s[i] == '!' || s[i] == '?') && s[i+1] == ' ' {
			if s[i] == '.' && isAbbrev(s[:i]) {
				continue
			}
			return i
		}
	}
	return -1
}

// isAbbrev reports whether s ends in an abbreviation whose dot ends no
// sentence (e.g., i.e., vs. are the common ones in agent prose).
func isAbbrev(s string) bool {
	l := strings.ToLower(s)
	return strings.HasSuffix(l, "e.g") || strings.HasSuffix(l, "i.e") || strings.HasSuffix(l, " vs")
}

// isCodeIndent reports a Markdown code line: indented by a tab or four spaces.
func isCodeIndent(line string) bool {
	return strings.HasPrefix(line, "\t") || strings.HasPrefix(line, "    ")
}

// cutLine splits s after its first line: the line without its newline, and
// what follows.
func cutLine(s string) (line, rest string) {
	if k := strings.IndexByte(s, '\n'); k >= 0 {
		return s[:k], s[k+1:]
	}
	return s, ""
}
