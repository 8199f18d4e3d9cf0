// Package redact removes secrets and terminal control from text before it
// leaves the process: what a summarizer is sent, what a handoff packet
// writes, what a log line or a report shows.
//
// [String] replaces each secret it recognises with [Marker] and keeps what
// says what the secret was (a header name, a key name, a well-known public
// prefix), so a reader still knows a credential was there. [JSON] does the
// same for JSON (tool-call arguments, a tool's JSON output): it decodes each
// string, redacts it as String would and encodes it again, so the JSON stays
// valid and a secret inside a quoted shell command goes as it would in plain
// text; [JSONFunc] lets a host add rules of its own. [StripControl]
// makes text safe to print or store: valid UTF-8 without escape sequences or
// control characters. Both are pure functions of their input, safe for
// concurrent use, and idempotent.
//
// The package depends on nothing but the standard library, so a program that
// only redacts stays small.
package redact
