package redact

import "strings"

// Marker replaces a secret that String removed.
const Marker = "[REDACTED]"

// String returns s with the secrets it recognises replaced by Marker and
// its control characters stripped (String calls StripControl first, so an
// escape sequence in the middle of a secret cannot hide it). It is applied to
// everything sent to a summarizer, written to a handoff packet or logged.
//
// What identifies a secret's kind is kept and only the secret goes: the
// header name and auth scheme ("Authorization: Bearer [REDACTED]"), the key
// name ("DB_PASSWORD=[REDACTED]", `"api_key": "[REDACTED]"`), a URL's user
// ("https://bob:[REDACTED]@host"), a cookie's name, a well-known key's public
// prefix ("ghp_[REDACTED]", for prefixes under 12 bytes). It recognises
// secrets by class:
//   - private key blocks (PEM, OpenSSH, PGP), whole, even when a cut took
//     their end or their head;
//   - credentials in URLs and data source names of any scheme (https,
//     postgres, mongodb+srv, amqp, redis://:password@...), a key written as
//     a URL's user (a Sentry DSN's https://<key>@o1.ingest.sentry.io/2), Go
//     DSNs (user:password@tcp(host)/db), and secret query parameters
//     (token, key, sig, X-Amz-Signature, code, ...);
//   - Authorization and Proxy-Authorization headers of any scheme, Cookie and
//     Set-Cookie values, and API-key headers, written as headers, as curl
//     arguments or as JSON;
//   - assignments (name = value, name: value, "name": "value", --name value,
//     <name>value</name>) whose name says secret in any casing and with any
//     separator (password, passwd, pwd, secret, token, api_key, access_key,
//     private_key, client_secret, auth, credentials: aws_secret_access_key,
//     AWS-SECRET-ACCESS-KEY, secretKey, "x-api-token", TF_VAR_db_password),
//     in env, shell, YAML, JSON, code, XML and command-line form, connection
//     strings included, name-value records ({"name": "DB_PASSWORD",
//     "value": "..."}) and blocks named so (a Terraform variable "api_key"
//     { default = "..." });
//   - command-line flags: those whose name says secret, with a double dash
//     or a single one (--token t, -storepass p, -passin pass:p, and as items
//     of an argument list: "--token", "t"), and the flags through which the
//     commands that take credentials take them, whatever their name: a
//     registry login's -p (docker, podman, helm, oras...), a database
//     client's -p, -a, -P or -w (mysql -pSECRET or -p SECRET, mongosh,
//     redis-cli, sqlcmd, ldapsearch), curl -u user:password and its kin
//     (the commands are listed in redact_cli.go);
//   - keys with a known shape, the prefix (or infix) a provider publishes:
//     OpenAI, Anthropic, GitHub, GitLab, AWS access keys (and the secret key
//     written next to one), Slack tokens and webhooks, Hugging Face, Google,
//     Stripe, npm, PyPI, SendGrid, Twilio, Shopify, DigitalOcean, Docker Hub,
//     Databricks, Telegram bot tokens (bare or in their API URL), age
//     secret keys, Vault, Doppler, Grafana, Atlassian, Azure AD client
//     secrets and more: 174 rules for about 80 providers
//     (redact_providers.go), JWTs and bare bearer tokens.
//
// String reads JSON inside text (a log line's payload, a JSON body a
// command printed, a JSON text whole) as [JSON] does, decoding each string
// first, so a secret behind JSON escapes ("\u0026sig=", "https:\/\/") or
// under a key that names it goes too. A line whose line breaks are written
// as " ⏎ " (a summary's list item, a message quoted on one line) is read
// as the lines it joins, so a .netrc entry or a private key written so
// still goes.
//
// Look-alikes are left alone: "scikit-learn", "task-1234", git hashes, UUIDs,
// checksums and the hashes of lockfiles (integrity=sha512-...), paths,
// base64 data, "max_tokens=4096", "token_count: 17", "the password reset
// email", a placeholder such as "$TOKEN" or "<your key>", a Python
// "password: str".
// Stripe publishable test keys (pk_test_) are public by design and kept;
// live ones (pk_live_) are redacted, since a summary never needs them and
// they tie the text to a live account. String does not guess: a random
// string with no name, prefix or shape saying secret is kept, since ids,
// hashes and encoded data look the same. String is idempotent:
// String(String(s)) == String(s). It never panics, whatever s holds.
func String(s string) string { return redactClean(StripControl(s)) }

