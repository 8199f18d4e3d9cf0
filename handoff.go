package compact

import (
	"context"
	"fmt"
	"strings"
)

// HandoffMode says what an automatic handoff does with its packet.
type HandoffMode int

const (
	// HandoffPromptUser writes the packet and carries on with the ordinary
	// compaction. Result.Handoff tells the host where the packet is, so it
	// can offer the user a fresh start from it. The zero value: it never
	// changes the conversation the host runs.
	HandoffPromptUser HandoffMode = iota
	// HandoffFreshSession writes the packet and makes it the whole context
	// of a continuation: the system prompt plus one user message holding the
	// packet, returned in Result.Handoff with the session to link it to.
	HandoffFreshSession
)

// String returns "prompt-user" or "fresh-session".
func (m HandoffMode) String() string {
	switch m {
	case HandoffPromptUser:
		return "prompt-user"
	case HandoffFreshSession:
		return "fresh-session"
	}
	return fmt.Sprintf("HandoffMode(%d)", int(m))
}

// MarshalText returns the mode's name, so a policy round-trips through a
// JSON or YAML configuration file.
func (m HandoffMode) MarshalText() ([]byte, error) {
	if m != HandoffPromptUser && m != HandoffFreshSession {
		return nil, fmt.Errorf("compact: unknown handoff mode %d", int(m))
	}
	return []byte(m.String()), nil
}

// UnmarshalText reads a mode's name: "prompt-user" or "fresh-session"
// (underscores are accepted for hyphens, case is ignored).
func (m *HandoffMode) UnmarshalText(text []byte) error {
	switch strings.ReplaceAll(strings.ToLower(strings.TrimSpace(string(text))), "_", "-") {
	case "prompt-user":
		*m = HandoffPromptUser
	case "fresh-session":
		*m = HandoffFreshSession
	default:
		return fmt.Errorf("compact: unknown handoff mode %q (want prompt-user or fresh-session)", text)
	}
	return nil
}

// Defaults of a HandoffPolicy and of BuildHandoffPacket.
const (
	// defaultHandoffAfter is how many compactions a conversation goes
	// through before an automatic handoff: each compaction loses a little,
	// and from the second on a summary is a summary of a summary.
	defaultHandoffAfter = 2

	// defaultHandoffMaxPerSession is how many automatic handoffs one
	// conversation may make. One keeps a misjudged policy from flooding the
	// packet directory or rotating a session in a loop.
	defaultHandoffMaxPerSession = 1

	// defaultHandoffMaxBytes bounds a packet's total size: 32 KiB, about 8k
	// tokens, small enough to open a fresh context with plenty of room.
	defaultHandoffMaxBytes = 32 << 10

	// defaultHandoffMessages is how many of the latest messages a packet
	// quotes after the summary, enough for the last request and the
	// exchange around it.
	defaultHandoffMessages = 8

	// defaultHandoffMessageBytes bounds each quoted message; a longer one is
	// cut in the middle, keeping its head and tail.
	defaultHandoffMessageBytes = 2 << 10
)

// minHandoffBytes is the smallest total a packet may be bounded to: the
// headings, session lines, note, tasks, request and rules take up to about
// half of it, and a packet with no room left for a summary helps nobody.
const minHandoffBytes = 8 << 10

// minHandoffMessageBytes is the smallest bound on one quoted message.
const minHandoffMessageBytes = 256

