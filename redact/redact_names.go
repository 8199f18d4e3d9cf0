package redact

import "strings"

// classifyName says whether a value written under name is a secret, and how
// to redact it. A name says secret when, read as words (OPENAI_API_KEY,
// apiKey, x-api-key, client.secret), its last word is a secret word
// (password, passwd, pwd, pass, secret, token, auth, credentials,
// passphrase, ...) or a qualified key (api key, access key, private key,
// account key, ...). Trailing words that only describe the encoding
// (password_confirmation, token_b64, key2) are skipped first. A name with a
// word that makes it metadata (token_count, max_tokens, secret_name,
// token_type, password_file, next_page_token, auth_url) is not a secret; a
// namespace before the name (Terraform's TF_VAR_db_password) is no such
// word. In
// a URL query, the names that carry secrets there (key, sig, code,
// X-Amz-Signature, ...) count as well.
func classifyName(name string, inQuery bool) secretKind {
	name = trimNameSigils(name)
	if name == "" || len(name) > maxNameLen {
		return notSecret
	}
	if !hasNameTrigger(name) {
		return notSecret
	}
	var buf [maxNameLen]byte
	lower := buf[:len(name)]
	for i := 0; i < len(name); i++ {
		c := name[i]
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		lower[i] = c
	}
	switch string(lower) {
	case "authorization", "proxy-authorization":
		return authHeader
	case "cookie":
		return cookieHeader
	case "set-cookie":
		return setCookie
	}
	if inQuery && querySecrets[string(lower)] {
		return plainSecret
	}
	words := splitWords(name)
	n := len(words)
	for n > 0 && encodingWord(words[n-1]) {
		n--
	}
	if n == 0 {
		return notSecret
	}
	for _, w := range words {
		if metaWords[w] {
			return notSecret
		}
	}
	if secretWord(words[n-1]) || (words[n-1] == "key" && n >= 2 && keyQualifiers[words[n-2]]) {
		return plainSecret
	}
	return notSecret
}

// trimNameSigils returns name without the dashes, dollars and at signs
// before it (strings.TrimLeft(name, "-$@"), without building a set on
// every call: classifyName runs at every separator of a text).
func trimNameSigils(name string) string {
	for name != "" && (name[0] == '-' || name[0] == '$' || name[0] == '@') {
		name = name[1:]
	}
	return name
}

// hasNameTrigger reports whether a name holds, in any ASCII casing, one
// of the substrings every secret name holds (pass, pw, pat, secret, sig,
// session, token, auth, cred, cookie, code, key, jwt); names without any
// are rejected before being lowered and split into words. It runs at every
// separator of a text, so it compares in place, building nothing: a byte
// ORed with 0x20 is a lower-case letter only when it was that letter in
// either case.
func hasNameTrigger(name string) bool {
	for i := 0; i < len(name); i++ {
		if !triggerStarts[name[i]] {
			continue // most bytes: one table lookup, no switch
		}
		r := name[i:]
		switch name[i] | 0x20 {
		case 'p':
			if hasFoldPrefix(r, "pass") || hasFoldPrefix(r, "pw") || hasFoldPrefix(r, "pat") {
				return true
			}
		case 's':
			if hasFoldPrefix(r, "secret") || hasFoldPrefix(r, "sig") || hasFoldPrefix(r, "session") {
				return true
			}
		case 't':
			if hasFoldPrefix(r, "token") {
				return true
			}
		case 'a':
			if hasFoldPrefix(r, "auth") {
				return true
			}
		case 'c':
			if hasFoldPrefix(r, "cred") || hasFoldPrefix(r, "cookie") || hasFoldPrefix(r, "code") {
				return true
			}
		case 'k':
			if hasFoldPrefix(r, "key") {
				return true
			}
		case 'j':
			if hasFoldPrefix(r, "jwt") {
				return true
			}
		}
	}
	return false
}

// triggerStarts holds the first letters of hasNameTrigger's substrings, in
// both cases.
var triggerStarts = newClass("pstackjPSTACKJ")

// hasFoldPrefix reports whether s starts with p, a word of lower-case
// letters, in any ASCII casing.
func hasFoldPrefix(s, p string) bool {
	if len(s) < len(p) {
		return false
	}
	for i := 0; i < len(p); i++ {
		if s[i]|0x20 != p[i] {
			return false
		}
	}
	return true
}

// splitWords splits a name into lower-case words at punctuation and at
// camel-case humps: "OPENAI_API_KEY" → openai api key, "apiKey" → api key,
// "APIKey" → api key, "OAuthToken" → oauth token.
func splitWords(name string) []string {
	var words []string
	start := -1
	flush := func(end int) {
		if start >= 0 && end > start {
			words = append(words, strings.ToLower(name[start:end]))
		}
		start = -1
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !alnumClass[c] {
			flush(i)
			continue
		}
		if start < 0 {
			start = i
			continue
		}
		prev := name[i-1]
		switch {
		case isUpper(c) && !isUpper(prev):
			flush(i) // apiKey: a hump
			start = i
		case !isUpper(c) && !isDigit(c) && isUpper(prev) && i-1-start >= 2:
			flush(i - 1) // APIKey: an upper-case run ends where a word starts
			start = i - 1
		case isDigit(c) != isDigit(prev):
			flush(i) // password2, s3key
			start = i
		}
	}
	flush(len(name))
	return words
}