// redactClean is String for text StripControl has already stripped (and
// so would return unchanged).
func redactClean(s string) string {
	if len(s) < minSecretText {
		return s
	}
	return redactText(redactJoinedLines(s, redactText))
}

// redactText applies String's rules to s, which holds no control
// characters. A rule whose anchor s lacks (see anchors.go) is not run: it
// could not change s.
func redactText(s string) string {
	if mayHoldJSON(s) {
		s = redactEmbeddedJSON(s, redactClean)
	}
	s = redactPrivateKeys(s)
	s = redactURLPasswords(s)
	if mayHoldShape(s) {
		s = redactKeyShapes(s)
	}
	if hasSeparator(s) {
		s = redactAssignments(s)
	}
	s = redactFlags(s)
	if mayHoldCredentialFlag(s) {
		s = redactCommands(s)
	}
	s = redactXMLElements(s)
	for _, r := range lineRules {
		s = r.redact(s)
	}
	return s
}

// redactFlags replaces the values of flags that flagSecrets finds.
func redactFlags(s string) string {
	sp := splicer{src: s}
	flagSecrets(s, func(a, b int) { sp.replace(a, b, Marker) })
	return sp.String()
}

// redactCommands replaces the credentials that commandSecrets finds.
func redactCommands(s string) string {
	sp := splicer{src: s}
	commandSecrets(s, func(a, b int) { sp.replace(a, b, Marker) })
	return sp.String()
}

// minSecretText is the shortest text worth scanning: below it no rule can
// find a name, a separator and a secret.
const minSecretText = 6

// splicer rebuilds a string left to right, replacing chosen spans. Spans
// must come in order; one that overlaps a span already replaced is ignored.
type splicer struct {
	src     string
	b       strings.Builder
	done    int // src[:done] has been written or replaced
	changed bool
}

func (sp *splicer) replace(start, end int, with string) {
	if start < sp.done || end < start || sp.src[start:end] == with {
		return
	}
	if !sp.changed {
		sp.b.Grow(len(sp.src))
		sp.changed = true
	}
	sp.b.WriteString(sp.src[sp.done:start])
	sp.b.WriteString(with)
	sp.done = end
}

func (sp *splicer) String() string {
	if !sp.changed {
		return sp.src
	}
	sp.b.WriteString(sp.src[sp.done:])
	return sp.b.String()
}

// byteClass is a set of ASCII bytes.
type byteClass [256]bool

// Character sets the rules are written with.
const (
	upperChars = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	lowerChars = "abcdefghijklmnopqrstuvwxyz"
	digitChars = "0123456789"
	alnumChars = upperChars + lowerChars + digitChars
	hexChars   = digitChars + "abcdefABCDEF"
)

func newClass(sets ...string) *byteClass {
	var c byteClass
	for _, set := range sets {
		for i := 0; i < len(set); i++ {
			c[set[i]] = true
		}
	}
	return &c
}

// Byte classes shared by the rules.
var (
	wordClass   = newClass(alnumChars, "_")
	alnumClass  = newClass(alnumChars)
	b64urlClass = newClass(alnumChars, "_-")
	b64Class    = newClass(alnumChars, "+/")
	hexClass    = newClass(hexChars)
)

// run returns the end of the run of c's bytes starting at i.
func (c *byteClass) run(s string, i int) int {
	for i < len(s) && c[s[i]] {
		i++
	}
	return i
}

