package langchaingo

import (
	"strings"

	openai "github.com/sashabaranov/go-openai"
	"github.com/tmc/langchaingo/llms"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/internal/align"
)

// This file turns a message with no original parts (one the engine wrote,
// or one from a plain OpenAI-style history) into a MessageContent.

// roleDeveloper is OpenAI's newer name for a system-level instruction; an
// OpenAI-style history may hold one where a system message would be.
const roleDeveloper = openai.ChatMessageRoleDeveloper

// toolTypeFunction is the type of every tool call langchaingo's providers
// make.
const toolTypeFunction = "function"

// contentParts returns m's content as text and image parts, leaving out
// text parts with nothing visible in them (providers refuse empty text).
func contentParts(m compact.Message) []llms.ContentPart {
	var out []llms.ContentPart
	for _, p := range align.ContentParts(m) {
		if align.IsImage(p) && p.ImageURL != nil {
			out = append(out, llms.ImageURLContent{URL: p.ImageURL.URL, Detail: string(p.ImageURL.Detail)})
			continue
		}
		out = appendText(out, p.Text)
	}
	return out
}

// appendText appends a text part unless s has no visible text.
func appendText(out []llms.ContentPart, s string) []llms.ContentPart {
	if strings.TrimSpace(s) == "" {
		return out
	}
	return append(out, llms.TextContent{Text: s})
}

// callPart is the tool call part for a call.
func callPart(c openai.ToolCall) llms.ToolCall {
	typ := string(c.Type)
	if typ == "" {
		typ = toolTypeFunction
	}
	return llms.ToolCall{ID: c.ID, Type: typ, FunctionCall: &llms.FunctionCall{Name: c.Function.Name, Arguments: c.Function.Arguments}}
}

// aiParts is an assistant message as parts: its text, its refusal, then its
// calls. Reasoning is left out: a MessageContent has no place for it.
func aiParts(m compact.Message) []llms.ContentPart {
	out := contentParts(m)
	out = appendText(out, m.Refusal)
	if fc := m.FunctionCall; fc != nil {
		out = appendText(out, "[function call] "+fc.Name+"("+fc.Arguments+")")
	}
	for _, c := range m.ToolCalls {
		out = append(out, callPart(c))
	}
	return out
}

// newSegment is a message with no original parts as a segment; names maps
// the ids of the calls before it to their function names. false means the
// role has no place in a langchaingo history.
func newSegment(m compact.Message, names map[string]string) (segment, bool) {
	switch m.Role {
	case compact.RoleUser:
		return segment{role: llms.ChatMessageTypeHuman, parts: contentParts(m)}, true
	case compact.RoleAssistant:
		return segment{role: llms.ChatMessageTypeAI, parts: aiParts(m)}, true
	case compact.RoleTool:
		name, ok := names[m.ToolCallID]
		if !ok {
			name = m.Name
		}
		return segment{role: llms.ChatMessageTypeTool, parts: []llms.ContentPart{
			llms.ToolCallResponse{ToolCallID: m.ToolCallID, Name: name, Content: compact.Text(m)}}}, true
	case compact.RoleSystem, roleDeveloper:
		return segment{role: llms.ChatMessageTypeSystem, parts: contentParts(m)}, true
	case "function":
		return segment{role: llms.ChatMessageTypeFunction, parts: []llms.ContentPart{
			llms.ToolCallResponse{Name: m.Name, Content: compact.Text(m)}}}, true
	}
	return segment{}, false
}
