package redact

import (
	"regexp"
	"strings"
)

// secretKind says how the value after a name is redacted.
type secretKind int

const (
	notSecret    secretKind = iota
	plainSecret             // the whole value
	authHeader              // the credential after the scheme word
	cookieHeader            // each cookie's value
	setCookie               // the cookie's value, not its attributes
)

// redactAssignments replaces the values of names that say secret, wherever a
// name meets a value: NAME=value, name: value, "name": "value", name := "v",
// 'name' => 'v', ?name=value&..., and HTTP headers in all those forms.
func redactAssignments(s string) string {
	sp := splicer{src: s}
	seps := pairFinder{s: s, a: '=', b: ':'}
	for i := 0; i < len(s); {
		p := seps.next(i)
		if p < 0 {
			break
		}
		i = p + 1
		sepEnd, ok := separatorAt(s, p)
		if !ok {
			continue
		}
		name, start, inQuery, ok := nameBefore(s, p, sp.done)
		if !ok {
			continue
		}
		kind := classifyName(name, inQuery)
		if kind == notSecret && isRecordValue(name) && (recordNamesSecret(s, start) || blockNamesSecret(s, start)) {
			kind = plainSecret
		}
		if kind == notSecret {
			continue
		}
		v := sepEnd
		for v < len(s) && (s[v] == ' ' || s[v] == '\t') {
			v++
		}
		if kind == plainSecret {
			spaced := s[p] == '=' && (v > sepEnd || s[p-1] == ' ' || s[p-1] == '\t')
			a, b, secret := secretValue(s, v, name, spaced)
			if secret {
				sp.replace(a, b, Marker)
			}
			i = max(i, b) // a value is read once, secret or not
			continue
		}
		a, b := headerValue(s, v, enclosingQuote(s, start))
		redactHeader(&sp, s, a, b, kind)
		i = max(i, b)
	}
	return sp.String()
}

// separatorAt reports whether the '=' or ':' at s[p] assigns (rather than
// compares, scopes or starts a URL) and returns the index after it.
func separatorAt(s string, p int) (int, bool) {
	next := byte(0)
	if p+1 < len(s) {
		next = s[p+1]
	}
	if s[p] == ':' {
		switch {
		case next == '=':
			return p + 2, true // Go's :=
		case next == ':' || (p > 0 && s[p-1] == ':'):
			return 0, false // a scope: auth::token
		case next == '/' && p+2 < len(s) && s[p+2] == '/':
			return 0, false // a URL's scheme: the URL rule's business
		}
		return p + 1, true
	}
	if p > 0 && strings.IndexByte("!<>=:+*/%|&^~", s[p-1]) >= 0 {
		return 0, false // a comparison or compound assignment, or := seen already
	}
	switch next {
	case '=':
		return 0, false
	case '>':
		return p + 2, true // PHP and Ruby's =>
	}
	return p + 1, true
}

