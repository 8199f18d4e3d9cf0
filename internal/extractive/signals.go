package extractive

import (
	"strings"
)

// This file holds what exit status a command's output shows (errorlines.go
// finds the error lines, decisions.go the sentences that state a decision).

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
