//lint:file-ignore SA1019 deprecated MultiContent parts are converted too, so histories that use them round-trip

package eino

import (
	"strings"

	"github.com/cloudwego/eino/schema"
	openai "github.com/sashabaranov/go-openai"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/internal/align"
)

// This file turns a message with no original behind it (one the engine
// wrote, or one from a go-openai history) into an eino message.

// newMessage converts m, which has no original: false when it has no role.
func newMessage(m compact.Message) (*schema.Message, bool) {
	if m.Role == "" {
		return nil, false
	}
	u := &schema.Message{Role: schema.RoleType(m.Role), Name: m.Name, ToolCallID: m.ToolCallID,
		ReasoningContent: m.ReasoningContent}
	kind, parts := kindContent, m.MultiContent
	switch {
	case blankAssistant(m):
		// Nothing to read (or the placeholder of a turn with nothing to
		// read): eino holds it as an empty turn.
		return u, true
	case m.Content != "" || len(parts) == 0:
		// Content wins over parts, as compact reads a message with both.
		u.Content, parts = m.Content, nil
	case m.Role == compact.RoleUser:
		kind = kindInput
	case m.Role == compact.RoleAssistant:
		kind = kindOutput
	default:
		kind = kindMulti
	}
	for _, p := range parts {
		appendPart(u, kind, p)
	}
	if m.Refusal != "" {
		appendPart(u, kind, align.TextPart(m.Refusal))
	}
	if fc := m.FunctionCall; fc != nil {
		appendPart(u, kind, align.TextPart("[function call] "+fc.Name+"("+fc.Arguments+")"))
	}
	for _, c := range m.ToolCalls {
		u.ToolCalls = append(u.ToolCalls, newCall(c))
	}
	return u, true
}

// blankAssistant reports whether m is an assistant turn with nothing but
// blank text or the placeholder that stands for an eino turn with nothing
// compact can read: no calls, no refusal, no image.
func blankAssistant(m compact.Message) bool {
	if m.Role != compact.RoleAssistant || len(m.ToolCalls) > 0 || m.FunctionCall != nil || m.Refusal != "" || align.HasImage(m) {
		return false
	}
	text := strings.TrimSpace(compact.Text(m))
	return text == "" || (len(m.MultiContent) == 0 && (text == emptyPlaceholder || text == reasoningPlaceholder))
}

// joinText appends s to text, on a line of its own.
func joinText(text, s string) string {
	if text == "" {
		return s
	}
	return text + "\n" + s
}

// newCall is the eino tool call for a call.
func newCall(c openai.ToolCall) schema.ToolCall {
	return schema.ToolCall{Index: c.Index, ID: c.ID, Type: string(c.Type),
		Function: schema.FunctionCall{Name: c.Function.Name, Arguments: c.Function.Arguments}}
}

// textOf is m's content as one string, an image as a line that names it.
func textOf(m compact.Message) string {
	if len(m.MultiContent) == 0 {
		return m.Content
	}
	lines := make([]string, 0, len(m.MultiContent))
	for _, p := range m.MultiContent {
		if align.IsImage(p) {
			lines = append(lines, imageText(p))
			continue
		}
		lines = append(lines, p.Text)
	}
	return strings.Join(lines, "\n")
}

// imageText names an image part where only text may go, without an inline
// payload.
func imageText(p openai.ChatMessagePart) string {
	if p.ImageURL == nil {
		return "[image]"
	}
	return "[image: " + shortURL(p.ImageURL.URL) + "]"
}

