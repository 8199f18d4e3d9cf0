package handoff

import (
	"context"
	"fmt"
	"strings"

	openai "github.com/sashabaranov/go-openai"
)

// Message is one chat message in OpenAI's format: go-openai's type, the
// same type as compact.Message.
type Message = openai.ChatCompletionMessage

// Mode says what an automatic handoff does with its packet.
type Mode int

const (
	// PromptUser writes the packet and carries on with the ordinary
	// compaction. compact.Result.Handoff tells the host where the packet
	// is, so it can offer the user a fresh start from it. The zero value:
	// it never changes the conversation the host runs.
	PromptUser Mode = iota
	// FreshSession writes the packet and makes it the whole context
	// of a continuation: the system prompt plus one user message holding the
	// packet, returned in compact.Result.Handoff with the session to link
	// it to.
	FreshSession
)

// String returns "prompt-user" or "fresh-session".
func (m Mode) String() string {
	switch m {
	case PromptUser:
		return "prompt-user"
	case FreshSession:
		return "fresh-session"
	}
	return fmt.Sprintf("Mode(%d)", int(m))
}

// MarshalText returns the mode's name, so a policy round-trips through a
// JSON or YAML configuration file.
func (m Mode) MarshalText() ([]byte, error) {
	if m != PromptUser && m != FreshSession {
		return nil, fmt.Errorf("handoff: unknown mode %d", int(m))
	}
	return []byte(m.String()), nil
}

// UnmarshalText reads a mode's name: "prompt-user" or "fresh-session"
// (underscores are accepted for hyphens, case is ignored).
func (m *Mode) UnmarshalText(text []byte) error {
	switch strings.ReplaceAll(strings.ToLower(strings.TrimSpace(string(text))), "_", "-") {
	case "prompt-user":
		*m = PromptUser
	case "fresh-session":
		*m = FreshSession
	default:
		return fmt.Errorf("handoff: unknown mode %q (want prompt-user or fresh-session)", text)
	}
	return nil
}

// Defaults of a Policy and of Build.
const (
	// defaultAfter is how many compactions a conversation goes
	// through before an automatic handoff: each compaction loses a little,
	// and from the second on a summary is a summary of a summary.
	defaultAfter = 2

	// defaultMaxPerSession is how many automatic handoffs one
	// conversation may make. One keeps a misjudged policy from flooding the
	// packet directory or rotating a session in a loop.
	defaultMaxPerSession = 1

	// defaultMaxBytes bounds a packet's total size: 32 KiB, about 8k
	// tokens, small enough to open a fresh context with plenty of room.
	defaultMaxBytes = 32 << 10

	// defaultMessages is how many of the latest messages a packet
	// quotes after the summary, enough for the last request and the
	// exchange around it.
	defaultMessages = 8

	// defaultMessageBytes bounds each quoted message; a longer one is
	// cut in the middle, keeping its head and tail.
	defaultMessageBytes = 2 << 10
)

// minBytes is the smallest total a packet may be bounded to: the
// headings, session lines, note, tasks, request and rules take up to about
// half of it, and a packet with no room left for a summary helps nobody.
const minBytes = 8 << 10

// minMessageBytes is the smallest bound on one quoted message.
const minMessageBytes = 256

// Policy configures the automatic handoffs of a Compressor
// (compact.WithHandoff) and the packets a host asks for by hand
// (compact.Compressor.ManualHandoffPacket). Zero and negative numbers take
// the defaults; the zero policy is off. [Policy.Resolve] fills the defaults
// in and says which values were out of range.
type Policy struct {
	// Enabled turns automatic handoffs on. Manual packets need only Root.
	Enabled bool

	// AfterCompactions is how many compactions happen before the first
	// automatic handoff (default 2: from the second on, a summary is a
	// summary of a summary). In fresh-session mode the count starts again
	// after each handoff, since the continuation is a fresh context.
	AfterCompactions int

	// MaxPerSession bounds the automatic handoffs of one conversation
	// (default 1, so that a misjudged policy cannot flood the directory or
	// rotate a session in a loop). Once it is spent, compaction goes on as
	// usual and compact.Status.HandoffReason says so. Only handoffs that
	// succeeded count.
	MaxPerSession int

	// Mode is what a handoff does: PromptUser (the zero value) or
	// FreshSession.
	Mode Mode

	// Root is the directory the host allows packets to be written under.
	// It must exist. The host chose it, so it may be or pass through a
	// symbolic link; it is resolved and opened once per write (see Write).
	// Without a Root no packet is written and automatic handoffs fail
	// (compaction goes on).
	Root string

	// Dir is where packets go, relative to Root ("" or "." for Root
	// itself). It may not be absolute, hold "..", or pass through a
	// symbolic link; missing directories are created with mode 0700.
	Dir string

	// MaxBytes bounds a packet's total size (default 32 KiB, at least
	// 8 KiB).
	MaxBytes int

	// MaxMessages is how many of the latest messages a packet quotes
	// (default 8).
	MaxMessages int

	// MessageBytes bounds each quoted message (default 2 KiB, at least
	// 256).
	MessageBytes int

	// Start, when set, is called in fresh-session mode once the packet is
	// written and the continuation built, to open the linked session. It
	// returns the new session's id. An error abandons the handoff: the
	// packet file is removed, the handoff is not counted, and the
	// compaction is returned as usual. A Compressor calls it after the
	// compaction released the Compressor, with the compaction's context;
	// another compaction may run meanwhile.
	Start func(ctx context.Context, r Report) (sessionID string, err error) `json:"-"`
}

