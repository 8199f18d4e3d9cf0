package langchaingo

import (
	"strconv"
	"strings"

	openai "github.com/sashabaranov/go-openai"
	"github.com/tmc/langchaingo/llms"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/internal/align"
)

// This file builds the view: the compact message each piece of a history
// reads as. A view is what the engine counts and summarises; it is never
// turned back into parts when the engine keeps it unchanged.

// The part types a history may hold by value or by pointer (the pointer
// types implement llms.ContentPart too); as* read either.

func asText(p llms.ContentPart) (llms.TextContent, bool) {
	switch v := p.(type) {
	case llms.TextContent:
		return v, true
	case *llms.TextContent:
		return *v, v != nil
	}
	return llms.TextContent{}, false
}

func asCall(p llms.ContentPart) (llms.ToolCall, bool) {
	switch v := p.(type) {
	case llms.ToolCall:
		return v, true
	case *llms.ToolCall:
		return *v, v != nil
	}
	return llms.ToolCall{}, false
}

func asResponse(p llms.ContentPart) (llms.ToolCallResponse, bool) {
	switch v := p.(type) {
	case llms.ToolCallResponse:
		return v, true
	case *llms.ToolCallResponse:
		return *v, v != nil
	}
	return llms.ToolCallResponse{}, false
}

// callView is a tool call as compact's call: the function's name and
// arguments (none when the call has no function).
func callView(tc llms.ToolCall) openai.ToolCall {
	out := openai.ToolCall{ID: tc.ID, Type: openai.ToolType(tc.Type)}
	if tc.FunctionCall != nil {
		out.Function = openai.FunctionCall{Name: tc.FunctionCall.Name, Arguments: tc.FunctionCall.Arguments}
	}
	return out
}

// partView is the content part p reads as.
func partView(p llms.ContentPart) openai.ChatMessagePart {
	if t, ok := asText(p); ok {
		return align.TextPart(t.Text)
	}
	if tc, ok := asCall(p); ok {
		v := callView(tc)
		return align.TextPart("[tool call " + v.ID + "] " + v.Function.Name + "(" + v.Function.Arguments + ")")
	}
	if r, ok := asResponse(p); ok {
		return align.TextPart("[tool response " + r.ToolCallID + " " + r.Name + "]\n" + r.Content)
	}
	switch v := p.(type) {
	case llms.ImageURLContent:
		return align.ImagePart(v.URL, openai.ImageURLDetail(v.Detail))
	case *llms.ImageURLContent:
		if v != nil {
			return align.ImagePart(v.URL, openai.ImageURLDetail(v.Detail))
		}
	case llms.BinaryContent:
		return binaryView(v)
	case *llms.BinaryContent:
		if v != nil {
			return binaryView(*v)
		}
	}
	return align.TextPart("[part]")
}

// binaryView is what binary data reads as: an image part (a data: URL) for
// an image, else a text naming it.
func binaryView(b llms.BinaryContent) openai.ChatMessagePart {
	if strings.HasPrefix(b.MIMEType, "image/") && !strings.ContainsAny(b.MIMEType, ",;") {
		return align.ImagePart(b.String(), "")
	}
	return align.TextPart("[binary: " + b.MIMEType + ", " + strconv.Itoa(len(b.Data)) + " bytes]")
}

// userView is the message parts read as, in a message of role.
func userView(role string, parts []llms.ContentPart) compact.Message {
	m := compact.Message{Role: role}
	content := make([]openai.ChatMessagePart, 0, len(parts))
	for _, p := range parts {
		content = append(content, partView(p))
	}
	align.SetContent(&m, content)
	return m
}

// functionView is a deprecated function message: compact has no role for
// it, so it reads as a user message naming the function.
func functionView(parts []llms.ContentPart) compact.Message {
	content := make([]openai.ChatMessagePart, 0, len(parts))
	for _, p := range parts {
		if r, ok := asResponse(p); ok {
			content = append(content, align.TextPart("[function result "+r.Name+"]\n"+r.Content))
			continue
		}
		content = append(content, partView(p))
	}
	m := compact.Message{Role: compact.RoleUser}
	align.SetContent(&m, content)
	return m
}

// aiView is the message an AI message reads as: its tool calls as calls,
// everything else as content. A message that would read as empty gets a
// placeholder, since an empty assistant message is not a valid request.
func aiView(parts []llms.ContentPart) compact.Message {
	m := compact.Message{Role: compact.RoleAssistant}
	var content []openai.ChatMessagePart
	for _, p := range parts {
		if tc, ok := asCall(p); ok {
			m.ToolCalls = append(m.ToolCalls, callView(tc))
			continue
		}
		content = append(content, partView(p))
	}
	align.SetContent(&m, content)
	if len(m.ToolCalls) == 0 && strings.TrimSpace(compact.Text(m)) == "" && !align.HasImage(m) {
		m.Content, m.MultiContent = "[empty turn]", nil
	}
	return m
}