// appendPart appends p to u's part list of the given kind: text as a text
// part, an image as an image part (its data: URL as inline data and a MIME
// type). Content takes text only.
func appendPart(u *schema.Message, kind partKind, p openai.ChatMessagePart) {
	image := align.IsImage(p) && p.ImageURL != nil
	text := p.Text
	if align.IsImage(p) {
		text = imageText(p)
	}
	switch kind {
	case kindContent:
		u.Content = joinText(u.Content, text)
	case kindMulti:
		part := schema.ChatMessagePart{Type: schema.ChatMessagePartTypeText, Text: text}
		if image {
			part = schema.ChatMessagePart{Type: schema.ChatMessagePartTypeImageURL,
				ImageURL: &schema.ChatMessageImageURL{URL: p.ImageURL.URL, Detail: schema.ImageURLDetail(p.ImageURL.Detail)}}
		}
		u.MultiContent = append(u.MultiContent, part)
	case kindInput:
		part := schema.MessageInputPart{Type: schema.ChatMessagePartTypeText, Text: text}
		if image {
			part = schema.MessageInputPart{Type: schema.ChatMessagePartTypeImageURL, Image: &schema.MessageInputImage{
				MessagePartCommon: mediaSource(p.ImageURL.URL), Detail: schema.ImageURLDetail(p.ImageURL.Detail)}}
		}
		u.UserInputMultiContent = append(u.UserInputMultiContent, part)
	case kindOutput:
		part := schema.MessageOutputPart{Type: schema.ChatMessagePartTypeText, Text: text}
		if image {
			part = schema.MessageOutputPart{Type: schema.ChatMessagePartTypeImageURL,
				Image: &schema.MessageOutputImage{MessagePartCommon: mediaSource(p.ImageURL.URL)}}
		}
		u.AssistantGenMultiContent = append(u.AssistantGenMultiContent, part)
	}
}

// mediaSource is an image URL as eino's source fields: a base64 data: URL
// as inline data and its MIME type, anything else as the URL.
func mediaSource(url string) schema.MessagePartCommon {
	if rest, ok := strings.CutPrefix(url, "data:"); ok {
		if mime, data, ok := strings.Cut(rest, ";base64,"); ok && !strings.ContainsAny(mime, ",;") {
			return schema.MessagePartCommon{Base64Data: &data, MIMEType: mime}
		}
	}
	return schema.MessagePartCommon{URL: &url}
}

// withLead returns a copy of u, a user message, with lead (a summary merged
// in front of it, see align.Shared) before its content, in place of the
// summary it had when had: joined to Content when it has no part list,
// else as a text part leading its first part list (MultiContent when it
// has one, else UserInputMultiContent). A Content beside part lists, which
// reads as the first part, moves into that list behind lead, so that the
// message still reads as the engine's: lead, then its own parts in order.
func withLead(u *schema.Message, lead string, had bool) *schema.Message {
	cp := *u
	own := func(t string) string {
		if had {
			return align.OwnText(t)
		}
		return t
	}
	if !usesLists(&cp) {
		cp.Content = align.JoinLead(lead, own(cp.Content))
		return &cp
	}
	texts := []string{lead} // the text parts the list opens with
	if cp.Content != "" {
		if t := own(cp.Content); t != "" {
			texts = append(texts, t)
		}
		cp.Content, had = "", false // the summary it had was in Content
	}
	if len(cp.MultiContent) > 0 {
		parts := cp.MultiContent
		if had && parts[0].Type == schema.ChatMessagePartTypeText {
			if parts = parts[1:]; own(u.MultiContent[0].Text) != "" {
				first := u.MultiContent[0]
				first.Text = own(first.Text)
				parts = append([]schema.ChatMessagePart{first}, parts...)
			}
		}
		head := make([]schema.ChatMessagePart, 0, len(texts)+len(parts))
		for _, t := range texts {
			head = append(head, schema.ChatMessagePart{Type: schema.ChatMessagePartTypeText, Text: t})
		}
		cp.MultiContent = append(head, parts...)
		return &cp
	}
	parts := cp.UserInputMultiContent
	if had && len(parts) > 0 && parts[0].Type == schema.ChatMessagePartTypeText {
		if parts = parts[1:]; own(u.UserInputMultiContent[0].Text) != "" {
			first := u.UserInputMultiContent[0]
			first.Text = own(first.Text)
			parts = append([]schema.MessageInputPart{first}, parts...)
		}
	}
	head := make([]schema.MessageInputPart, 0, len(texts)+len(parts))
	for _, t := range texts {
		head = append(head, schema.MessageInputPart{Type: schema.ChatMessagePartTypeText, Text: t})
	}
	cp.UserInputMultiContent = append(head, parts...)
	return &cp
}
