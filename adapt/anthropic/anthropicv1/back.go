package anthropicv1

import (
	"encoding/json"
	"strings"

	sdk "github.com/anthropics/anthropic-sdk-go"
	openai "github.com/sashabaranov/go-openai"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/internal/align"
)

// This file turns a message with no original blocks (one the engine wrote,
// or one from a plain OpenAI-style history) into blocks.

// contentBlocks returns m's content as text and image blocks. Parts with no
// visible text are left out: the API refuses an empty text block. With
// images false, an image becomes a text placeholder.
func contentBlocks(m compact.Message, images bool) []sdk.ContentBlockParamUnion {
	var out []sdk.ContentBlockParamUnion
	for _, p := range align.ContentParts(m) {
		if align.IsImage(p) {
			url := ""
			if p.ImageURL != nil {
				url = p.ImageURL.URL
			}
			if images {
				if b, ok := imageBlock(url); ok {
					out = append(out, b)
					continue
				}
			}
			out = appendText(out, "[image: "+shortURL(url)+"]")
			continue
		}
		out = appendText(out, p.Text)
	}
	return out
}

// appendText appends a text block unless s has no visible text.
func appendText(out []sdk.ContentBlockParamUnion, s string) []sdk.ContentBlockParamUnion {
	if strings.TrimSpace(s) == "" {
		return out
	}
	return append(out, sdk.NewTextBlock(s))
}

// imageBlock is the image block for an image part's URL: a base64 source
// for a base64 data: URL, a URL source for http(s).
func imageBlock(url string) (sdk.ContentBlockParamUnion, bool) {
	if rest, ok := strings.CutPrefix(url, "data:"); ok {
		mediaType, data, ok := strings.Cut(rest, ";base64,")
		if !ok || mediaType == "" || strings.ContainsAny(mediaType, ",;") {
			return sdk.ContentBlockParamUnion{}, false
		}
		return sdk.NewImageBlockBase64(mediaType, data), true
	}
	if strings.HasPrefix(url, "https://") || strings.HasPrefix(url, "http://") {
		return sdk.NewImageBlock(sdk.URLImageSourceParam{URL: url}), true
	}
	return sdk.ContentBlockParamUnion{}, false
}

// shortURL names an image in a placeholder without its inline payload.
func shortURL(url string) string {
	if strings.HasPrefix(url, "data:") {
		if i := strings.IndexAny(url, ";,"); i >= 0 {
			return url[:i]
		}
	}
	return url
}

// toolInput is call arguments as a tool_use input, which the API wants to
// be a JSON object: the arguments themselves when they are one, else an
// object holding them as a string.
func toolInput(args string) any {
	trimmed := strings.TrimSpace(args)
	if strings.HasPrefix(trimmed, "{") && json.Valid([]byte(trimmed)) {
		return json.RawMessage(trimmed)
	}
	if trimmed == "" {
		return json.RawMessage("{}")
	}
	return map[string]string{"arguments": args}
}

// toolUseBlock is the tool_use block for a call.
func toolUseBlock(c openai.ToolCall) sdk.ContentBlockParamUnion {
	return sdk.ContentBlockParamUnion{OfToolUse: &sdk.ToolUseBlockParam{
		ID: c.ID, Name: c.Function.Name, Input: toolInput(c.Function.Arguments)}}
}

// assistantBlocks is an assistant message as blocks: its text, its refusal,
// then its tool calls. Reasoning is left out: the API takes thinking only
// with the signature it issued, which a message the engine wrote has not.
func assistantBlocks(m compact.Message) []sdk.ContentBlockParamUnion {
	out := contentBlocks(m, false)
	out = appendText(out, m.Refusal)
	if fc := m.FunctionCall; fc != nil {
		out = appendText(out, "[function call] "+fc.Name+"("+fc.Arguments+")")
	}
	for _, c := range m.ToolCalls {
		out = append(out, toolUseBlock(c))
	}
	return out
}

// toolResultBlock is the tool_result block for a tool message.
func toolResultBlock(m compact.Message) *sdk.ToolResultBlockParam {
	return &sdk.ToolResultBlockParam{ToolUseID: m.ToolCallID, Content: toolResultContent(m)}
}

// toolResultContent is a tool message's content as tool_result content.
func toolResultContent(m compact.Message) []sdk.ToolResultBlockParamContentUnion {
	var out []sdk.ToolResultBlockParamContentUnion
	for _, b := range contentBlocks(m, true) {
		switch {
		case b.OfText != nil:
			out = append(out, sdk.ToolResultBlockParamContentUnion{OfText: b.OfText})
		case b.OfImage != nil:
			out = append(out, sdk.ToolResultBlockParamContentUnion{OfImage: b.OfImage})
		}
	}
	return out
}

// systemBlocks is a system message as system prompt blocks.
func systemBlocks(m compact.Message) []sdk.TextBlockParam {
	var out []sdk.TextBlockParam
	for _, b := range contentBlocks(m, false) {
		out = append(out, *b.OfText)
	}
	return out
}

// newSegment is a message with no original blocks as a segment.
func newSegment(m compact.Message) (segment, bool) {
	switch m.Role {
	case compact.RoleUser:
		return segment{role: sdk.MessageParamRoleUser, blocks: contentBlocks(m, true)}, true
	case compact.RoleAssistant:
		return segment{role: sdk.MessageParamRoleAssistant, blocks: assistantBlocks(m)}, true
	case compact.RoleTool:
		return segment{role: sdk.MessageParamRoleUser,
			blocks: []sdk.ContentBlockParamUnion{{OfToolResult: toolResultBlock(m)}}}, true
	case compact.RoleSystem, roleDeveloper:
		return segment{role: sdk.MessageParamRoleSystem, blocks: contentBlocks(m, false)}, true
	case "function":
		return segment{role: sdk.MessageParamRoleUser,
			blocks: appendText(nil, "[function result "+m.Name+"]\n"+compact.Text(m))}, true
	}
	return segment{}, false
}
