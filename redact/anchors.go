package redact

import "strings"

// This file holds the fast path of redactText: for the rules that scan
// every byte of a text, a cheap test of something each of their matches
// needs (an anchor). A text without it is passed over, unchanged, as the
// rule would have returned it; a text with it goes through the rule as
// before, so no rule is weakened. Each test is checked against the rule it
// guards by TestFastPathMatchesEveryRule and FuzzFastPath; the other rules
// test their own anchor already ("PRIVATE KEY", "@", "</", "machine").

// mayHoldJSON reports whether redactEmbeddedJSON could change s: only an
// object or array holding a string is redacted, and a string needs a
// double quote.
func mayHoldJSON(s string) bool {
	return strings.IndexByte(s, '"') >= 0
}

// mayHoldShape reports whether redactKeyShapes could change s: a key of a
// known shape is its prefix and at least its shape's shortest body, so a
// text shorter than the shortest such pair holds none.
func mayHoldShape(s string) bool {
	return len(s) >= minShapeText
}

// minShapeText is the length of the shortest text a keyShape matches: its
// prefix and its shortest body (a lead only adds to it).
var minShapeText = func() int {
	n := -1
	for _, k := range keyShapes {
		if m := len(k.prefix) + k.min; n < 0 || m < n {
			n = m
		}
	}
	return n
}()

// hasSeparator reports whether redactAssignments could change s: every
// assignment it reads has a "=" or a ":".
func hasSeparator(s string) bool {
	return strings.IndexByte(s, '=') >= 0 || strings.IndexByte(s, ':') >= 0
}

// mayHoldCredentialFlag reports whether redactCommands could change s:
// commandSecrets takes a credential only from a word starting with one of
// credentialCommandTable's flags, each one or two dashes and a letter of
// credentialFlagLetters (-p, -a, --user...), so s must hold a "-" with
// such a letter after it. And the word is one of a command's arguments,
// which starts where commandSecrets' scan of the command line leaves off:
// after a blank (a space, a tab, or the "\t" of a quoted string), after a
// quoted word's closing quote, or after a word of one byte of wordStop (a
// quote that closes nothing, a backslash, "<", ">", "(", ")"); so the byte
// before the dash is one of flagPrecede.
func mayHoldCredentialFlag(s string) bool {
	for i := 0; ; {
		k := strings.IndexByte(s[i:], '-')
		if k < 0 || i+k+1 >= len(s) {
			return false
		}
		p := i + k
		i = p + 1
		if p == 0 || !flagPrecede[s[p-1]] {
			continue
		}
		if s[i] == '-' && i+1 < len(s) {
			i++ // --user; the second dash follows a dash, which starts no word
			if credentialFlagLetters[s[i]] {
				return true
			}
			continue
		}
		if credentialFlagLetters[s[i]] {
			return true
		}
	}
}

// flagPrecede holds the bytes an argument of a command line can follow
// (see mayHoldCredentialFlag): blanks, "t" of an escaped tab, quotes, and
// the bytes of wordStop that make a word of their own.
var flagPrecede = newClass(" \t\"'`\\<>()t")

// credentialFlagLetters holds the byte after the leading dashes of every
// flag of credentialCommands ("p" for -p and --proxy-user).
var credentialFlagLetters = func() *byteClass {
	var c byteClass
	for _, cmd := range credentialCommands {
		for _, f := range cmd.flags {
			if name := strings.TrimLeft(f.name, "-"); name != "" {
				c[name[0]] = true
			}
		}
	}
	return &c
}()
