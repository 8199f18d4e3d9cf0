package main

import "github.com/contextkit/compact/redact"

// redacted returns r with every field that can quote the conversation
// redacted: a report leaves the process (a terminal, a -json-report file, a
// CI log), while the compacted history it describes stays the
// conversation's own.
func (r report) redacted() report {
	r.Error = redact.String(r.Error)
	r.Note = redact.String(r.Note)
	r.Summary = redact.String(r.Summary)
	r.FallbackReason = redact.String(r.FallbackReason)
	r.Repairs = append([]repairReport(nil), r.Repairs...)
	for i := range r.Repairs {
		rp := &r.Repairs[i]
		rp.ToolCallID, rp.Detail = redact.String(rp.ToolCallID), redact.String(rp.Detail)
	}
	r.Messages = redactedMessages(r.Messages)
	r.Prunes = append([]pruneReport(nil), r.Prunes...)
	for i := range r.Prunes {
		p := &r.Prunes[i]
		p.Tool, p.ToolCallID, p.Note = redact.String(p.Tool), redact.String(p.ToolCallID), redact.String(p.Note)
	}
	return r
}

// errText is an error as the CLI prints it: an error can quote the input
// (a tool call id, a message's text), so it is redacted.
func errText(err error) string { return redact.String(err.Error()) }
