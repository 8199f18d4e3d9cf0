package extractive

import (
	"regexp"
	"strings"

	"github.com/contextkit/compact/internal/textcut"
)

// This file holds which lines of tool output (or of text a user pasted)
// are errors.

// errorLines returns the error lines of a tool output (or of text a user
// pasted), in order, trimmed: compiler and test failures, panics, the last
// line of a traceback, error: and Error: lines. A bare label ("ERROR:")
// takes the line after it, where its message is. Indented lines are code
// or context, never errors, except Go's nested "--- FAIL" and the test
// output lines under it.
func errorLines(text string) []string {
	var h lineHints
	return h.errorLines(text)
}

// errorLines is errorLines for a text with hints h.
func (h *lineHints) errorLines(text string) []string {
	var out []string
	inGoFail := false
	for rest := text; rest != ""; {
		var line string
		if !h.known {
			h.rest = rest
		}
		line, rest = cutLine(rest)
		t := strings.TrimSpace(line)
		if t == "" {
			continue
		}
		indented := t[0] != line[0]
		switch {
		case strings.HasPrefix(t, "--- FAIL"):
			inGoFail = true
			out = append(out, t)
			continue
		case inGoFail && indented && goTestLine.MatchString(t):
			out = append(out, t)
			continue
		}
		if !indented {
			inGoFail = false
		}
		if strings.HasPrefix(t, "Traceback (most recent call last)") {
			var last string
			last, rest = tracebackEnd(rest)
			if last != "" {
				out = append(out, last)
			}
			continue
		}
		if indented || t == "FAIL" || !h.isErrorLine(t) {
			continue // a bare FAIL only closes the lines that said what failed
		}
		if isBareLabel(t) {
			next, after := nextNonBlank(rest)
			if next != "" {
				t, rest = t+" "+next, after
			}
		}
		out = append(out, t)
	}
	return out
}

// goTestLine matches a go test failure detail: "foo_test.go:31: message".
var goTestLine = regexp.MustCompile(`^[\w./-]+_test\.go:\d+: `)

// exceptionLine matches a Python or JavaScript exception line at the start
// of a line: "ValueError: x", "pkg.mod.ValidationError: 1 error",
// "Uncaught TypeError: y", "AssertionError".
var exceptionLine = regexp.MustCompile(`^(?:Uncaught )?[A-Za-z_][\w.]*(?:Error|Exception)(?::|$)`)

// lineHints says which of the searches isErrorLine makes of every line can
// find anything in the rest of a text at all: each line is part of it, so
// what it lacks no line holds, and one search of it spares one of every
// line. They are worked out when a line first needs them, from that line
// on: an output whose lines are all indented (code) or match early needs
// none.
type lineHints struct {
	rest      string                  // the text from the line being read on, until known
	known     bool                    // infix and exception are worked out
	infix     [len(errorInfixes)]bool // errorInfixes[i] may occur (always for those holding ": ")
	exception bool                    // "Error" or "Exception" occurs
}

// work works the hints out from h.rest, once.
func (h *lineHints) work() {
	if h.known {
		return
	}
	for i, s := range errorInfixes {
		h.infix[i] = infixColons[i] >= 0 || strings.Contains(h.rest, s)
	}
	h.exception = strings.Contains(h.rest, "Error") || strings.Contains(h.rest, "Exception")
	h.known, h.rest = true, ""
}

// anyHints returns the hints of a text that may hold anything: every
// search is made.
func anyHints() lineHints {
	h := lineHints{known: true, exception: true}
	for i := range h.infix {
		h.infix[i] = true
	}
	return h
}

// isErrorLine reports whether a trimmed, unindented line of a text with
// hints h reports an error.
func (h *lineHints) isErrorLine(t string) bool {
	if strings.HasPrefix(t, "E   ") { // pytest's failure detail
		t = strings.TrimSpace(t[1:])
	}
	if t != "" && errorPrefixFirst[t[0]] {
		for _, p := range errorPrefixes {
			if strings.HasPrefix(t, p) {
				return true
			}
		}
	}
	if hasErrorLabel(t) || hasFailureWord(t) {
		return true
	}
	if h.hasErrorInfix(t) {
		return true
	}
	if msg, ok := diagnosticMessage(t); ok {
		return !strings.HasPrefix(msg, "warning") && !strings.HasPrefix(msg, "note") && !strings.HasPrefix(msg, "info")
	}
	h.work()
	return h.exception && (strings.Contains(t, "Error") || strings.Contains(t, "Exception")) && exceptionLine.MatchString(t)
}

// diagnosticMessage recognises the file:line:column: prefix compilers and
// linters put before a message (go build and vet, gcc, clang, flake8) and
// returns the message. grep's file:line:text has no column and no space,
// so it is not one.
func diagnosticMessage(t string) (string, bool) {
	i := 0
	for i < len(t) && diagnosticNameByte[t[i]] {
		i++
	}
	if i == 0 || i == len(t) || t[i] != ':' || strings.IndexByte(t[:i], '.') < 0 {
		return "", false
	}
	for k := 0; k < 2; k++ { // :line then :column
		j := i + 1
		for j < len(t) && t[j] >= '0' && t[j] <= '9' {
			j++
		}
		if j == i+1 || j == len(t) || t[j] != ':' {
			return "", false
		}
		i = j
	}
	if i+1 >= len(t) || t[i+1] != ' ' {
		return "", false
	}
	return t[i+2:], true
}