// nameBefore returns the name written just before the separator at s[p],
// bare or quoted, and whether it is a URL query parameter's. It looks no
// further back than floor.
func nameBefore(s string, p, floor int) (name string, start int, inQuery, ok bool) {
	j := p
	for j > floor && p-j < 8 && (s[j-1] == ' ' || s[j-1] == '\t') {
		j--
	}
	if j > floor && (s[j-1] == '"' || s[j-1] == '\'') {
		q := s[j-1]
		k := strings.LastIndexByte(s[max(floor, j-1-maxNameLen):j-1], q)
		if k < 0 {
			return "", 0, false, false
		}
		start = max(floor, j-1-maxNameLen) + k + 1
		name = strings.TrimSuffix(s[start:j-1], `\`)
		if strings.ContainsAny(name, "\n\"'") || strings.Contains(name, Marker) {
			// A quoted name running over a redacted value is none, as it is
			// when floor stops the search inside it.
			return "", 0, false, false
		}
		start--
		if start > floor && s[start-1] == '\\' {
			start--
		}
	} else {
		start = j
		for start > floor && j-start < maxNameLen && nameClass[s[start-1]] {
			start--
		}
		name = s[start:j]
	}
	if name == "" {
		return "", 0, false, false
	}
	if start > 0 && s[start-1] == '\\' && len(name) > len(escapedAmp) && strings.EqualFold(name[:len(escapedAmp)], escapedAmp) {
		// ?a=1\u0026sig=...: a query's "&" written as JSON escapes it.
		return name[len(escapedAmp):], start + len(escapedAmp), true, true
	}
	if start > 0 {
		c := s[start-1]
		inQuery = c == '?' || c == '&' || (c == ';' && strings.HasSuffix(s[:start], "&amp;")) ||
			(c == '6' && strings.HasSuffix(s[:start], `\u0026`))
	}
	return name, start, inQuery, true
}

// escapedAmp is "&" as a JSON encoder escaping HTML writes it (\u0026),
// without its backslash.
const escapedAmp = "u0026"

// enclosingQuote returns the quote just before s[start] (a string that holds
// a whole header, as in curl -H "Authorization: ..."), or "".
func enclosingQuote(s string, start int) string {
	if start == 0 || (s[start-1] != '"' && s[start-1] != '\'') {
		return ""
	}
	if start > 1 && s[start-2] == '\\' {
		return s[start-2 : start]
	}
	return s[start-1 : start]
}

// maxNameLen bounds how far back a name is looked for.
const maxNameLen = 64

var nameClass = newClass(alnumChars, "_.-$@")

// secretValue returns the span of the value starting at s[v], and whether it
// is a secret to replace rather than a placeholder, a boolean, a type, a
// variable or code. b is where the value ends, secret or not. spaced says
// the value follows " = ": then an unquoted value with more code after it on
// its line (let token = try next() end) is an expression, while one that
// ends its line (an INI file's password = hunter2) is a value.
func secretValue(s string, v int, name string, spaced bool) (a, b int, secret bool) {
	if v >= len(s) || strings.HasPrefix(s[v:], Marker) {
		return v, v, false
	}
	// A Python string prefix: f"...", b'...'.
	if v+1 < len(s) && strings.IndexByte("frbuFRBU", s[v]) >= 0 && (s[v+1] == '"' || s[v+1] == '\'') {
		v++
	}
	if qa, qb, ok := quoted(s, v); ok {
		val := s[qa:qb]
		return qa, qb, val != "" && val != Marker && !isPlaceholder(val) && !isPlainWord(val)
	}
	b = v
	for b < len(s) && !valueStop[s[b]] {
		b++
	}
	val := s[v:b]
	switch {
	case val == "" || isPlaceholder(val) || isPlainWord(val):
		return v, b, false
	case b < len(s) && s[b] == '(':
		return v, b, false // a call: getpass(), os.getenv("X")
	case isExpression(val) || strings.EqualFold(val, strings.Trim(name, "-$@")):
		return v, b, false // code: token=self.token, password=password
	case spaced && len(val) > 1 && val[len(val)-1] == ':' && moreCode(s, b):
		// A clause of prose: "rejected aws_secret_access_key = X: quota".
		if val = val[:len(val)-1]; isPlaceholder(val) || isPlainWord(val) || isExpression(val) {
			return v, b, false
		}
		return v, b - 1, true
	case spaced && moreCode(s, b) && !(shellOperatorAt(s, b) && randomValue(val)):
		return v, b, false
	case strings.EqualFold(strings.Trim(name, "$"), "PWD") || strings.EqualFold(name, "OLDPWD"):
		if val[0] == '/' || val[0] == '~' {
			return v, b, false // the shell's working directory
		}
	}
	return v, b, true
}

// moreCode reports whether the line goes on after s[b] with something other
// than a comment. A quote, or an escaped line break or quote, ends the line
// as well: the value closes the string it sits in, as in a shell command
// quoted inside JSON ({"command": "echo token = abc"}).
func moreCode(s string, b int) bool {
	for ; b < len(s) && s[b] != '\n'; b++ {
		switch s[b] {
		case ' ', '\t', '\r':
		case '#', ';', '"', '\'', '`':
			return false
		case '\\':
			return b+1 >= len(s) || strings.IndexByte(`nrt"'`, s[b+1]) < 0
		default:
			return true
		}
	}
	return false
}

// shellOperatorAt reports whether, after white space, s[b:] goes on with a
// shell pipe, list or redirection (|, &&, >, >>, 2>, <): in a command line
// such as "echo aws_secret_access_key = X >> ~/.aws/credentials" the value
// ends there.
func shellOperatorAt(s string, b int) bool {
	for b < len(s) && (s[b] == ' ' || s[b] == '\t') {
		b++
	}
	if b < len(s) && s[b] >= '0' && s[b] <= '9' {
		b++ // 2> 1>&2
	}
	return b < len(s) && (s[b] == '|' || s[b] == '>' || s[b] == '<' || strings.HasPrefix(s[b:], "&&"))
}