// redactPrivateKeys replaces the body of every private key block, keeping its
// BEGIN and END lines. A block whose END line is missing (a cut-off paste) loses
// the lines after BEGIN that look like key material.
func redactPrivateKeys(s string) string {
	if !strings.Contains(s, "PRIVATE KEY") {
		return s
	}
	sp := splicer{src: s}
	// The next private key END line (endAt, its end endAfter) is searched for
	// once per block; noEnd records that there is none left.
	endAt, endAfter, noEnd := -1, -1, false
	for i := 0; ; {
		b := strings.Index(s[i:], "-----BEGIN ")
		if b < 0 {
			break
		}
		b += i
		bodyStart, ok := privateKeyLabel(s, b+len("-----BEGIN "))
		if !ok {
			i = b + 1
			continue
		}
		if !noEnd && endAt < bodyStart {
			endAt, endAfter = privateKeyEnd(s, bodyStart)
			noEnd = endAt < 0
		}
		bodyEnd, end := endAt, endAfter
		if noEnd {
			bodyEnd = danglingKeyEnd(s, bodyStart)
			end = bodyEnd
		}
		if bodyEnd > bodyStart {
			sp.replace(bodyStart, bodyEnd, Marker)
		}
		i = max(end, b+1)
	}
	return redactHeadlessKeys(sp.String())
}

// redactHeadlessKeys replaces the key material before each private key END
// line that no BEGIN line opened: a key whose head a cut took away (the
// tail of a shortened text). What counts as material is what
// danglingKeyEnd takes, read backwards: runs of base64 between line breaks
// or blanks, the one just before the END line of any length, the others at
// least minKeyLine long or ending in "=" padding.
func redactHeadlessKeys(s string) string {
	sp := splicer{src: s}
	for i := 0; ; {
		e := strings.Index(s[i:], "-----END ")
		if e < 0 {
			break
		}
		e += i
		after, ok := privateKeyLabel(s, e+len("-----END "))
		i = e + 1
		if !ok {
			continue
		}
		i = after
		if strings.HasSuffix(s[:e], Marker) {
			continue // a block redacted whole
		}
		if start := headlessKeyStart(s, e); start < e {
			sp.replace(start, e, Marker)
		}
	}
	return sp.String()
}

// headlessKeyStart returns where the key material ending at s[e] starts,
// or e when there is none. Only the run just before e (a key's last line)
// may be short, and only when a full line comes before it.
func headlessKeyStart(s string, e int) int {
	start, lines, lastFull := e, 0, false
	for {
		j := start
		for j > 0 {
			if k := lineBreakBefore(s, j); k < j {
				j = k
			} else if s[j-1] == ' ' || s[j-1] == '\t' {
				j--
			} else {
				break
			}
		}
		if j == start && lines > 0 {
			break // two runs with nothing between: one word
		}
		k := j
		for k > 0 && s[k-1] == '=' {
			k--
		}
		for k > 0 && b64Class[s[k-1]] {
			k--
		}
		if k == j || (k > 0 && !keyLineEnd[s[k-1]]) {
			break // no run, or the end of a longer word
		}
		full := j-k >= minKeyLine || s[j-1] == '='
		if !full && lines > 0 {
			break
		}
		if lines == 0 {
			lastFull = full
		}
		lines++
		start = k
	}
	if lines == 0 || (lines == 1 && !lastFull) {
		return e // no material, or one short word before the END line
	}
	return start
}

// lineBreakBefore returns the index of a line break ending just before
// s[i] (a newline, or an escaped \n or \r\n), or i when there is none.
func lineBreakBefore(s string, i int) int {
	switch {
	case strings.HasSuffix(s[:i], `\r\n`):
		return i - 4
	case strings.HasSuffix(s[:i], `\n`) && !strings.HasSuffix(s[:i], `\\n`):
		return i - 2
	case strings.HasSuffix(s[:i], "\n"):
		return i - 1
	}
	return i
}

// privateKeyEnd returns the index of the first private key END line at or
// after i and the index just after it, or -1, -1.
func privateKeyEnd(s string, i int) (at, after int) {
	for {
		e := strings.Index(s[i:], "-----END ")
		if e < 0 {
			return -1, -1
		}
		e += i
		if after, ok := privateKeyLabel(s, e+len("-----END ")); ok {
			return e, after
		}
		i = e + 1
	}
}

