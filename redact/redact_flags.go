package redact

import "strings"

// flagSecrets finds the values of command-line flags whose name says secret,
// given as the next argument: --password hunter2, -storepass changeit,
// --api-key "k", and the same in an argument list ("--token", "abc" in JSON,
// YAML or Python). It calls emit with each value's span, in order. (The value
// of --password=hunter2 is an assignment's, found with the others.) A flag
// of one letter says nothing by its name: its meaning depends on the command
// (see commandSecrets); nor does a single-dash word in mixed case, which is
// such a flag with its value glued (-pS3cret).
//
// An OpenSSL-style pass phrase argument (-passin pass:hunter2) loses the
// phrase only; one that says where the phrase is kept (env:VAR, file:path,
// fd:3, stdin) is kept.
func flagSecrets(s string, emit func(a, b int)) {
	for i := 0; ; {
		k := strings.IndexByte(s[i:], '-')
		if k < 0 {
			return
		}
		p := i + k
		i = p + 1
		if p > 0 && !flagBefore[s[p-1]] && !escapedBreak(s, p) {
			continue
		}
		n := p + 1
		if n < len(s) && s[n] == '-' {
			n++
		}
		if n >= len(s) || !isLetter(s[n]) {
			continue
		}
		e := flagNameClass.run(s, n)
		i = e
		if e-n < 2 || classifyName(s[n:e], false) != plainSecret {
			continue
		}
		if n == p+1 && strings.ToLower(s[n:e]) != s[n:e] {
			continue // -pS3cret: a one-letter flag with its value glued
		}
		v, ok := flagValueAt(s, p, e)
		if !ok {
			continue
		}
		a, b, secret := secretValue(s, v, s[n:e], false)
		if secret {
			a, secret = passPhraseArg(s[a:b], a)
		}
		if secret {
			emit(a, b)
		}
		i = max(i, b)
	}
}

// flagValueAt returns where the value of the flag s[p:e] starts: after
// white space, or, when the flag is a quoted item of a list, at the next
// item ("--token", "abc"). A flag followed by another flag takes no value.
func flagValueAt(s string, p, e int) (int, bool) {
	if e >= len(s) {
		return 0, false
	}
	v := e
	if s[e] == ' ' || s[e] == '\t' {
		for v < len(s) && (s[v] == ' ' || s[v] == '\t') {
			v++
		}
	} else if q := listQuote(s, p); q != "" && strings.HasPrefix(s[e:], q) {
		v = e + len(q)
		for v < len(s) && (s[v] == ' ' || s[v] == '\t') {
			v++
		}
		if v >= len(s) || s[v] != ',' {
			return 0, false
		}
		for v++; v < len(s) && (s[v] == ' ' || s[v] == '\t'); v++ {
		}
		if !strings.HasPrefix(s[v:], q) {
			return 0, false
		}
	} else {
		return 0, false
	}
	if v < len(s) && s[v] == '-' {
		return 0, false
	}
	return v, true
}

// listQuote returns the quote that opens the item a flag at s[p] starts (a
// double or single quote, or a backslash-escaped double quote inside JSON),
// or "".
func listQuote(s string, p int) string {
	switch {
	case p >= 2 && s[p-2] == '\\' && s[p-1] == '"':
		return `\"`
	case p >= 1 && (s[p-1] == '"' || s[p-1] == '\''):
		return s[p-1 : p]
	}
	return ""
}

// passPhraseArg reads a flag's value as an OpenSSL pass phrase argument:
// "pass:" before the phrase is kept, and a value saying where the phrase is
// read from is no secret. It returns where the secret starts.
func passPhraseArg(v string, a int) (int, bool) {
	if strings.HasPrefix(v, "pass:") {
		return a + len("pass:"), len(v) > len("pass:")
	}
	for _, src := range [...]string{"env:", "file:", "fd:"} {
		if strings.HasPrefix(v, src) {
			return a, false
		}
	}
	return a, v != "stdin"
}

var (
	flagBefore    = newClass(" \t\n\"'=(`")
	flagNameClass = newClass(alnumChars, "_-")
)

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
