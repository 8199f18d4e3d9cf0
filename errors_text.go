package compact

import "github.com/contextkit/compact/redact"

// errText is an error's message as it may leave the process, in a log line
// or in a Status or Result field a host shows: an error can quote what the
// conversation held (a summarizer's reply, a tool call id, a path), so it is
// redacted.
func errText(err error) string { return redact.String(err.Error()) }