// diagnosticNameByte holds the bytes of a diagnostic's file name: word
// bytes and "./@+-".
var diagnosticNameByte = func() (c [256]bool) {
	for b := 0; b < 256; b++ {
		c[b] = textcut.IsWordByte(byte(b)) || strings.IndexByte("./@+-", byte(b)) >= 0
	}
	return c
}()

// errorPrefixes open an error line.
var errorPrefixes = [...]string{
	"FAIL", "panic:", "fatal error:", "fatal:", "npm ERR!", "Exception in ", "Segmentation fault",
	"Killed",
}

// errorPrefixFirst holds the first bytes of errorPrefixes.
var errorPrefixFirst = func() (c [256]bool) {
	for _, p := range errorPrefixes {
		c[p[0]] = true
	}
	return c
}()

// errorInfixes mark an error anywhere in an unindented line: compiler
// diagnostics (file:1:2: error: ...), shells, Python OS errors.
var errorInfixes = [...]string{
	": error:", ": error[", ": fatal error:", "): error TS", ": command not found",
	": No such file or directory", "[Errno ", " panicked at ",
	"syntax error(s)", // SWE-agent's linter rejecting an edit
}

// infixColons is where each of errorInfixes holds ": " (-1: nowhere).
var infixColons = func() (at [len(errorInfixes)]int) {
	for i, s := range errorInfixes {
		at[i] = strings.Index(s, ": ")
	}
	return at
}()

// hasErrorInfix reports whether t holds one of errorInfixes. Every line of
// every output is asked, so it does not search t once an infix: those
// holding ": " are matched where t has one (one pass for all of them), the
// others each searched for whole.
func hasErrorInfix(t string) bool {
	h := anyHints()
	return h.hasErrorInfix(t)
}

// hasErrorInfix is hasErrorInfix for a line of a text with hints h: an
// infix the text lacks is not searched for.
func (h *lineHints) hasErrorInfix(t string) bool {
	for off := 0; ; {
		k := strings.Index(t[off:], ": ")
		if k < 0 {
			break
		}
		k += off
		off = k + 2 // ": " cannot overlap itself
		for i, s := range errorInfixes {
			c := infixColons[i]
			if c >= 0 && k >= c && len(t)-k+c >= len(s) && t[k+2] == s[c+2] && t[k-c:k-c+len(s)] == s {
				return true
			}
		}
	}
	for i, s := range errorInfixes {
		if infixColons[i] >= 0 {
			continue
		}
		h.work()
		if h.infix[i] && strings.Contains(t, s) {
			return true
		}
	}
	return false
}

// hasErrorLabel reports a line that opens with error: in any case,
// optionally with a code: "error:", "Error:", "ERROR:", "error[E0308]:".
func hasErrorLabel(t string) bool {
	if len(t) < 6 || !strings.EqualFold(t[:5], "error") {
		return false
	}
	r := t[5:]
	if r[0] == '[' {
		k := strings.IndexByte(r, ']')
		if k < 0 {
			return false
		}
		r = r[k+1:]
	}
	return strings.HasPrefix(r, ":")
}

// hasFailureWord reports a line a runner opens with a word of failure
// followed by its message: "Error with HTTPResponseCode: 1", "Failed to
// compile", "FAILURE: build failed", "Fatal: no config".
func hasFailureWord(t string) bool {
	if t == "" || t[0] != 'E' && t[0] != 'F' { // every word below opens so
		return false
	}
	w, rest, ok := strings.Cut(t, " ")
	if !ok || strings.TrimSpace(rest) == "" {
		return false
	}
	switch strings.TrimRight(w, ":!") {
	case "Error", "ERROR", "Failed", "FAILED", "Failure", "FAILURE", "Fatal", "FATAL":
		return true
	}
	return false
}

// isBareLabel reports an error label with no message on its line.
func isBareLabel(t string) bool {
	return hasErrorLabel(t) && strings.TrimSpace(t[strings.IndexByte(t, ':')+1:]) == ""
}

// nextNonBlank returns the next line of s that is not blank, trimmed, and
// what follows it.
func nextNonBlank(s string) (line, rest string) {
	for s != "" {
		line = s
		if k := strings.IndexByte(s, '\n'); k >= 0 {
			line, s = s[:k], s[k+1:]
		} else {
			s = ""
		}
		if t := strings.TrimSpace(line); t != "" {
			return t, s
		}
	}
	return "", ""
}

// tracebackEnd finds the line that closes a Python traceback: the first
// unindented line after the frames (the exception and its message). It
// returns that line and the text after it.
func tracebackEnd(s string) (last, rest string) {
	for s != "" {
		line := s
		if k := strings.IndexByte(s, '\n'); k >= 0 {
			line, s = s[:k], s[k+1:]
		} else {
			s = ""
		}
		t := strings.TrimSpace(line)
		if t == "" || t[0] != line[0] {
			continue // a frame, its code, or the caret line
		}
		if strings.HasPrefix(t, "During handling") || strings.HasPrefix(t, "The above exception") {
			continue
		}
		return t, s
	}
	return "", ""
}