// privateKeyLabel reports whether s[i:] continues a BEGIN or END line with a
// private key label ("RSA PRIVATE KEY-----", "PGP PRIVATE KEY BLOCK-----")
// and returns the index just after it.
func privateKeyLabel(s string, i int) (int, bool) {
	const limit = 48 // longer than any real label
	rest := s[i:min(len(s), i+limit)]
	k := strings.Index(rest, "PRIVATE KEY")
	if k < 0 || strings.ContainsAny(rest[:k], "\n-") {
		return 0, false
	}
	tail := rest[k+len("PRIVATE KEY"):]
	for _, t := range [...]string{"-----", " BLOCK-----"} {
		if strings.HasPrefix(tail, t) {
			return i + k + len("PRIVATE KEY") + len(t), true
		}
	}
	return 0, false
}

// danglingKeyEnd returns where the key material after a BEGIN line with no
// END ends: armor headers ("Proc-Type: 4,ENCRYPTED") and lines of base64,
// separated by newlines, by the two characters `\n` of escaped JSON, or by
// spaces where newlines were collapsed. A base64 line shorter than
// minKeyLine must end in "=" padding. The first line that is none of these
// (prose, code, a short word) ends it.
func danglingKeyEnd(s string, i int) int {
	end, material := i, false
	for {
		j := skipLineBreak(s, end)
		for j < len(s) && (s[j] == ' ' || s[j] == '\t') {
			j++
		}
		if j == end {
			return end
		}
		if skipLineBreak(s, j) > j { // a blank line
			end = j
			continue
		}
		if h := headerNameClass.run(s, j); !material && h > j && strings.HasPrefix(s[h:], ": ") {
			end = h
			for end < len(s) && s[end] != '\n' && s[end] != '\\' && s[end] != '"' {
				end++
			}
			continue
		}
		e := b64Class.run(s, j)
		for e < len(s) && s[e] == '=' {
			e++
		}
		if e-j < minKeyLine && (e == j || s[e-1] != '=') {
			return end
		}
		if e < len(s) && !keyLineEnd[s[e]] {
			return end
		}
		end, material = e, true
	}
}

// minKeyLine is the shortest run of base64 taken for a line of a cut-off key
// without padding; prose words are shorter. PEM lines are 64 characters.
const minKeyLine = 16

// Byte classes of the key-block rule.
var (
	headerNameClass = newClass(alnumChars, "-")
	keyLineEnd      = newClass("\n\\\"' \t")
)

// skipLineBreak returns the index after a line break at s[i:] (a newline, or
// an escaped `\n` or `\r\n` inside a quoted string), or i when there is none.
func skipLineBreak(s string, i int) int {
	switch {
	case strings.HasPrefix(s[i:], "\n"):
		return i + 1
	case strings.HasPrefix(s[i:], `\n`):
		return i + 2
	case strings.HasPrefix(s[i:], `\r\n`):
		return i + 4
	}
	return i
}

// redactURLPasswords replaces the password in scheme://user:password@host,
// keeping the user, for any scheme (https, postgres, mongodb+srv, amqp,
// redis://:password@...). A password holding an unescaped "@" is taken
// whole: the userinfo runs to the last "@" before the host. A user that is
// itself a key (a Sentry DSN's https://<key>@o1.ingest.sentry.io/2, a token
// in https://<token>@github.com) goes too.
func redactURLPasswords(s string) string {
	if !strings.Contains(s, "@") {
		return s
	}
	sp := splicer{src: s}
	schemes := schemeFinder{s: s}
	for i := 0; ; {
		k, n := schemes.next(i)
		if k < 0 {
			break
		}
		start := k + n
		i = start
		if start-n == 0 || !wordClass[s[start-n-1]] {
			continue // no scheme before "://"
		}
		end := start
		for end < len(s) && !urlStop[s[end]] {
			end++
		}
		at := strings.LastIndexByte(s[start:end], '@')
		if at < 0 {
			continue
		}
		at += start
		colon := strings.IndexByte(s[start:at], ':')
		if colon < 0 {
			if isTokenUser(s[start:at]) {
				sp.replace(start, at, Marker)
			}
			i = at
			continue
		}
		if isTokenUser(s[start : start+colon]) {
			sp.replace(start, start+colon, Marker)
		}
		pw := s[start+colon+1 : at]
		if pw != "" && pw != Marker && !isPlaceholder(pw) {
			sp.replace(start+colon+1, at, Marker)
		}
		i = at
	}
	// A pass of its own: a DSN before a URL the loop above redacted would
	// come too late for sp.
	return redactDSNPasswords(sp.String())
}

