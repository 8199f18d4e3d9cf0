package redact

import (
	"encoding/json"
	"slices"
	"sort"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// JSON returns s with its secrets removed, reading s as JSON when it is JSON:
// tool-call arguments and the JSON a tool returns. Every string in it, object
// keys included, is decoded, redacted as String redacts text, and encoded
// again, so a secret inside a shell command ({"command": "export
// TOKEN=..."}) goes as it would in plain text, and the result is still valid
// JSON with the same shape: the same keys (unless a key is itself a secret),
// the same nesting, the layout of s between the strings kept byte for byte.
//
// The pair a JSON object makes of a name and a value counts as well: the
// value of a key that names a secret ({"api_key": "..."}, {"password":
// 1234}) goes whole, however it reads, as does the "value" next to a "name"
// or "key" that names one ({"name": "DB_PASSWORD", "value": "..."}), the
// "value" or "default" of an object under such a key ({"db_password":
// {"value": "..."}}, as terraform output -json writes it), and each string
// in an array under such a key; the strings of an array under a header's
// name ({"Authorization": ["Basic ..."]}, as Go's http.Header encodes it)
// are read as that header. An array of strings is also read as the command
// line it makes (["mysql", "-uroot", "-pSECRET"]). A string that holds JSON
// itself is read the same way, a few levels deep. Lines of JSON (JSON Lines, a log of
// JSON records) are read one by one; text that is not JSON is redacted by
// String.
//
// Like String, JSON strips control characters, never panics and is
// idempotent.
func JSON(s string) string { return redactJSON(s, redactClean, 0) }

// JSONFunc is JSON with f in place of String: f redacts each string of the
// JSON (decoded), or the whole of s when s is not JSON. It lets a host with
// secrets of its own extend the rules (f typically calls String first) and
// keep the JSON valid. The values of keys that name a secret go whatever f
// does. Control characters are stripped before f sees a string.
func JSONFunc(s string, f func(string) string) string {
	return redactJSON(s, f, 0)
}

// maxJSONNesting bounds how many times a string holding JSON is itself read
// as JSON (arguments that carry an encoded payload, a tool result wrapping
// another).
const maxJSONNesting = 3

// redactJSON redacts s as JSONFunc documents; depth counts the JSON strings
// s sits inside. f is given text with its control characters stripped:
// every text that may hold some is stripped before f sees it, and each is
// stripped once (StripControl is idempotent, so a text already stripped
// goes to f as it is).
func redactJSON(s string, f func(string) string, depth int) string {
	if mayBeJSON(s) && json.Valid([]byte(s)) {
		return redactJSONValue(s, f, depth)
	}
	// A control character before the JSON counts too: stripped, as any
	// text would be, it leaves JSON, which a second pass would read as such.
	c := StripControl(s)
	if c != s && mayBeJSON(c) && json.Valid([]byte(c)) {
		return redactJSONValue(c, f, depth)
	}
	if hasJSONLines(s) {
		return redactJSONLines(s, f, depth, c == s)
	}
	// As above, a control character before JSON lines counts too:
	// stripped, as f strips any text, it leaves lines a second pass would
	// read as JSON, so this pass reads them so already.
	if c != s && hasJSONLines(c) {
		return redactJSONLines(c, f, depth, true)
	}
	return f(c)
}

// mayBeJSON reports whether s starts, after white space, the way a JSON text
// worth reading as JSON does: an object, an array or a string. A bare number
// or boolean holds nothing to redact.
func mayBeJSON(s string) bool {
	i := skipJSONSpace(s, 0) // strings.TrimLeft(s, " \t\r\n"), without building a set
	return i < len(s) && (s[i] == '{' || s[i] == '[' || s[i] == '"')
}

// redactJSONValue redacts the valid JSON text s.
func redactJSONValue(s string, f func(string) string, depth int) string {
	if strings.IndexByte(s, '\r') >= 0 {
		// White space, since a string cannot hold a raw carriage return:
		// it ends a line, as StripControl has it.
		s = strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n")
	}
	w := jsonWalker{src: s, f: f, depth: depth}
	if n := w.value(notSecret); n.kind == '"' {
		w.redactString(n)
	}
	if len(w.edits) == 0 {
		return s
	}
	sort.Slice(w.edits, func(i, j int) bool { return w.edits[i].start < w.edits[j].start })
	var b strings.Builder
	b.Grow(len(s))
	last := 0
	for _, e := range w.edits {
		b.WriteString(s[last:e.start])
		b.WriteString(e.text)
		last = e.end
	}
	b.WriteString(s[last:])
	return b.String()
}

// jsonWalker reads a valid JSON text and records the edits that redact it.
// It relies on the text being valid: it checks nothing json.Valid checked.
type jsonWalker struct {
	src   string
	pos   int
	f     func(string) string
	depth int
	edits []jsonEdit
	// members and strs hold the members of the objects and the strings of
	// the arrays being read, nested ones after the ones around them, so
	// that reading a document allocates them once.
	members []member
	strs    []jsonNode
}

// jsonEdit replaces src[start:end] with text. Edits never overlap: each
// covers one literal.
type jsonEdit struct {
	start, end int
	text       string
}

// jsonNode is a value just read: its span and, for a string, its decoded
// text.
type jsonNode struct {
	start, end int
	kind       byte // '"' string, '{' object, '[' array, '0' any other literal
	text       string
	invalid    bool // the literal holds invalid UTF-8: it is written again
}

func (w *jsonWalker) skipSpace() {
	for w.pos < len(w.src) && strings.IndexByte(" \t\r\n", w.src[w.pos]) >= 0 {
		w.pos++
	}
}

// value reads one value. Strings in arrays are redacted where they are
// read; an object's members are redacted once the whole object is read,
// since a member's sibling can say it is secret. kind is what the key the
// value sits under says of it: the strings of an array there are secrets
// (or headers) as a string there would be, and so is the "value" or
// "default" of an object there ({"db_password": {"value": "..."}}, as
// terraform output -json writes it).
func (w *jsonWalker) value(kind secretKind) jsonNode {
	w.skipSpace()
	switch w.src[w.pos] {
	case '{':
		return w.object(kind)
	case '[':
		return w.array(kind)
	case '"':
		return w.str()
	}
	start := w.pos
	for w.pos < len(w.src) && strings.IndexByte(",]} \t\r\n", w.src[w.pos]) < 0 {
		w.pos++
	}
	return jsonNode{start: start, end: w.pos, kind: '0'}
}

// str reads a string literal and decodes it.
func (w *jsonWalker) str() jsonNode {
	start := w.pos
	w.pos++
	escaped := false
	for w.src[w.pos] != '"' {
		if w.src[w.pos] == '\\' {
			escaped = true
			w.pos++
		}
		w.pos++
	}
	w.pos++
	n := jsonNode{start: start, end: w.pos, kind: '"', text: w.src[start+1 : w.pos-1]}
	n.invalid = !utf8.ValidString(n.text)
	if escaped {
		n.text = unescapeJSON(n.text)
	}
	return n
}

// unescapeJSON decodes the body of a valid JSON string literal, escapes
// and all, as encoding/json does (a lone surrogate becomes U+FFFD) without
// its allocations.
func unescapeJSON(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 >= len(s) {
			b.WriteByte(c)
			continue
		}
		i++
		switch s[i] {
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'u':
			r, size := unicodeEscape(s[i+1:])
			b.WriteRune(r)
			i += size
		default: // \" \\ \/
			b.WriteByte(s[i])
		}
	}
	return b.String()
}

