//lint:file-ignore SA1019 deprecated function calling is converted too, so histories that use it round-trip

package openaigo

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/openai/openai-go/v3"
	goopenai "github.com/sashabaranov/go-openai"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/internal/align"
)

// This file builds the view: the compact message each message of a history
// reads as. A view is what the engine counts and summarises; it is never
// turned back into a message when the engine keeps it unchanged.

// audioPlaceholder stands for an assistant turn that holds only a reference
// to an earlier audio response.
const audioPlaceholder = "[audio response]"

// roleFunction is the deprecated role of a function's result.
const roleFunction = "function"

// roleDeveloper is OpenAI's newer name for a system-level instruction.
const roleDeveloper = goopenai.ChatMessageRoleDeveloper

func textPart(s string) goopenai.ChatMessagePart {
	return goopenai.ChatMessagePart{Type: goopenai.ChatMessagePartTypeText, Text: s}
}

// setContent puts the parts of a content list in m's MultiContent, even a
// single text part, so that a list reads differently from a string; the
// view of a string content sets Content instead, and the two are never
// both set.
func setContent(m *compact.Message, parts []goopenai.ChatMessagePart) {
	if len(parts) > 0 {
		m.MultiContent = parts
	}
}

// textParts reads a list of text parts.
func textParts(ps []openai.ChatCompletionContentPartTextParam) []goopenai.ChatMessagePart {
	out := make([]goopenai.ChatMessagePart, 0, len(ps))
	for _, p := range ps {
		out = append(out, textPart(p.Text))
	}
	return out
}

// userPart is the part a user content part reads as.
func userPart(p openai.ChatCompletionContentPartUnionParam) goopenai.ChatMessagePart {
	switch {
	case p.OfText != nil:
		return textPart(p.OfText.Text)
	case p.OfImageURL != nil:
		return goopenai.ChatMessagePart{Type: goopenai.ChatMessagePartTypeImageURL, ImageURL: &goopenai.ChatMessageImageURL{
			URL: p.OfImageURL.ImageURL.URL, Detail: goopenai.ImageURLDetail(p.OfImageURL.ImageURL.Detail)}}
	case p.OfInputAudio != nil:
		a := p.OfInputAudio.InputAudio
		return textPart("[audio: " + a.Format + ", " + strconv.Itoa(len(a.Data)) + " bytes inline]")
	case p.OfFile != nil:
		f := p.OfFile.File
		name := f.Filename.Or(f.FileID.Or("inline"))
		if f.FileData.Valid() {
			name += ", " + strconv.Itoa(len(f.FileData.Value)) + " bytes inline"
		}
		return textPart("[file: " + name + "]")
	}
	return textPart(opaqueText(p))
}

// opaqueText is the text of a value this package gives no place of its
// own: its JSON, which is what the model reads.
func opaqueText(v any) string {
	data, err := json.Marshal(v)
	if err != nil {
		return "[part]"
	}
	return string(data)
}

// toolCall is the call a tool call reads as: a custom call is a call of
// type "custom" whose arguments are its input.
func toolCall(c openai.ChatCompletionMessageToolCallUnionParam) goopenai.ToolCall {
	switch {
	case c.OfFunction != nil:
		return goopenai.ToolCall{ID: c.OfFunction.ID, Type: goopenai.ToolTypeFunction, Function: goopenai.FunctionCall{
			Name: c.OfFunction.Function.Name, Arguments: c.OfFunction.Function.Arguments}}
	case c.OfCustom != nil:
		return goopenai.ToolCall{ID: c.OfCustom.ID, Type: toolTypeCustom, Function: goopenai.FunctionCall{
			Name: c.OfCustom.Custom.Name, Arguments: c.OfCustom.Custom.Input}}
	}
	var raw struct {
		ID       string `json:"id"`
		Type     string `json:"type"`
		Function struct{ Name, Arguments string }
	}
	_ = json.Unmarshal([]byte(opaqueText(c)), &raw)
	return goopenai.ToolCall{ID: raw.ID, Type: goopenai.ToolType(raw.Type),
		Function: goopenai.FunctionCall{Name: raw.Function.Name, Arguments: raw.Function.Arguments}}
}

// toolTypeCustom is the type of a custom tool call.
const toolTypeCustom goopenai.ToolType = "custom"