// Resolve returns p with its zero and negative numbers replaced by their
// defaults and those below their least raised to it, and a line for each
// value raised ("MaxBytes(1000): below 8192, 8192 kept"), which a
// Compressor reports in Status().Adjusted.
func (p Policy) Resolve() (Policy, []string) {
	var adjusted []string
	if p.AfterCompactions < 1 {
		p.AfterCompactions = defaultAfter
	}
	if p.MaxPerSession < 1 {
		p.MaxPerSession = defaultMaxPerSession
	}
	if p.MaxBytes > 0 && p.MaxBytes < minBytes {
		adjusted = append(adjusted, fmt.Sprintf("MaxBytes(%d): below %d, %d kept", p.MaxBytes, minBytes, minBytes))
	}
	if p.MessageBytes > 0 && p.MessageBytes < minMessageBytes {
		adjusted = append(adjusted, fmt.Sprintf("MessageBytes(%d): below %d, %d kept", p.MessageBytes, minMessageBytes, minMessageBytes))
	}
	p.MaxBytes, p.MaxMessages, p.MessageBytes = packetLimits(p.MaxBytes, p.MaxMessages, p.MessageBytes)
	return p, adjusted
}

// packetLimits resolves a packet's bounds: total bytes, quoted messages and
// bytes per quoted message.
func packetLimits(total, msgs, perMsg int) (int, int, int) {
	if total <= 0 {
		total = defaultMaxBytes
	}
	if msgs <= 0 {
		msgs = defaultMessages
	}
	if perMsg <= 0 {
		perMsg = defaultMessageBytes
	}
	return max(total, minBytes), msgs, max(perMsg, minMessageBytes)
}

// Report says what a handoff wrote: by an automatic handoff
// (compact.Result.Handoff) or by hand
// (compact.Compressor.ManualHandoffPacket). It is only reported when
// everything succeeded.
type Report struct {
	// Mode is the policy's mode; a manual packet reports PromptUser.
	Mode Mode
	// Manual is set on a packet the host asked for by hand.
	Manual bool
	// Path is the packet file, absolute.
	Path string
	// Packet is the packet's text, as written.
	Packet string
	// SessionID is the conversation handed off
	// (compact.CompressOptions.SessionID): the session a continuation
	// links to as its parent.
	SessionID string
	// Continuation, in fresh-session mode only, is the whole context of the
	// continuation: the conversation's leading system messages exactly as
	// the host wrote them (no compaction note) and one user message holding
	// Packet. It passes compact.Validate.
	Continuation []Message
	// ContinuationID is the id Policy.Start gave the new session, or
	// "" when there is no Start.
	ContinuationID string
}

// command is the command a host offers for a manual packet:
// "/handoff-packet [note]". See ParseCommand.
const command = "/handoff-packet"

// ParseCommand reports whether input is the command a host offers for a
// manual packet, "/handoff-packet [note]", and returns the operator's note
// that follows it ("" when there is none).
func ParseCommand(input string) (note string, ok bool) {
	s := strings.TrimSpace(input)
	if !strings.HasPrefix(s, command) {
		return "", false
	}
	rest := s[len(command):]
	if rest != "" && rest[0] != ' ' && rest[0] != '\t' && rest[0] != '\n' {
		return "", false
	}
	return strings.TrimSpace(rest), true
}
