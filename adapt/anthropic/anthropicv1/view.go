package anthropicv1

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	sdk "github.com/anthropics/anthropic-sdk-go"
	openai "github.com/sashabaranov/go-openai"

	"github.com/contextkit/compact"
)

// This file builds the view: the compact message each piece of a history
// reads as. A view is what the engine counts and summarises; it is never
// turned back into blocks when the engine keeps it unchanged.

// roleDeveloper is OpenAI's newer name for a system-level instruction; an
// OpenAI-style history may hold one where a system message would be.
const roleDeveloper = openai.ChatMessageRoleDeveloper

// reasoningSep joins the thinking blocks of one assistant turn.
const reasoningSep = "\n\n"

// textPart is a text content part.
func textPart(s string) openai.ChatMessagePart {
	return openai.ChatMessagePart{Type: openai.ChatMessagePartTypeText, Text: s}
}

// imageURLPart is an image content part.
func imageURLPart(url string) openai.ChatMessagePart {
	return openai.ChatMessagePart{Type: openai.ChatMessagePartTypeImageURL, ImageURL: &openai.ChatMessageImageURL{URL: url}}
}

// setContent puts parts in m: one text part as Content, anything else as
// MultiContent, so the two are never both set.
func setContent(m *compact.Message, parts []openai.ChatMessagePart) {
	switch {
	case len(parts) == 0:
	case len(parts) == 1 && parts[0].Type == openai.ChatMessagePartTypeText:
		m.Content = parts[0].Text
	default:
		m.MultiContent = parts
	}
}

// blockPart is the content part a block reads as in a user turn, or in an
// assistant turn for blocks other than thinking and tool_use.
func blockPart(b sdk.ContentBlockParamUnion) openai.ChatMessagePart {
	switch {
	case b.OfText != nil:
		return textPart(b.OfText.Text)
	case b.OfImage != nil:
		return imagePart(b.OfImage.Source)
	case b.OfDocument != nil:
		return textPart(documentText(b.OfDocument))
	case b.OfSearchResult != nil:
		return textPart(searchResultText(b.OfSearchResult))
	case b.OfThinking != nil:
		return textPart("[thinking]\n" + b.OfThinking.Thinking)
	case b.OfRedactedThinking != nil:
		return textPart(redactedPlaceholder)
	case b.OfToolUse != nil:
		args, _ := inputJSON(b.OfToolUse.Input)
		return textPart("[tool_use " + b.OfToolUse.ID + "] " + b.OfToolUse.Name + "(" + args + ")")
	case b.OfToolResult != nil:
		return textPart("[tool_result " + b.OfToolResult.ToolUseID + "]\n" + compact.Text(toolResultView(b.OfToolResult)))
	}
	return textPart(opaqueText(b))
}

// redactedPlaceholder stands for a redacted_thinking block, whose data is
// encrypted.
const redactedPlaceholder = "[redacted thinking]"

// opaqueText is the text of a block this package gives no part of its own:
// its type and its JSON, which is what the model reads.
func opaqueText(v any) string {
	data, err := json.Marshal(v)
	if err != nil {
		return "[block]"
	}
	var head struct {
		Type string `json:"type"`
	}
	_ = json.Unmarshal(data, &head)
	if head.Type == "" {
		head.Type = "block"
	}
	return "[" + head.Type + "]\n" + string(data)
}

// imagePart is the part an image source reads as: an image part for inline
// data and URLs, a placeholder for a file id.
func imagePart(src sdk.ImageBlockParamSourceUnion) openai.ChatMessagePart {
	switch {
	case src.OfBase64 != nil:
		return imageURLPart("data:" + string(src.OfBase64.MediaType) + ";base64," + src.OfBase64.Data)
	case src.OfURL != nil:
		return imageURLPart(src.OfURL.URL)
	case src.OfFile != nil:
		return textPart("[image: file " + src.OfFile.FileID + "]")
	}
	return textPart("[image]")
}

// documentText is what a document block reads as: its title and context,
// then its text when it has text, else where its bytes are.
func documentText(d *sdk.DocumentBlockParam) string {
	var b strings.Builder
	b.WriteString("[document")
	if d.Title.Valid() {
		b.WriteString(": " + d.Title.Value)
	}
	src := d.Source
	switch {
	case src.OfBase64 != nil:
		b.WriteString(", " + string(src.OfBase64.MediaType) + ", " + strconv.Itoa(len(src.OfBase64.Data)) + " bytes inline]")
	case src.OfURL != nil:
		b.WriteString(", " + src.OfURL.URL + "]")
	case src.OfFile != nil:
		b.WriteString(", file " + src.OfFile.FileID + "]")
	default:
		b.WriteString("]")
	}
	if d.Context.Valid() {
		b.WriteString("\n" + d.Context.Value)
	}
	switch {
	case src.OfText != nil:
		b.WriteString("\n" + src.OfText.Data)
	case src.OfContent != nil:
		c := src.OfContent.Content
		if c.OfString.Valid() {
			b.WriteString("\n" + c.OfString.Value)
		}
		for _, item := range c.OfContentBlockSourceContent {
			switch {
			case item.OfText != nil:
				b.WriteString("\n" + item.OfText.Text)
			case item.OfImage != nil:
				b.WriteString("\n[image]")
			}
		}
	}
	return b.String()
}