// unicodeEscape reads the four hex digits after "\\u" (and a low surrogate
// escape after a high one) and returns the rune and the bytes read.
func unicodeEscape(s string) (rune, int) {
	r := hex4(s)
	if r < 0 {
		return utf8.RuneError, min(4, len(s))
	}
	if !utf16.IsSurrogate(rune(r)) {
		return rune(r), 4
	}
	if len(s) >= 10 && s[4] == '\\' && s[5] == 'u' {
		if lo := hex4(s[6:]); lo >= 0 {
			if dec := utf16.DecodeRune(rune(r), rune(lo)); dec != utf8.RuneError {
				return dec, 10
			}
		}
	}
	return utf8.RuneError, 4
}

// hex4 returns the value of the four hex digits starting s, or -1.
func hex4(s string) int {
	if len(s) < 4 {
		return -1
	}
	v := 0
	for _, c := range []byte(s[:4]) {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c -= 'a' - 10
		case c >= 'A' && c <= 'F':
			c -= 'A' - 10
		default:
			return -1
		}
		v = v<<4 | int(c)
	}
	return v
}

func (w *jsonWalker) array(kind secretKind) jsonNode {
	start := w.pos
	w.pos++ // [
	base := len(w.strs)
	defer func() { w.strs = w.strs[:base] }()
	for {
		w.skipSpace()
		if w.src[w.pos] == ']' {
			w.pos++
			break
		}
		if v := w.value(notSecret); v.kind == '"' {
			w.strs = append(w.strs, v)
		}
		w.skipSpace()
		if w.src[w.pos] == ',' {
			w.pos++
		}
	}
	strs := w.strs[base:]
	var argv []string // the strings redacted, with an argument list's credentials replaced
	if kind == notSecret {
		argv = w.argumentList(strs)
	}
	for i, v := range strs {
		switch {
		case kind == plainSecret:
			w.replaceSecret(v)
		case kind != notSecret:
			w.redactHeaderValue(v, kind)
		case argv != nil:
			w.edit(v, argv[i])
		default:
			w.redactString(v)
		}
	}
	return jsonNode{start: start, end: w.pos, kind: '['}
}

