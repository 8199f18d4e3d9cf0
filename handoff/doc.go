// Package handoff writes handoff packets: a bounded, redacted Markdown
// document that lets a fresh context (a new session, another agent, a
// person) carry on a conversation that has been compacted too often to
// trust another summary of a summary.
//
// [Build] renders a packet from an [Input]: the session, the operator's
// note, the open tasks, the latest summary, the recent messages, the
// latest user request and the rules for continuing, every field redacted
// and bounded. [Write] puts it in a new file under a directory the host
// allows, through an [os.Root], never overwriting and never following a
// link out. [Continuation] is the whole context of a fresh session that
// starts from a packet.
//
// A Compressor runs handoffs by itself under a [Policy]
// (compact.WithHandoff): after a number of compactions it writes a packet
// and either tells the host where it is ([PromptUser]) or hands it a
// continuation to switch to ([FreshSession]), reporting what it did in a
// [Report]. A host offers the manual form with [ParseCommand]
// ("/handoff-packet [note]") and compact.Compressor.ManualHandoffPacket.
package handoff
