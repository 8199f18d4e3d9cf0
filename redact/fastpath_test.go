package redact

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/contextkit/compact/internal/secrettest"
)

// referenceString is String as it ran before its fast path (anchors.go):
// every rule on every text, in the strings of the JSON inside it and in the
// lines it joins with " ⏎ " as well, the key shapes scanned as they were.
// The fast path must give its output, byte for byte, for every input. The
// helpers rewritten inside the rules (pairFinder, hasNameTrigger,
// trimNameSigils, mayBeJSON) are checked against their previous forms on
// their own, in checkFastPath.
func referenceString(s string) string {
	s = referenceStripControl(s)
	if len(s) < minSecretText {
		return s
	}
	return referenceText(redactJoinedLines(s, referenceText))
}

// referenceText is redactText with no rule passed over.
func referenceText(s string) string {
	s = redactEmbeddedJSON(s, referenceString)
	s = redactPrivateKeys(s)
	s = redactURLPasswords(s)
	s = referenceKeyShapes(s)
	s = redactAssignments(s)
	s = redactFlags(s)
	s = redactCommands(s)
	s = redactXMLElements(s)
	for _, r := range lineRules {
		s = r.redact(s)
	}
	return s
}

// referenceJSON is JSONFunc as it ran before each text was stripped only
// once: f wrapped to strip every text it is given, s stripped again at each
// test of its form, and JSON lines split, then joined again for f.
func referenceJSON(s string, f func(string) string) string {
	strip := func(t string) string { return f(referenceStripControl(t)) }
	return referenceRedactJSON(s, strip, 0)
}

func referenceRedactJSON(s string, f func(string) string, depth int) string {
	if doc, ok := referenceAsJSON(s); ok {
		return redactJSONValue(doc, f, depth)
	}
	if hasJSONLines(s) {
		return referenceJSONLines(s, f, depth)
	}
	if c := referenceStripControl(s); c != s && hasJSONLines(c) {
		return referenceJSONLines(c, f, depth)
	}
	return f(s)
}

func referenceAsJSON(s string) (string, bool) {
	if mayBeJSON(s) && json.Valid([]byte(s)) {
		return s, true
	}
	if c := referenceStripControl(s); c != s && mayBeJSON(c) && json.Valid([]byte(c)) {
		return c, true
	}
	return "", false
}

func referenceJSONLines(s string, f func(string) string, depth int) string {
	lines := strings.SplitAfter(s, "\n")
	var b strings.Builder
	run := 0
	flush := func(end int) {
		if end > run {
			b.WriteString(f(strings.Join(lines[run:end], "")))
		}
	}
	for i, l := range lines {
		doc, ok := referenceAsJSON(strings.TrimRight(l, "\r\n"))
		if !ok {
			continue
		}
		flush(i)
		b.WriteString(redactJSONValue(doc, f, depth))
		if strings.HasSuffix(l, "\n") {
			b.WriteByte('\n')
		}
		run = i + 1
	}
	if run == 0 {
		return f(s)
	}
	flush(len(lines))
	return b.String()
}

// referenceKeyShapes is redactKeyShapes as it was before its scan was
// tightened: the table read at every position.
func referenceKeyShapes(s string) string {
	sp := splicer{src: s}
	var runs runCache
	for i := 0; i+1 < len(s); i++ {
		g := shapeIndex.table[uint16(s[i])<<8|uint16(s[i+1])]
		if g == 0 {
			continue
		}
		for _, k := range shapeIndex.groups[g-1] {
			if end, ok := keyShapes[k].redactAt(&sp, s, i, runs.of(keyShapes[k].body)); ok {
				i = end - 1
				break
			}
		}
	}
	return sp.String()
}

// asciiLower returns s with its ASCII letters lowered, as classifyName
// lowers a name.
func asciiLower(s string) []byte {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return b
}

// referenceHasNameTrigger is hasNameTrigger as it was before it compared
// in place, given the name lowered.
func referenceHasNameTrigger(lower []byte) bool {
	for i, c := range lower {
		var subs []string
		switch c {
		case 'p':
			subs = []string{"pass", "pw", "pat"}
		case 's':
			subs = []string{"secret", "sig", "session"}
		case 't':
			subs = []string{"token"}
		case 'a':
			subs = []string{"auth"}
		case 'c':
			subs = []string{"cred", "cookie", "code"}
		case 'k':
			subs = []string{"key"}
		case 'j':
			subs = []string{"jwt"}
		}
		for _, sub := range subs {
			if bytes.HasPrefix(lower[i:], []byte(sub)) {
				return true
			}
		}
	}
	return false
}