// schemeFinder finds, left to right, each "://" of s and each ":\/\/" (as
// JSON may escape it), searching for each kind once per occurrence.
type schemeFinder struct {
	s          string
	plain, esc int // the next of each found so far, -1 when none is left
	searched   bool
}

// next returns the index of the first separator at or after i and its
// length, or -1.
func (f *schemeFinder) next(i int) (int, int) {
	const plain, escaped = "://", `:\/\/`
	if !f.searched {
		f.plain, f.esc, f.searched = indexFrom(f.s, plain, i), indexFrom(f.s, escaped, i), true
	}
	if f.plain >= 0 && f.plain < i {
		f.plain = indexFrom(f.s, plain, i)
	}
	if f.esc >= 0 && f.esc < i {
		f.esc = indexFrom(f.s, escaped, i)
	}
	switch {
	case f.esc >= 0 && (f.plain < 0 || f.esc < f.plain):
		return f.esc, len(escaped)
	case f.plain >= 0:
		return f.plain, len(plain)
	}
	return -1, 0
}

// indexFrom returns the index of the first sub in s at or after i, or -1.
func indexFrom(s, sub string, i int) int {
	if k := strings.Index(s[i:], sub); k >= 0 {
		return i + k
	}
	return -1
}

// isTokenUser reports whether a URL's user is a key rather than a name: at
// least minTokenUser characters of letters, digits, "_" and "-", mixing
// letters and digits.
func isTokenUser(u string) bool {
	if len(u) < minTokenUser || b64urlClass.run(u, 0) != len(u) {
		return false
	}
	_, _, digit := classes(u)
	return digit && strings.Trim(u, digitChars) != ""
}

// minTokenUser is the shortest URL user taken for a key: user names are
// shorter, keys (a Sentry DSN's 32 hex digits) longer.
const minTokenUser = 20

// redactDSNPasswords replaces the password of a Go-style data source name
// with no scheme, user:password@tcp(host:3306)/db (the MySQL driver's form),
// with the network written right after the "@".
func redactDSNPasswords(s string) string {
	sp := splicer{src: s}
	for i := 0; ; {
		k := strings.Index(s[i:], "@")
		if k < 0 {
			return sp.String()
		}
		at := i + k
		i = at + 1
		if !dsnNetwork(s[at+1:]) {
			continue
		}
		// The userinfo: back to white space, a quote or "=", and the first
		// ":" in it ends the user.
		from := at
		for from > 0 && !dsnStop[s[from-1]] && at-from < maxQuotedLen {
			from--
		}
		if strings.Contains(s[from:at], "://") {
			continue // a URL's userinfo: redactURLPasswords has it
		}
		colon := strings.IndexByte(s[from:at], ':')
		if colon < 0 {
			continue
		}
		if pw := s[from+colon+1 : at]; pw != "" && pw != Marker && !isPlaceholder(pw) {
			sp.replace(from+colon+1, at, Marker)
		}
	}
}

// dsnNetwork reports whether s starts with a Go DSN's network: tcp(, unix(,
// tcp6(, or a bare "(".
func dsnNetwork(s string) bool {
	for _, n := range [...]string{"tcp(", "tcp4(", "tcp6(", "unix(", "("} {
		if strings.HasPrefix(s, n) {
			return true
		}
	}
	return false
}

var dsnStop = newClass(" \t\n\"'`=<>")

// urlStop holds the bytes that end a URL's authority.
var urlStop = newClass("/?#\"'<>` \t\n\\")