// searchResultText is what a search_result block reads as.
func searchResultText(r *sdk.SearchResultBlockParam) string {
	var b strings.Builder
	b.WriteString("[search result: " + r.Title + ", " + r.Source + "]")
	for _, t := range r.Content {
		b.WriteString("\n" + t.Text)
	}
	return b.String()
}

// inputJSON is a tool_use input as call arguments: raw JSON as it is,
// anything else marshalled.
func inputJSON(input any) (string, error) {
	switch v := input.(type) {
	case json.RawMessage:
		return string(v), nil
	case []byte:
		return string(v), nil
	}
	data, err := json.Marshal(input)
	if err != nil {
		return "", err
	}
	return string(data), nil
}

// toolResultView is the tool message a tool_result block reads as.
func toolResultView(r *sdk.ToolResultBlockParam) compact.Message {
	m := compact.Message{Role: compact.RoleTool, ToolCallID: r.ToolUseID}
	parts := make([]openai.ChatMessagePart, 0, len(r.Content))
	for _, c := range r.Content {
		switch {
		case c.OfText != nil:
			parts = append(parts, textPart(c.OfText.Text))
		case c.OfImage != nil:
			parts = append(parts, imagePart(c.OfImage.Source))
		case c.OfDocument != nil:
			parts = append(parts, textPart(documentText(c.OfDocument)))
		case c.OfSearchResult != nil:
			parts = append(parts, textPart(searchResultText(c.OfSearchResult)))
		case c.OfToolReference != nil:
			parts = append(parts, textPart("[tool reference: "+c.OfToolReference.ToolName+"]"))
		default:
			parts = append(parts, textPart(opaqueText(c)))
		}
	}
	setContent(&m, parts)
	return m
}

// assistantView is the message an assistant turn reads as: its text and
// other blocks as content, thinking as reasoning, tool_use blocks as tool
// calls. A turn that would read as empty (thinking only, say) gets a
// placeholder, since an empty assistant message is not a valid request.
func assistantView(blocks []sdk.ContentBlockParamUnion) (compact.Message, error) {
	m := compact.Message{Role: compact.RoleAssistant}
	var parts []openai.ChatMessagePart
	var reasoning []string
	redacted := false
	for i, b := range blocks {
		switch {
		case b.OfThinking != nil:
			reasoning = append(reasoning, b.OfThinking.Thinking)
		case b.OfRedactedThinking != nil:
			redacted = true
		case b.OfToolUse != nil:
			args, err := inputJSON(b.OfToolUse.Input)
			if err != nil {
				return m, fmt.Errorf("block %d: tool_use %q input: %w", i, b.OfToolUse.ID, err)
			}
			m.ToolCalls = append(m.ToolCalls, openai.ToolCall{ID: b.OfToolUse.ID, Type: openai.ToolTypeFunction,
				Function: openai.FunctionCall{Name: b.OfToolUse.Name, Arguments: args}})
		default:
			parts = append(parts, blockPart(b))
		}
	}
	m.ReasoningContent = strings.Join(reasoning, reasoningSep)
	setContent(&m, parts)
	if len(m.ToolCalls) == 0 && strings.TrimSpace(compact.Text(m)) == "" && !hasImage(m) {
		switch {
		case redacted:
			m = withText(m, redactedPlaceholder)
		case len(reasoning) > 0:
			m = withText(m, "[thinking]")
		default:
			m = withText(m, "[empty turn]")
		}
	}
	return m, nil
}

// withText returns m with content s and no parts.
func withText(m compact.Message, s string) compact.Message {
	m.Content, m.MultiContent = s, nil
	return m
}

func hasImage(m compact.Message) bool {
	for _, p := range m.MultiContent {
		if p.ImageURL != nil {
			return true
		}
	}
	return false
}

// userView is the message a run of user blocks without tool results reads
// as.
func userView(role string, blocks []sdk.ContentBlockParamUnion) compact.Message {
	m := compact.Message{Role: role}
	parts := make([]openai.ChatMessagePart, 0, len(blocks))
	for _, b := range blocks {
		parts = append(parts, blockPart(b))
	}
	setContent(&m, parts)
	return m
}

// systemView is the system message the top-level system prompt reads as.
func systemView(blocks []sdk.TextBlockParam) compact.Message {
	m := compact.Message{Role: compact.RoleSystem}
	parts := make([]openai.ChatMessagePart, 0, len(blocks))
	for _, b := range blocks {
		parts = append(parts, textPart(b.Text))
	}
	setContent(&m, parts)
	return m
}