// view is the message u reads as.
func view(u openai.ChatCompletionMessageParamUnion) (compact.Message, error) {
	var m compact.Message
	switch {
	case u.OfSystem != nil:
		m = compact.Message{Role: compact.RoleSystem, Name: u.OfSystem.Name.Value}
		m.Content = u.OfSystem.Content.OfString.Value
		setContent(&m, textParts(u.OfSystem.Content.OfArrayOfContentParts))
	case u.OfDeveloper != nil:
		m = compact.Message{Role: roleDeveloper, Name: u.OfDeveloper.Name.Value}
		m.Content = u.OfDeveloper.Content.OfString.Value
		setContent(&m, textParts(u.OfDeveloper.Content.OfArrayOfContentParts))
	case u.OfUser != nil:
		m = compact.Message{Role: compact.RoleUser, Name: u.OfUser.Name.Value}
		m.Content = u.OfUser.Content.OfString.Value
		parts := make([]goopenai.ChatMessagePart, 0, len(u.OfUser.Content.OfArrayOfContentParts))
		for i, p := range u.OfUser.Content.OfArrayOfContentParts {
			if p.GetType() == nil && align.EncodesNull(p) {
				return m, fmt.Errorf("part %d has no variant (it encodes as null)", i)
			}
			parts = append(parts, userPart(p))
		}
		setContent(&m, parts)
	case u.OfAssistant != nil:
		if err := nullInAssistant(u.OfAssistant); err != nil {
			return m, err
		}
		m = assistantView(u.OfAssistant)
	case u.OfTool != nil:
		m = compact.Message{Role: compact.RoleTool, ToolCallID: u.OfTool.ToolCallID}
		m.Content = u.OfTool.Content.OfString.Value
		setContent(&m, textParts(u.OfTool.Content.OfArrayOfContentParts))
	case u.OfFunction != nil:
		m = compact.Message{Role: roleFunction, Name: u.OfFunction.Name, Content: u.OfFunction.Content.Value}
	default:
		// A message the SDK carries as raw JSON: its role and call id, and
		// its JSON as content.
		var raw struct {
			Role       string `json:"role"`
			ToolCallID string `json:"tool_call_id"`
		}
		text := opaqueText(u)
		if err := json.Unmarshal([]byte(text), &raw); err != nil || raw.Role == "" {
			return m, fmt.Errorf("a message with no role")
		}
		m = compact.Message{Role: raw.Role, ToolCallID: raw.ToolCallID, Content: text}
	}
	return m, nil
}

// nullInAssistant reports a content part or tool call of a that has no
// variant: the SDK encodes it as null.
func nullInAssistant(a *openai.ChatCompletionAssistantMessageParam) error {
	for i, p := range a.Content.OfArrayOfContentParts {
		if p.GetType() == nil && align.EncodesNull(p) {
			return fmt.Errorf("part %d has no variant (it encodes as null)", i)
		}
	}
	for i, c := range a.ToolCalls {
		if c.GetType() == nil && align.EncodesNull(c) {
			return fmt.Errorf("tool call %d has no variant (it encodes as null)", i)
		}
	}
	return nil
}

// assistantView is the message an assistant turn reads as. Refusal parts
// of its content join its refusal.
func assistantView(a *openai.ChatCompletionAssistantMessageParam) compact.Message {
	m := compact.Message{Role: compact.RoleAssistant, Name: a.Name.Value, Content: a.Content.OfString.Value}
	refusals := []string{}
	if a.Refusal.Value != "" {
		refusals = append(refusals, a.Refusal.Value)
	}
	var parts []goopenai.ChatMessagePart
	for _, p := range a.Content.OfArrayOfContentParts {
		switch {
		case p.OfText != nil:
			parts = append(parts, textPart(p.OfText.Text))
		case p.OfRefusal != nil:
			refusals = append(refusals, p.OfRefusal.Refusal)
		default:
			parts = append(parts, textPart(opaqueText(p)))
		}
	}
	setContent(&m, parts)
	m.Refusal = strings.Join(refusals, "\n")
	if fc := a.FunctionCall; fc.Name != "" || fc.Arguments != "" {
		m.FunctionCall = &goopenai.FunctionCall{Name: fc.Name, Arguments: fc.Arguments}
	}
	for _, c := range a.ToolCalls {
		m.ToolCalls = append(m.ToolCalls, toolCall(c))
	}
	if a.Audio.ID != "" && len(m.ToolCalls) == 0 && m.FunctionCall == nil &&
		strings.TrimSpace(compact.Text(m)) == "" && strings.TrimSpace(m.Refusal) == "" {
		m.Content, m.MultiContent = audioPlaceholder, nil
	}
	return m
}