// referenceRecordNamesSecret is recordNamesSecret as it was before it
// looked for a trigger in the record before running its expression.
func referenceRecordNamesSecret(s string, at int) bool {
	from := max(0, at-maxRecordLookBack)
	open := strings.LastIndexByte(s[from:at], '{')
	if open < 0 || strings.IndexByte(s[from+open:at], '}') >= 0 {
		return false
	}
	m := recordName.FindStringSubmatch(s[from+open : at])
	return m != nil && classifyName(m[1], false) == plainSecret
}

// checkRecordNames fails t when recordNamesSecret and its reference
// disagree at a place of s where a "value" name may start: a quote, a
// backslash before one, or the name's first letter.
func checkRecordNames(t *testing.T, s string) {
	t.Helper()
	if len(s) > 4096 || strings.IndexByte(s, '{') < 0 {
		return
	}
	for at := 0; at < len(s); at++ {
		if strings.IndexByte("\"'\\vVdD", s[at]) < 0 {
			continue
		}
		if got, want := recordNamesSecret(s, at), referenceRecordNamesSecret(s, at); got != want {
			t.Fatalf("recordNamesSecret(%.200q, %d) = %v, the reference says %v", s, at, got, want)
		}
	}
}

// checkPairFinder fails t when pairFinder, asked at positions that never
// decrease (as its callers ask), does not return what the loops it
// replaced found: the first of its two bytes at or after the position.
func checkPairFinder(t *testing.T, s string, a, b byte) {
	t.Helper()
	want := make([]int, len(s)+1) // want[i]: the first a or b at or after i
	want[len(s)] = -1
	for i := len(s) - 1; i >= 0; i-- {
		want[i] = want[i+1]
		if s[i] == a || s[i] == b {
			want[i] = i
		}
	}
	f := pairFinder{s: s, a: a, b: b}
	for i := 0; i < len(s); i += 1 + i%5 {
		if got := f.next(i); got != want[i] {
			t.Fatalf("pairFinder{%q, %q}.next(%d) in %.200q = %d, want %d", a, b, i, s, got, want[i])
		}
	}
}

// anchoredRules pairs each rule redactText may pass over with the test of
// its anchor: a text that fails the test must come out of the rule as it
// went in.
var anchoredRules = []struct {
	name   string
	anchor func(string) bool
	rule   func(string) string
}{
	{"embedded JSON", mayHoldJSON, func(s string) string { return redactEmbeddedJSON(s, referenceString) }},
	{"key shapes", mayHoldShape, redactKeyShapes},
	{"assignments", hasSeparator, redactAssignments},
	{"commands", mayHoldCredentialFlag, redactCommands},
}

// checkFastPath fails t when the fast path and the reference disagree on s,
// as String, as JSON, or as one of the rules it may pass over.
func checkFastPath(t *testing.T, s string) {
	t.Helper()
	if got, want := String(s), referenceString(s); got != want {
		t.Fatalf("String(%.200q)\n fast      %.300q\n reference %.300q", s, got, want)
	}
	if got, want := JSON(s), referenceJSON(s, referenceString); got != want {
		t.Fatalf("JSON(%.200q)\n fast      %.300q\n reference %.300q", s, got, want)
	}
	// A function that marks what it is given shows each call to it: the
	// texts JSONFunc hands f, empty ones included, must be the same.
	mark := func(t string) string { return "<" + t + ">" }
	if got, want := JSONFunc(s, mark), referenceJSON(s, mark); got != want {
		t.Fatalf("JSONFunc(%.200q, mark)\n fast      %.300q\n reference %.300q", s, got, want)
	}
	checkStripControl(t, s)
	checkRecordNames(t, s)
	clean := StripControl(s)
	for _, r := range anchoredRules {
		if !r.anchor(clean) {
			if out := r.rule(clean); out != clean {
				t.Fatalf("%s: the anchor test passes over %.200q, which the rule changes to %.300q", r.name, clean, out)
			}
		}
	}
	if got, want := redactKeyShapes(clean), referenceKeyShapes(clean); got != want {
		t.Fatalf("redactKeyShapes(%.200q)\n fast      %.300q\n reference %.300q", clean, got, want)
	}
	if got, want := lineOpensJSON(s), strings.Contains(s, "\n{") || strings.Contains(s, "\n["); got != want {
		t.Fatalf("lineOpensJSON(%.200q) = %v, want %v", s, got, want)
	}
	if got, want := containsLineJoin(s), strings.Contains(s, lineJoin); got != want {
		t.Fatalf("containsLineJoin(%.200q) = %v, want %v", s, got, want)
	}
	checkPairFinder(t, clean, '=', ':')
	checkPairFinder(t, clean, '{', '[')
	for _, name := range []string{s, strings.ToLower(s), strings.ToUpper(s)} {
		if got, want := hasNameTrigger(name), referenceHasNameTrigger(asciiLower(name)); got != want {
			t.Fatalf("hasNameTrigger(%.200q) = %v, the reference says %v", name, got, want)
		}
	}
	if got, want := trimNameSigils(s), strings.TrimLeft(s, "-$@"); got != want {
		t.Fatalf("trimNameSigils(%.200q) = %q, strings.TrimLeft gives %q", s, got, want)
	}
	if got, want := mayBeJSON(s), strings.TrimLeft(s, " \t\r\n") != "" && strings.IndexByte("{[\"", strings.TrimLeft(s, " \t\r\n")[0]) >= 0; got != want {
		t.Fatalf("mayBeJSON(%.200q) = %v, want %v", s, got, want)
	}
}