// randomValue reports whether an unquoted value reads as a key rather than
// a variable: a digit in it, base64's "+", "/" or "=", or a long mix of
// upper and lower case. Code such as "token = fallback || other" keeps its
// variable.
func randomValue(v string) bool {
	upper, lower, digit := classes(v)
	return digit || strings.ContainsAny(v, "+/=") || (upper && lower && len(v) >= 20)
}

// valueStop holds the bytes that end an unquoted value.
var valueStop = newClass(" \t\n\"'`,;&<>(){}\\")

// quoted returns the span inside a quoted string starting at s[v] (a quote,
// or a backslash-escaped quote in JSON-in-JSON), on one line.
func quoted(s string, v int) (a, b int, ok bool) {
	if v >= len(s) {
		return 0, 0, false
	}
	q := s[v : v+1]
	if s[v] == '\\' && v+1 < len(s) && (s[v+1] == '"' || s[v+1] == '\'') {
		q = s[v : v+2]
	} else if s[v] != '"' && s[v] != '\'' && s[v] != '`' {
		return 0, 0, false
	}
	a = v + len(q)
	for j := a; j < len(s) && j-a < maxQuotedLen && s[j] != '\n'; j++ {
		if len(q) == 1 && s[j] == '\\' {
			j++ // an escaped character
			continue
		}
		if strings.HasPrefix(s[j:], q) {
			return a, j, true
		}
	}
	return 0, 0, false
}

// maxQuotedLen bounds the search for a closing quote, so that a long line
// of unclosed quotes costs linear time. No secret is this long.
const maxQuotedLen = 4096

// isPlaceholder reports whether v stands for a secret rather than being one:
// a variable or template ($TOKEN, ${X}, {{ secrets.X }}, %s, <your-key>), a
// structure ({, [), a mask (****, xxxx, ...), or a "your-key-here".
func isPlaceholder(v string) bool {
	if v == "" {
		return true
	}
	if strings.IndexByte("${<%[(*", v[0]) >= 0 {
		return true
	}
	if strings.Trim(v, "*xX.•…-_ ") == "" {
		return true
	}
	l := strings.ToLower(v)
	return strings.HasPrefix(l, "your") || l == "redacted" || l == "<redacted>"
}

// isPlainWord reports whether v is a value no secret ever is: a boolean, a
// null, a type name.
func isPlainWord(v string) bool {
	switch strings.ToLower(v) {
	case "true", "false", "null", "nil", "none", "undefined", "yes", "no", "on", "off",
		"str", "string", "int", "bool", "bytes", "secretstr", "any", "object", "optional",
		"required", "enabled", "disabled", "hidden", "masked", "unset", "empty", "missing", "set":
		return true
	}
	return false
}

// isExpression reports whether an unquoted value reads as code, a dotted
// path to a variable (self.token, config.api_key) or an index (env[...]).
func isExpression(v string) bool {
	if !wordClass[v[0]] || (v[0] >= '0' && v[0] <= '9') {
		return false
	}
	if strings.IndexByte(v, '[') > 0 {
		return true
	}
	dot := strings.IndexByte(v, '.')
	if dot <= 0 || dot == len(v)-1 {
		return false
	}
	for _, part := range strings.Split(v, ".") {
		if part == "" || (part[0] >= '0' && part[0] <= '9') || wordClass.run(part, 0) != len(part) {
			return false
		}
		if _, _, digit := classes(part); digit {
			return false
		}
	}
	return true
}

// headerValue returns the span of a header's value starting at s[v]: inside
// its quotes, or to the end of the line, of the string enclosing the whole
// header (encl, when not empty), or of a string the header sits in (a double
// quote that opens no parameter such as Digest's realm="x").
func headerValue(s string, v int, encl string) (a, b int) {
	// A Python f-string's prefix counts only before a string that closes:
	// otherwise the f is part of the value, as a second pass would read it.
	if v+1 < len(s) && strings.IndexByte("fF", s[v]) >= 0 && (s[v+1] == '"' || s[v+1] == '\'') {
		if a, b, ok := quoted(s, v+1); ok {
			return a, b
		}
	}
	if a, b, ok := quoted(s, v); ok {
		return a, b
	}
	inParam := false
	for b = v; b < len(s) && s[b] != '\n'; b++ {
		if encl != "" && strings.HasPrefix(s[b:], encl) {
			break
		}
		q := b // a double quote, or a backslash-escaped one
		if s[b] == '\\' && b+1 < len(s) && s[b+1] == '"' {
			q = b + 1
		} else if s[b] != '"' {
			continue
		}
		if !inParam && (b == v || s[b-1] != '=') {
			break
		}
		inParam = !inParam
		b = q
	}
	for b > v && (s[b-1] == ' ' || s[b-1] == '\t') {
		b--
	}
	return v, b
}

