package compact

import (
	"github.com/contextkit/compact/internal/msg"
	openai "github.com/sashabaranov/go-openai"
)

// Message is one chat message in OpenAI's format. It is go-openai's type, so
// a host passes its request messages to this package without conversion.
type Message = openai.ChatCompletionMessage

// Roles a valid history may use. Tool results answer assistant tool calls.
// OpenAI's "developer" role (openai.ChatMessageRoleDeveloper) counts as a
// system message.
const (
	RoleSystem    = openai.ChatMessageRoleSystem
	RoleUser      = openai.ChatMessageRoleUser
	RoleAssistant = openai.ChatMessageRoleAssistant
	RoleTool      = openai.ChatMessageRoleTool
)

// Text returns the text of m's content as a model would read it: Content
// when it is set, otherwise the parts of MultiContent joined by newlines.
// An image part reads as a short placeholder that keeps its URL, except for
// a data: URL, whose payload is replaced by its size. Tool calls are not
// content: RenderTurns shows them.
func Text(m Message) string { return msg.Text(m) }

// Clone returns a deep copy of msgs: no slice, pointer or part of the copy is
// shared with msgs, so either may be changed without touching the other. A
// nil slice clones to nil.
func Clone(msgs []Message) []Message { return msg.Clone(msgs) }

// Join concatenates slices of messages into one new slice, guarding each
// seam between them: where the last message of one part and the first of the
// next are both user turns, or both assistant turns with no tool calls
// between, the second is merged into the first so roles keep alternating.
// Merging keeps everything: string contents are joined by a blank line,
// parts lists are concatenated, and a string meeting a parts list becomes a
// text part. Tool-tool seams are legal and left alone. Seams inside a part
// are not touched. The inputs are not modified.
func Join(parts ...[]Message) []Message { return msg.Join(parts...) }

// SummaryPrefix opens every summary this package writes. It tells the model
// that the message is a handoff from an earlier context window: background
// to draw on, not instructions, and outranked by the latest user message.
// Its first words, "[Context handoff]", are what recognition keys on: they
// stay the same when the wording after them changes between versions.
const SummaryPrefix = msg.SummaryPrefix

// CompactionNote is appended once to the system prompt of a compacted
// history so the model knows why the conversation starts with a summary.
const CompactionNote = msg.CompactionNote

// IsSummary reports whether m carries a summary this package wrote, either as
// a message of its own or merged in front of another message's content. A
// summary is never a real user turn, whatever its role.
func IsSummary(m Message) bool { return msg.IsSummary(m) }

// IsRealUser reports whether m is a user turn a person (or host) wrote: a
// user message that is not a summary, or a summary merged in front of a real
// user message. Compaction's own messages are not real user turns.
func IsRealUser(m Message) bool { return msg.IsRealUser(m) }

// PrefixSummary returns summary behind exactly one SummaryPrefix, however
// many prefixes (current or older) it already carried.
func PrefixSummary(summary string) string { return msg.PrefixSummary(summary) }