func isUpper(c byte) bool { return c >= 'A' && c <= 'Z' }
func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// secretWord reports whether a word names a secret on its own.
func secretWord(w string) bool {
	switch w {
	case "pass", "pwd", "pw", "auth", "creds", "credential", "credentials", "passphrase", "passcode",
		"jwt", "pat", "sharedaccesssignature", "passin", "passout":
		return true
	}
	for _, suffix := range [...]string{"password", "passwd", "secret", "token"} {
		if strings.HasSuffix(w, suffix) {
			return true
		}
	}
	if strings.HasSuffix(w, "pass") && len(w) > 4 {
		return passQualifiers[strings.TrimPrefix(strings.TrimPrefix(w[:len(w)-4], "src"), "dest")]
	}
	return strings.HasSuffix(w, "key") && len(w) > 3 && keyQualifiers[w[:len(w)-3]]
}

// passQualifiers are the words that make a single word ending in "pass" a
// password: keytool's storepass and keypass (and their src and dest forms),
// sshpass, a bindpass or dbpass. Other words ending so (bypass, compass,
// renderpass) are not.
var passQualifiers = map[string]bool{
	"store": true, "key": true, "bind": true, "root": true, "admin": true, "user": true,
	"db": true, "master": true, "sudo": true, "ssh": true, "ftp": true, "smtp": true,
	"mail": true, "vnc": true, "proxy": true, "http": true, "login": true, "become": true,
}

// keyQualifiers are the words that make "key" a secret: api key, access
// key, private key. A plain "key" (a map key, a sort key) is not one.
var keyQualifiers = map[string]bool{
	"api": true, "access": true, "private": true, "secret": true, "master": true,
	"encryption": true, "signing": true, "account": true, "shared": true, "license": true,
	"subscription": true, "sas": true, "app": true, "client": true, "service": true,
	"deploy": true, "storage": true, "admin": true, "auth": true, "session": true,
	"consumer": true, "hmac": true, "webhook": true, "ingest": true, "xapi": true,
}

// encodingWord reports whether a trailing word only says how a secret is
// written or which one it is: password_confirmation, token_b64, key2.
func encodingWord(w string) bool {
	switch w {
	case "value", "confirmation", "confirm", "str", "string", "b64", "base64", "hex", "raw",
		"plain", "plaintext", "enc", "encrypted", "encoded", "data", "text", "override", "new", "old":
		return true
	}
	return w != "" && strings.Trim(w, digitChars) == ""
}

// metaWords make a name describe a secret rather than hold one: its size,
// kind, location, limits, or a count of model tokens.
var metaWords = map[string]bool{
	"count": true, "counts": true, "max": true, "min": true, "limit": true, "limits": true,
	"len": true, "length": true, "size": true, "num": true, "number": true, "total": true,
	"usage": true, "used": true, "remaining": true, "budget": true, "estimate": true,
	"ratio": true, "rate": true, "type": true, "kind": true, "format": true, "version": true,
	"method": true, "mode": true, "scheme": true, "provider": true, "manager": true,
	"url": true, "uri": true, "endpoint": true, "host": true, "port": true, "server": true,
	"domain": true, "realm": true, "file": true, "filename": true, "path": true, "dir": true,
	"name": true, "names": true, "field": true, "label": true,
	"page": true, "next": true, "cursor": true, "continuation": true, "prefix": true,
	"suffix": true, "reset": true, "hint": true, "strength": true, "policy": true,
	"required": true, "enabled": true, "enable": true, "disable": true, "disabled": true,
	"prompt": true, "placeholder": true, "pattern": true, "regex": true, "input": true,
	"no": true, "expiry": true, "expires": true, "expiration": true, "ttl": true,
	"timeout": true, "age": true, "lifetime": true, "scope": true, "scopes": true,
	"index": true, "idx": true, "offset": true, "position": true, "pos": true,
	"start": true, "end": true, "source": true, "location": true, "helper": true,
	"command": true, "cmd": true, "flow": true, "grant": true, "audience": true,
	"issuer": true, "algorithm": true, "alg": true, "store": true, "logprob": true,
}

// querySecrets are URL query parameters that carry a secret even though the
// name alone would not say so elsewhere.
var querySecrets = map[string]bool{
	"key": true, "sig": true, "signature": true, "code": true, "session": true,
	"sessionid": true, "x-amz-signature": true, "x-amz-credential": true,
	"x-amz-security-token": true, "x-goog-signature": true, "x-goog-credential": true,
}