// redactHeader replaces the secret parts of the header value s[a:b].
func redactHeader(sp *splicer, s string, a, b int, kind secretKind) {
	val := s[a:b]
	if kind == authHeader {
		cred := a
		if gap := strings.IndexAny(val, " \t"); gap > 0 {
			cred = a + gap
			for cred < b && (s[cred] == ' ' || s[cred] == '\t') {
				cred++
			}
		}
		c := s[cred:b]
		if c == "" || c == Marker || isPlaceholder(c) || isPlainWord(c) || (cred == a && authSchemes[strings.ToLower(c)]) {
			return
		}
		sp.replace(cred, b, Marker)
		return
	}
	// Cookies: name=value pairs separated by ';'. Set-Cookie's pairs after
	// the first are attributes (Path, Expires, ...), kept.
	for k, first := a, true; k < b; first = false {
		end := strings.IndexByte(s[k:b], ';')
		if end < 0 {
			end = b
		} else {
			end += k
		}
		if eq := strings.IndexByte(s[k:end], '='); eq >= 0 && (kind == cookieHeader || first) {
			v, e := k+eq+1, end
			for e > v && s[e-1] == ' ' {
				e--
			}
			if cv := s[v:e]; cv != "" && cv != Marker && !isPlaceholder(cv) {
				sp.replace(v, e, Marker)
			}
		}
		k = end + 1
	}
}

// authSchemes are the scheme words an Authorization header may hold alone
// (a template that fills the credential in later).
var authSchemes = map[string]bool{
	"bearer": true, "basic": true, "token": true, "digest": true, "negotiate": true,
	"ntlm": true, "apikey": true, "key": true, "dpop": true, "aws4-hmac-sha256": true,
}

// isRecordValue reports whether name is the member of a record or block
// that holds its value: "value", or a variable's "default".
func isRecordValue(name string) bool {
	return strings.EqualFold(name, "value") || strings.EqualFold(name, "default")
}

// blockNamesSecret reports whether the "value" or "default" whose name
// starts at s[at] sits in a block whose label names a secret: a Terraform
// variable (variable "db_password" { default = "..." }), an object under a
// secret's name ("api_key": {"value": "..."}, api_key = { value = "..." }).
func blockNamesSecret(s string, at int) bool {
	from := max(0, at-maxBlockLookBack)
	open := strings.LastIndexByte(s[from:at], '{')
	if open < 0 || strings.IndexByte(s[from+open:at], '}') >= 0 {
		return false
	}
	head := s[from : from+open]
	if nl := strings.LastIndexByte(head, '\n'); nl >= 0 {
		head = head[nl+1:]
	}
	head = strings.TrimRight(head, " \t=:")
	var label string
	if q := len(head) - 1; q > 0 && (head[q] == '"' || head[q] == '\'') {
		if k := strings.LastIndexByte(head[:q], head[q]); k >= 0 {
			label = head[k+1 : q]
		}
	} else {
		k := len(head)
		for k > 0 && nameClass[head[k-1]] {
			k--
		}
		label = head[k:]
	}
	return label != "" && classifyName(label, false) == plainSecret
}

// maxBlockLookBack bounds how far before a "value" or "default" its
// block's opening brace is looked for: a Terraform variable's description
// and type come first.
const maxBlockLookBack = 512

// recordNamesSecret reports whether the "value" whose name starts at s[at]
// sits in a name-value record whose name says secret, written before it in
// the same braces: {"name": "DB_PASSWORD", "value": "..."}, as Kubernetes
// env entries, CI variables and parameter stores write them.
func recordNamesSecret(s string, at int) bool {
	from := max(0, at-maxRecordLookBack)
	open := strings.LastIndexByte(s[from:at], '{')
	if open < 0 || strings.IndexByte(s[from+open:at], '}') >= 0 {
		return false
	}
	// The name recordName finds is in the record, so the record holds
	// what classifyName looks for first; a record without it is passed
	// over before the expression runs.
	record := s[from+open : at]
	if !hasNameTrigger(record) {
		return false
	}
	m := recordName.FindStringSubmatch(record)
	return m != nil && classifyName(m[1], false) == plainSecret
}

// maxRecordLookBack bounds how far before a "value" its record's name is
// looked for.
const maxRecordLookBack = 256

// recordName finds the name member of a name-value record.
var recordName = regexp.MustCompile(`(?i)\b(?:name|key)\\?["']?\s*[:=]>?\s*\\?["']([A-Za-z0-9_.$-]{1,64})\\?["']`)