// HandoffPolicy configures automatic handoffs (see WithHandoff) and the
// packets a host asks for by hand (see Compressor.ManualHandoffPacket). Zero
// and negative numbers take the defaults; the zero policy is off.
type HandoffPolicy struct {
	// Enabled turns automatic handoffs on. Manual packets need only Root.
	Enabled bool

	// AfterCompactions is how many compactions happen before the first
	// automatic handoff (defaultHandoffAfter). In fresh-session mode the
	// count starts again after each handoff, since the continuation is a
	// fresh context.
	AfterCompactions int

	// MaxPerSession bounds the automatic handoffs of one conversation
	// (defaultHandoffMaxPerSession). Once it is spent, compaction goes on
	// as usual and Status.HandoffReason says so. Only handoffs that
	// succeeded count.
	MaxPerSession int

	// Mode is what a handoff does: HandoffPromptUser (the zero value) or
	// HandoffFreshSession.
	Mode HandoffMode

	// Root is the directory the host allows packets to be written under.
	// It must exist. The host chose it, so it may be or pass through a
	// symbolic link; it is resolved once per write. Without a Root no
	// packet is written and automatic handoffs fail (compaction goes on).
	Root string

	// Dir is where packets go, relative to Root ("" or "." for Root
	// itself). It may not be absolute, hold "..", or pass through a
	// symbolic link; missing directories are created with mode 0700.
	Dir string

	// MaxBytes bounds a packet's total size (defaultHandoffMaxBytes, at
	// least 8 KiB).
	MaxBytes int

	// MaxMessages is how many of the latest messages a packet quotes
	// (defaultHandoffMessages).
	MaxMessages int

	// MessageBytes bounds each quoted message (defaultHandoffMessageBytes,
	// at least 256).
	MessageBytes int

	// Start, when set, is called in fresh-session mode once the packet is
	// written and the continuation built, to open the linked session. It
	// returns the new session's id. An error abandons the handoff: the
	// packet file is removed, the handoff is not counted, and the
	// compaction is returned as usual. Start runs while the compaction
	// holds the Compressor, so it must not call Compress on it.
	Start func(ctx context.Context, h Handoff) (sessionID string, err error) `json:"-"`
}

// withDefaults returns p with its zero and out-of-range numbers replaced.
func (p HandoffPolicy) withDefaults() HandoffPolicy {
	if p.AfterCompactions < 1 {
		p.AfterCompactions = defaultHandoffAfter
	}
	if p.MaxPerSession < 1 {
		p.MaxPerSession = defaultHandoffMaxPerSession
	}
	p.MaxBytes, p.MaxMessages, p.MessageBytes = packetLimits(p.MaxBytes, p.MaxMessages, p.MessageBytes)
	return p
}

// packetLimits resolves a packet's bounds: total bytes, quoted messages and
// bytes per quoted message.
func packetLimits(total, msgs, perMsg int) (int, int, int) {
	if total <= 0 {
		total = defaultHandoffMaxBytes
	}
	if msgs <= 0 {
		msgs = defaultHandoffMessages
	}
	if perMsg <= 0 {
		perMsg = defaultHandoffMessageBytes
	}
	return max(total, minHandoffBytes), msgs, max(perMsg, minHandoffMessageBytes)
}

// Handoff reports a packet that was written: by an automatic handoff
// (Result.Handoff) or by hand (Compressor.ManualHandoffPacket). It is only
// reported when everything succeeded.
type Handoff struct {
	// Mode is the policy's mode; a manual packet reports HandoffPromptUser.
	Mode HandoffMode
	// Manual is set on a packet the host asked for by hand.
	Manual bool
	// Path is the packet file, absolute.
	Path string
	// Packet is the packet's text, as written.
	Packet string
	// SessionID is the conversation handed off (CompressOptions.SessionID):
	// the session a continuation links to as its parent.
	SessionID string
	// Continuation, in fresh-session mode only, is the whole context of the
	// continuation: the conversation's leading system messages exactly as
	// the host wrote them (no compaction note) and one user message holding
	// Packet. It passes Validate.
	Continuation []Message
	// ContinuationID is the id HandoffPolicy.Start gave the new session, or
	// "" when there is no Start.
	ContinuationID string
}

// handoffCommand is the command a host offers for a manual packet:
// "/handoff-packet [note]". See ParseHandoffCommand.
const handoffCommand = "/handoff-packet"

// ParseHandoffCommand reports whether input is handoffCommand and returns
// the operator's note that follows it ("" when there is none).
func ParseHandoffCommand(input string) (note string, ok bool) {
	s := strings.TrimSpace(input)
	if !strings.HasPrefix(s, handoffCommand) {
		return "", false
	}
	rest := s[len(handoffCommand):]
	if rest != "" && rest[0] != ' ' && rest[0] != '\t' && rest[0] != '\n' {
		return "", false
	}
	return strings.TrimSpace(rest), true
}