// argumentList reads an array of strings as a command's arguments
// (["mysql", "-u", "root", "-pSECRET"], ["--token", "abc"]) and returns
// them redacted as strings, then with the credentials that the flag and
// command rules find on the command line they make replaced, or nil when
// there is none. Each string is redacted first, as String redacts the
// command line whole: a flag's value may be what names the secret after
// it (-pass "secretKey: ...").
func (w *jsonWalker) argumentList(strs []jsonNode) []string {
	flags := false
	for _, v := range strs {
		flags = flags || strings.HasPrefix(v.text, "-")
	}
	if len(strs) < 2 || !flags {
		return nil
	}
	texts := make([]string, len(strs))
	for i, v := range strs {
		texts[i] = w.redacted(v)
	}
	var line strings.Builder
	starts := make([]int, len(strs))
	for i, t := range texts {
		if i > 0 {
			line.WriteByte(' ')
		}
		starts[i] = line.Len()
		line.WriteString(t)
	}
	cmd := line.String()
	var found []span
	collect := func(a, b int) { found = append(found, span{a, b}) }
	flagSecrets(cmd, collect)
	commandSecrets(cmd, collect)
	if len(found) == 0 {
		return nil
	}
	out := slices.Clone(texts)
	// Replace from the last span back, so earlier offsets stay right.
	sort.Slice(found, func(i, j int) bool { return found[i].start > found[j].start })
	for _, f := range found {
		i := sort.SearchInts(starts, f.start+1) - 1
		a, b := f.start-starts[i], f.end-starts[i]
		if b > len(out[i]) || out[i] != texts[i] {
			continue // across two arguments, or one already replaced
		}
		out[i] = out[i][:a] + Marker + out[i][b:]
	}
	return out
}

// member is one name-value pair of an object.
type member struct {
	key, value jsonNode
	kind       secretKind // what the key says of the value
}

