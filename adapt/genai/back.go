package genai

import (
	"encoding/base64"
	"encoding/json"
	"strings"

	openai "github.com/sashabaranov/go-openai"
	sdk "google.golang.org/genai"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/internal/align"
)

// This file turns a message with no original parts (one the engine wrote,
// or one from a plain OpenAI-style history) into parts.

// roleDeveloper is OpenAI's newer name for a system-level instruction; an
// OpenAI-style history may hold one where a system message would be.
const roleDeveloper = openai.ChatMessageRoleDeveloper

// argumentsKey holds call arguments that are not a JSON object: the API
// takes function call arguments only as an object.
const argumentsKey = "arguments"

// contentParts returns m's content as text and inline image parts. Parts
// with no visible text are left out: the API refuses a part with no data.
// An image that is not a base64 data: URL of an image/ type becomes a text
// placeholder, and so does every image when images is false.
func contentParts(m compact.Message, images bool) []*sdk.Part {
	var out []*sdk.Part
	for _, p := range align.ContentParts(m) {
		if !align.IsImage(p) {
			out = appendText(out, p.Text)
			continue
		}
		url := ""
		if p.ImageURL != nil {
			url = p.ImageURL.URL
		}
		if b, ok := inlineImage(url); ok && images {
			out = append(out, &sdk.Part{InlineData: b})
			continue
		}
		out = appendText(out, compact.Text(compact.Message{MultiContent: []openai.ChatMessagePart{p}}))
	}
	return out
}

// appendText appends a text part unless s has no visible text.
func appendText(out []*sdk.Part, s string) []*sdk.Part {
	if strings.TrimSpace(s) == "" {
		return out
	}
	return append(out, &sdk.Part{Text: s})
}

// inlineImage is the blob a base64 data: URL of an image type holds. Data
// of another type is no image: Convert reads such inline data as a text
// that names it (see blobPart), so it would not come back as an image.
func inlineImage(url string) (*sdk.Blob, bool) {
	rest, ok := strings.CutPrefix(url, "data:")
	if !ok {
		return nil, false
	}
	mime, data, ok := strings.Cut(rest, ";base64,")
	if !ok || !strings.HasPrefix(mime, "image/") || strings.ContainsAny(mime, ",;") {
		return nil, false
	}
	b, err := base64.StdEncoding.DecodeString(data)
	if err != nil {
		return nil, false
	}
	return &sdk.Blob{MIMEType: mime, Data: b}, true
}

// callArgs is call arguments as function call args, which the API takes
// only as a JSON object: the object itself, none for empty arguments, and
// anything else as {"arguments": ...}.
func callArgs(args string) map[string]any {
	trimmed := strings.TrimSpace(args)
	if trimmed == "" {
		return nil
	}
	var obj map[string]any
	if strings.HasPrefix(trimmed, "{") && json.Unmarshal([]byte(trimmed), &obj) == nil {
		return obj
	}
	return map[string]any{argumentsKey: args}
}

// callPart is the function call part for a tool call, with the id the
// call had in the input (the one this package made up reads as none).
func (c *Conversion) callPart(tc openai.ToolCall) *sdk.Part {
	return &sdk.Part{FunctionCall: &sdk.FunctionCall{ID: c.inputID(tc.ID), Name: tc.Function.Name,
		Args: callArgs(tc.Function.Arguments)}}
}

// inputID is the id a call or response had in the input for view id id.
func (c *Conversion) inputID(id string) string {
	if in, ok := c.callIDs[id]; ok {
		return in
	}
	return id
}

// modelParts is an assistant message as parts: its text, its refusal, then
// its calls. Reasoning is left out: a thought the model did not sign is
// no use to it.
func (c *Conversion) modelParts(m compact.Message) []*sdk.Part {
	out := contentParts(m, false)
	out = appendText(out, m.Refusal)
	if fc := m.FunctionCall; fc != nil {
		out = appendText(out, "[function call] "+fc.Name+"("+fc.Arguments+")")
	}
	for _, tc := range m.ToolCalls {
		out = append(out, c.callPart(tc))
	}
	return out
}

// responsePart is the function response part for a tool message answering
// the call named name: its text as the output.
func (c *Conversion) responsePart(m compact.Message, name string) *sdk.Part {
	if name == "" {
		name = m.Name
	}
	return &sdk.Part{FunctionResponse: &sdk.FunctionResponse{ID: c.inputID(m.ToolCallID), Name: name,
		Response: map[string]any{outputKey: compact.Text(m)}}}
}

// newSegment is a message with no original parts as a segment; names maps
// the view ids of the calls before it to their function names. false means
// the role has no place in a History.
func (c *Conversion) newSegment(m compact.Message, leading bool, names map[string]string) (segment, bool) {
	switch m.Role {
	case compact.RoleUser:
		return segment{role: sdk.RoleUser, parts: contentParts(m, true)}, true
	case compact.RoleAssistant:
		return segment{role: sdk.RoleModel, parts: c.modelParts(m)}, true
	case compact.RoleTool:
		return segment{role: sdk.RoleUser, parts: []*sdk.Part{c.responsePart(m, names[m.ToolCallID])}}, true
	case compact.RoleSystem, roleDeveloper:
		if leading {
			return segment{top: true, parts: contentParts(m, false)}, true
		}
		return segment{role: sdk.RoleUser, parts: contentParts(m, false)}, true
	case "function":
		return segment{role: sdk.RoleUser, parts: appendText(nil, "[function result "+m.Name+"]\n"+compact.Text(m))}, true
	}
	return segment{}, false
}
