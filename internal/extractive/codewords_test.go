package extractive

import (
	"slices"
	"strings"
	"testing"
)

// codeWordsByFields is codeWords as it was written first, with
// strings.ReplaceAll and strings.FieldsFunc: the reference it is held to.
func codeWordsByFields(code string, add func(p string)) {
	if strings.IndexByte(code, '/') < 0 {
		return
	}
	code = strings.ReplaceAll(code, "</", "<")
	for _, w := range strings.FieldsFunc(code, isCodeBreak) {
		if strings.IndexByte(w, '/') < 0 {
			continue
		}
		if p := slashWord(w); p != "" {
			add(p)
		}
	}
}

// isCodeBreak reports the runes that ended a word of code in the
// reference: white space, quotes, brackets and operators other than the
// path's own.
func isCodeBreak(r rune) bool {
	return r <= ' ' || strings.ContainsRune("'\"`()[]{},;=<>|+*%!&^", r)
}

func checkCodeWords(t *testing.T, code string) {
	t.Helper()
	var got, want []string
	codeWords(code, func(p string) { got = append(got, p) })
	codeWordsByFields(code, func(p string) { want = append(want, p) })
	if !slices.Equal(got, want) {
		t.Fatalf("codeWords(%q) = %q, want %q", code, got, want)
	}
}

var codeWordSamples = []string{
	"import { Octokit } from '@octokit/rest';\nreturn <div>{x}</div>;\nfetch('api/v1/users')",
	"<//a/b <</c/d x</e/f </ / //", "a/b\xffc/d é/x src/lib,pkg/sub", "\x00a/b\x7fc/d",
	"open('/repo/src/x') </src/y> <\t/z/w>",
}

// FuzzCodeWords holds codeWords to its reference.
func FuzzCodeWords(f *testing.F) {
	for _, s := range codeWordSamples {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) { checkCodeWords(t, s) })
}

func TestCodeWordsMatchTheReference(t *testing.T) {
	for _, s := range codeWordSamples {
		for i := 0; i <= len(s); i++ {
			checkCodeWords(t, s[:i])
			checkCodeWords(t, s[i:])
		}
	}
}