func (w *jsonWalker) object(parent secretKind) jsonNode {
	start := w.pos
	w.pos++ // {
	base := len(w.members)
	defer func() { w.members = w.members[:base] }()
	for {
		w.skipSpace()
		if w.src[w.pos] == '}' {
			w.pos++
			break
		}
		key := w.str()
		w.skipSpace()
		w.pos++ // :
		kind := classifyName(key.text, false)
		if kind == notSecret && parent == plainSecret && isRecordValue(key.text) {
			kind = plainSecret
		}
		value := w.value(kind)
		w.members = append(w.members, member{key: key, value: value, kind: kind})
		w.skipSpace()
		if w.src[w.pos] == ',' {
			w.pos++
		}
	}
	members := w.members[base:]
	named := namesSecret(members)
	for _, m := range members {
		w.redactString(m.key)
		switch {
		case m.value.kind == '[' || m.value.kind == '{':
			// Redacted as they were read.
		case m.kind == plainSecret || (named && strings.EqualFold(m.key.text, "value")):
			w.replaceSecret(m.value)
		case m.value.kind != '"':
		case m.kind == authHeader || m.kind == cookieHeader || m.kind == setCookie:
			w.redactHeaderValue(m.value, m.kind)
		default:
			w.redactString(m.value)
		}
	}
	return jsonNode{start: start, end: w.pos, kind: '{'}
}

// namesSecret reports whether an object is a name-value record whose name
// says secret: {"name": "DB_PASSWORD", "value": "..."}, as Kubernetes env
// entries, CI variables and parameter stores write them.
func namesSecret(members []member) bool {
	hasValue := false
	for _, m := range members {
		if strings.EqualFold(m.key.text, "value") {
			hasValue = true
		}
	}
	if !hasValue {
		return false
	}
	for _, m := range members {
		k := strings.ToLower(m.key.text)
		if (k == "name" || k == "key") && m.value.kind == '"' && classifyName(m.value.text, false) == plainSecret {
			return true
		}
	}
	return false
}

// redactString records the edit that redacts a string literal, if any.
func (w *jsonWalker) redactString(n jsonNode) { w.redactStringAs(n, n.text) }

// redactStringAs records the edit that redacts the string literal n,
// whose decoded text a rule has already rewritten as text.
func (w *jsonWalker) redactStringAs(n jsonNode, text string) {
	if text == "" && !n.invalid {
		return
	}
	w.edit(n, w.redactedAs(text))
}

// redacted returns the decoded text of the string literal n redacted, as
// redactString would write it.
func (w *jsonWalker) redacted(n jsonNode) string {
	if n.text == "" {
		return ""
	}
	return w.redactedAs(n.text)
}

// redactedAs returns text redacted as a string of the document: read as
// JSON when it holds some (to a bounded depth), else by the string rules.
func (w *jsonWalker) redactedAs(text string) string {
	if w.depth < maxJSONNesting && mayBeJSON(text) {
		return redactJSON(text, w.f, w.depth+1)
	}
	return w.f(StripControl(text))
}

// replaceSecret records the edit that replaces a secret value whole: a
// string that is not a placeholder, a boolean, a null or already redacted,
// or a number (which becomes the string Marker).
func (w *jsonWalker) replaceSecret(n jsonNode) {
	switch n.kind {
	case '"':
		v := strings.TrimSpace(n.text)
		if v == "" || v == Marker || isPlaceholder(v) || isPlainWord(v) {
			w.redactString(n)
			return
		}
	case '0':
		if v := w.src[n.start:n.end]; v == "true" || v == "false" || v == "null" {
			return
		}
	default:
		return
	}
	w.edits = append(w.edits, jsonEdit{n.start, n.end, `"` + Marker + `"`})
}

// redactHeaderValue redacts the value of an Authorization, Cookie or
// Set-Cookie member as the header rules do, then as any other string.
func (w *jsonWalker) redactHeaderValue(n jsonNode, kind secretKind) {
	v := StripControl(n.text)
	sp := splicer{src: v}
	redactHeader(&sp, v, 0, len(v), kind)
	w.edit(n, w.f(StripControl(sp.String())))
}

// edit records that the string literal n now reads out, when it changed.
func (w *jsonWalker) edit(n jsonNode, out string) {
	if out == n.text && !n.invalid {
		return
	}
	w.edits = append(w.edits, jsonEdit{n.start, n.end, quoteJSON(out)})
}

// quoteJSON encodes s as a JSON string literal without HTML escaping, so
// that "<", ">" and "&" in commands stay readable.
func quoteJSON(s string) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		return `"` + Marker + `"` // unreachable: a string always encodes
	}
	return strings.TrimSuffix(b.String(), "\n")
}
