// Package redact removes secrets and terminal control from text before it
// leaves the process: what a summarizer is sent, what a handoff packet
// writes, what a log line or a report shows.
//
// [String] replaces each secret it recognises with [Marker] and keeps what
// says what the secret was (a header name, a key name, a well-known public
// prefix), so a reader still knows a credential was there. [StripControl]
// makes text safe to print or store: valid UTF-8 without escape sequences or
// control characters. Both are pure functions of their input, safe for
// concurrent use, and idempotent.
//
// The package depends on nothing but the standard library, so a program that
// only redacts stays small.
package redact