// fixtureTexts returns every secret and look-alike the package's tests
// hold, in the forms they use, and the inputs of the fuzz corpus.
func fixtureTexts(t *testing.T) []string {
	var out []string
	for _, c := range secrettest.Cases {
		out = append(out, c.In)
	}
	for _, c := range secrettest.LookAlikes {
		out = append(out, c.In)
	}
	for _, sec := range secrettest.Secrets {
		out = append(out, sec.Text, sec.Value, "Here is the config:\n"+sec.Text+"\nThanks.",
			jsonObject(t, "command", "cd /srv/app && "+sec.Text), jsonObject(t, sec.Key, sec.Value))
	}
	for i, mk := range secrettest.Makers {
		secret, _ := mk([]byte{byte(i), 7, 42, 3})
		out = append(out, secret, "x "+secret+" y")
	}
	files, _ := filepath.Glob(filepath.Join("testdata", "fuzz", "*", "*"))
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(data), "\n") {
			if v, ok := strings.CutPrefix(line, "string("); ok {
				if u, err := strconv.Unquote(strings.TrimSuffix(v, ")")); err == nil {
					out = append(out, u)
				}
			}
		}
	}
	return out
}

// The fast path gives String's output as it was: on every secret fixture
// and look-alike, and on every text of the shared transcripts, as it stands
// and with its lines joined by " ⏎ " (a summary's list item).
func TestFastPathMatchesTheReference(t *testing.T) {
	fixtures := fixtureTexts(t)
	for _, s := range fixtures {
		checkFastPath(t, s)
		checkFastPath(t, strings.ReplaceAll(s, "\n", lineJoin))
	}
	texts := sharedTexts(t)
	for _, s := range texts {
		checkFastPath(t, s)
		checkFastPath(t, strings.ReplaceAll(s, "\n", lineJoin))
	}
	t.Logf("%d fixtures and %d transcript texts, as they are and ⏎-joined", len(fixtures), len(texts))
}

// Every flag of credentialCommandTable is one or two dashes and a name, as
// mayHoldCredentialFlag needs.
func TestCredentialFlagsStartWithADash(t *testing.T) {
	for name, c := range credentialCommands {
		for _, f := range c.flags {
			dashes := len(f.name) - len(strings.TrimLeft(f.name, "-"))
			if dashes < 1 || dashes > 2 || dashes == len(f.name) {
				t.Errorf("%s: flag %q is not one or two dashes and a name", name, f.name)
			}
		}
	}
}

// FuzzFastPath: for any text, String and JSON give what they gave before
// the fast path, and no anchor test passes over a text its rule changes.
func FuzzFastPath(f *testing.F) {
	for _, c := range secrettest.Cases {
		f.Add(c.In)
	}
	for _, s := range []string{
		"mysql -uroot -pS3cretPass db", "docker login -u bob -p hunter2 ghcr.io", "curl --user a:b https://x",
		"redis-cli -a s3cret ping", `["mysql", "-pSECRET"]`, "sk-abc", `{"k": "v"}`, "token=abc123",
		"x ⏎ password: hunter2 ⏎ y", "⏎ token: abc ⏎", "a⏎ b ⏎c ⏎", "x\n{\"a\": 1} ⏎ [2]\n[", `"\u0074oken": "abc123"`, "-----BEGIN RSA PRIVATE KEY-----\nMIIE",
		"\x1b]8;;https://x.io/?token=abc\x1b\\link\x1b]8;;\x07 pw=hunter22", "a\x1b]1337;File=x:iVBOR\x1b\n b\x1bPq\x07c", "\x1b]0;t\x1b",
		"log start\n{\"token\": \"abc123\"}\n", "mysql \"db\"-pS3cret x", "curl (--user a:b) x", "mysql \\t-pS3cret", "mysql '-pX'", "zip <-P pw", `{"name": "DB_PASSWORD", "value": "hunter22"}`, "{ key: 'api_token', value: abc123 }", "\x1b[0m{\"k\": \"v\"}\r\nnext\n[1]", "\x1b[1m\n{\"a\": \"b\"}\n\x07x\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) { checkFastPath(t, s) })
}
