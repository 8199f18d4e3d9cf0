package msg

import (
	"strconv"
	"strings"

	"github.com/contextkit/compact/internal/memo"
	openai "github.com/sashabaranov/go-openai"
)

// Message is one chat message in OpenAI's format. It is go-openai's type, so
// a host passes its request messages to this package without conversion.
type Message = openai.ChatCompletionMessage

// Roles a valid history may use. Tool results answer assistant tool calls;
// "developer" is OpenAI's newer name for a system-level instruction.
const (
	RoleSystem    = openai.ChatMessageRoleSystem
	RoleDeveloper = openai.ChatMessageRoleDeveloper
	RoleUser      = openai.ChatMessageRoleUser
	RoleAssistant = openai.ChatMessageRoleAssistant
	RoleTool      = openai.ChatMessageRoleTool
)

// Text returns the text of m's content as a model would read it: Content
// when it is set, otherwise the parts of MultiContent joined by newlines.
// An image part reads as a short placeholder that keeps its URL, except for
// a data: URL, whose payload is replaced by its size. Tool calls are not
// content; see ToolCallText.
func Text(m Message) string {
	if m.Content != "" || len(m.MultiContent) == 0 {
		return m.Content
	}
	if len(m.MultiContent) == 1 {
		return partText(m.MultiContent[0])
	}
	var b strings.Builder
	for i, p := range m.MultiContent {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(partText(p))
	}
	return b.String()
}

// IsImagePart reports whether p is an image.
func IsImagePart(p openai.ChatMessagePart) bool {
	return p.Type == openai.ChatMessagePartTypeImageURL || p.ImageURL != nil
}

// partText is the text of one content part.
func partText(p openai.ChatMessagePart) string {
	if IsImagePart(p) {
		url := ""
		if p.ImageURL != nil {
			url = p.ImageURL.URL
		}
		return ImagePlaceholder(url)
	}
	return p.Text
}

// ImagePlaceholder names an image without its payload.
func ImagePlaceholder(url string) string {
	switch {
	case url == "":
		return "[image]"
	case strings.HasPrefix(url, "data:"):
		mime := strings.TrimPrefix(url, "data:")
		if i := strings.IndexAny(mime, ";,"); i >= 0 {
			mime = mime[:i]
		}
		if mime == "" {
			mime = "inline"
		}
		return "[image: " + mime + ", " + strconv.Itoa(len(url)) + " bytes inline]"
	default:
		return "[image: " + url + "]"
	}
}

// ToolCallText renders m's tool calls as name(arguments), one a line, for a
// reader such as a summarizer. It is empty when m makes no calls.
func ToolCallText(m Message) string {
	if len(m.ToolCalls) == 0 {
		return ""
	}
	var b strings.Builder
	for i, c := range m.ToolCalls {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(c.Function.Name)
		b.WriteByte('(')
		b.WriteString(c.Function.Arguments)
		b.WriteByte(')')
	}
	return b.String()
}

// HasImages reports whether m carries at least one image part.
func HasImages(m Message) bool {
	for _, p := range m.MultiContent {
		if IsImagePart(p) {
			return true
		}
	}
	return false
}

// IsBlank reports whether m shows a reader nothing: no visible text, no
// image, no tool call.
func IsBlank(m Message) bool {
	if len(m.ToolCalls) > 0 || m.FunctionCall != nil || HasImages(m) {
		return false
	}
	return strings.TrimSpace(Text(m)) == "" && strings.TrimSpace(m.Refusal) == ""
}

// ReplaceText returns a copy of m whose content is s, held in Content; its
// MultiContent is cleared, so the two are never both set.
func ReplaceText(m Message, s string) Message {
	out := CloneMessage(m)
	out.Content = s
	out.MultiContent = nil
	return out
}

// parts returns m's content as a parts list: MultiContent cloned, or Content
// as one text part, or nothing when m has no content.
func Parts(m Message) []openai.ChatMessagePart {
	if len(m.MultiContent) > 0 {
		return memo.Clone(Message{MultiContent: m.MultiContent}).MultiContent
	}
	if m.Content == "" {
		return nil
	}
	return []openai.ChatMessagePart{{Type: openai.ChatMessagePartTypeText, Text: m.Content}}
}

// JoinContent sets dst's content to a's content followed by b's. Two strings
// join with sep between them (sep is dropped when either is empty). When
// either side is a parts list the result is a parts list: a's parts, then b's,
// a string becoming one text part, so an image or a part boundary is never
// lost. dst's fields are replaced, never shared with a or b.
func JoinContent(dst *Message, a, b Message, sep string) {
	if len(a.MultiContent) == 0 && len(b.MultiContent) == 0 {
		dst.MultiContent = nil
		switch {
		case a.Content == "":
			dst.Content = b.Content
		case b.Content == "":
			dst.Content = a.Content
		default:
			dst.Content = a.Content + sep + b.Content
		}
		return
	}
	dst.Content = ""
	dst.MultiContent = append(Parts(a), Parts(b)...)
}

// PrependText returns a copy of m with s placed before its content: joined
// with sep for string content, as a leading text part for a parts list.
func PrependText(m Message, s, sep string) Message {
	out := CloneMessage(m)
	JoinContent(&out, Message{Content: s}, m, sep)
	return out
}

// Clone returns a deep copy of msgs: no slice, pointer or part of the copy is
// shared with msgs, so either may be changed without touching the other. A
// nil slice clones to nil.
func Clone(msgs []Message) []Message {
	if msgs == nil {
		return nil
	}
	out := make([]Message, len(msgs))
	for i := range msgs {
		out[i] = CloneMessage(msgs[i])
	}
	return out
}

// CloneMessage returns a deep copy of m (see memo.Clone).
func CloneMessage(m Message) Message { return memo.Clone(m) }

// EqualMessage reports whether a and b are the same message, field by field
// (see memo.Equal).
func EqualMessage(a, b Message) bool { return memo.Equal(a, b) }

// WithIncoming returns msgs followed by incoming, if any, without touching
// msgs.
func WithIncoming(msgs []Message, incoming *Message) []Message {
	if incoming == nil {
		return msgs
	}
	out := make([]Message, 0, len(msgs)+1)
	return append(append(out, msgs...), *incoming)
}
