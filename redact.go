package compact

import "regexp"

// Redacted replaces a secret that Redact removed.
const Redacted = "[REDACTED]"

// secretPatterns match secrets that must never reach a summarizer, a packet
// or a log. Each keeps what identifies the secret's kind (a header name, a
// URL's user) and replaces only the secret itself.
var secretPatterns = []struct {
	re   *regexp.Regexp
	repl string
}{
	// Private key blocks, whole.
	{regexp.MustCompile(`-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----`), Redacted},
	// Passwords in URLs: scheme://user:password@host.
	{regexp.MustCompile(`([a-zA-Z][a-zA-Z0-9+.-]*://[^\s:/@]+:)[^\s@/]+@`), "${1}" + Redacted + "@"},
	// Bearer tokens.
	{regexp.MustCompile(`(?i)(bearer\s+)[A-Za-z0-9._~+/=-]{8,}`), "${1}" + Redacted},
	// OpenAI-style keys.
	{regexp.MustCompile(`\bsk-[A-Za-z0-9_-]{16,}`), Redacted},
}

// Redact returns s with the secrets it recognises replaced by Redacted. It is
// applied to everything sent to a summarizer, written to a handoff packet or
// logged.
func Redact(s string) string {
	for _, p := range secretPatterns {
		s = p.re.ReplaceAllString(s, p.repl)
	}
	return s
}
