package extractive

import (
	"regexp"
	"strings"

	"github.com/contextkit/compact/internal/textcut"
)

// This file holds the extractive summarizer's line-level rules: which lines
// of tool output are errors and what exit status a command's output shows
// (decisions.go finds the sentences that state a decision).

// errorLines returns the error lines of a tool output (or of text a user
// pasted), in order, trimmed: compiler and test failures, panics, the last
// line of a traceback, error: and Error: lines. A bare label ("ERROR:")
// takes the line after it, where its message is. Indented lines are code
// or context, never errors, except Go's nested "--- FAIL" and the test
// output lines under it.
func errorLines(text string) []string {
	var out []string
	inGoFail := false
	for rest := text; rest != ""; {
		var line string
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
		if indented || t == "FAIL" || !isErrorLine(t) {
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

// isErrorLine reports whether a trimmed, unindented line reports an error.
func isErrorLine(t string) bool {
	if strings.HasPrefix(t, "E   ") { // pytest's failure detail
		t = strings.TrimSpace(t[1:])
	}
	for _, p := range errorPrefixes {
		if strings.HasPrefix(t, p) {
			return true
		}
	}
	if hasErrorLabel(t) || hasFailureWord(t) {
		return true
	}
	if hasErrorInfix(t) {
		return true
	}
	if msg, ok := diagnosticMessage(t); ok {
		return !strings.HasPrefix(msg, "warning") && !strings.HasPrefix(msg, "note") && !strings.HasPrefix(msg, "info")
	}
	return (strings.Contains(t, "Error") || strings.Contains(t, "Exception")) && exceptionLine.MatchString(t)
}

// diagnosticMessage recognises the file:line:column: prefix compilers and
// linters put before a message (go build and vet, gcc, clang, flake8) and
// returns the message. grep's file:line:text has no column and no space,
// so it is not one.
func diagnosticMessage(t string) (string, bool) {
	i := 0
	for i < len(t) && (textcut.IsWordByte(t[i]) || strings.IndexByte("./@+-", t[i]) >= 0) {
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

// errorPrefixes open an error line.
var errorPrefixes = [...]string{
	"FAIL", "panic:", "fatal error:", "fatal:", "npm ERR!", "Exception in ", "Segmentation fault",
	"Killed",
}

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
		if infixColons[i] < 0 && strings.Contains(t, s) {
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
	if t == "" || t[0] != 'E' && t[0] != 'F' {
		return false // the words below are all there are
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

// cutLine splits s after its first line: the line without its newline, and
// what follows.
func cutLine(s string) (line, rest string) {
	if k := strings.IndexByte(s, '\n'); k >= 0 {
		return s[:k], s[k+1:]
	}
	return s, ""
}
