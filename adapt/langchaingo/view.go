package langchaingo

import (
	"encoding/json"
	"fmt"
	"reflect"
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
// types implement llms.ContentPart too), bare or wrapped in a
// CachedContent (llms.WithCacheControl: langchaingo's prompt caching);
// as* read any of them, and never a nil pointer.

// maxWrappers bounds how many CachedContent wrappers Convert looks
// through: a wrapper holding itself would otherwise be a loop.
const maxWrappers = 8

// inner is the part p stands for: p itself, or the part inside its
// CachedContent wrappers (nil when a wrapper is nil or holds nothing).
func inner(p llms.ContentPart) llms.ContentPart {
	for range maxWrappers {
		switch v := p.(type) {
		case llms.CachedContent:
			p = v.ContentPart
		case *llms.CachedContent:
			if v == nil {
				return nil
			}
			p = v.ContentPart
		default:
			return p
		}
	}
	return p
}

// partProblem says what makes p a part no message can hold, as the rest of
// a sentence about it ("is nil"), "" when nothing does: nil, a nil pointer
// of a part type (it encodes as null), a cache wrapper around either, or
// wrappers nested past maxWrappers.
func partProblem(p llms.ContentPart) string {
	wrapped := ""
	for range maxWrappers + 1 {
		if p == nil {
			if wrapped != "" {
				return wrapped + "nothing"
			}
			return "is nil"
		}
		if v := reflect.ValueOf(p); v.Kind() == reflect.Pointer && v.IsNil() {
			return fmt.Sprintf("%sa nil %T", firstOf(wrapped, "is "), p)
		}
		switch v := p.(type) {
		case llms.CachedContent:
			p = v.ContentPart
		case *llms.CachedContent:
			p = v.ContentPart
		default:
			return ""
		}
		wrapped = "is a cache wrapper around "
	}
	return fmt.Sprintf("nests more than %d cache wrappers", maxWrappers)
}

func firstOf(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func asText(p llms.ContentPart) (llms.TextContent, bool) {
	switch v := inner(p).(type) {
	case llms.TextContent:
		return v, true
	case *llms.TextContent:
		if v != nil {
			return *v, true
		}
	}
	return llms.TextContent{}, false
}

func asCall(p llms.ContentPart) (llms.ToolCall, bool) {
	switch v := inner(p).(type) {
	case llms.ToolCall:
		return v, true
	case *llms.ToolCall:
		if v != nil {
			return *v, true
		}
	}
	return llms.ToolCall{}, false
}

func asResponse(p llms.ContentPart) (llms.ToolCallResponse, bool) {
	switch v := inner(p).(type) {
	case llms.ToolCallResponse:
		return v, true
	case *llms.ToolCallResponse:
		if v != nil {
			return *v, true
		}
	}
	return llms.ToolCallResponse{}, false
}

// inForm is part in the form orig has: a pointer when orig is one, inside
// a CachedContent with orig's cache control when orig is wrapped, so that
// a part the engine changed (a pruned response, shortened arguments, an
// image replaced by a note) keeps its cache breakpoint. part is a value of
// one of the part types.
func inForm(orig, part llms.ContentPart) llms.ContentPart {
	switch v := orig.(type) {
	case llms.CachedContent:
		v.ContentPart = inForm(v.ContentPart, part)
		return v
	case *llms.CachedContent:
		if v == nil {
			return part
		}
		w := *v
		w.ContentPart = inForm(v.ContentPart, part)
		return &w
	}
	if orig == nil || reflect.ValueOf(orig).Kind() != reflect.Pointer {
		return part
	}
	switch v := part.(type) {
	case llms.TextContent:
		return &v
	case llms.ToolCall:
		return &v
	case llms.ToolCallResponse:
		return &v
	case llms.ImageURLContent:
		return &v
	case llms.BinaryContent:
		return &v
	}
	return part
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

// partView is the content part p reads as. A part of a type this package
// does not read (a host's own type) reads as its type and its JSON, so the
// engine counts and summarises what it says.
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
	switch v := inner(p).(type) {
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
	return align.TextPart(opaqueText(inner(p)))
}

// opaqueText is the text of a part this package gives no reading of its
// own: its type and its JSON, which is what a provider that knows the type
// would send.
func opaqueText(p llms.ContentPart) string {
	data, err := json.Marshal(p)
	if err != nil {
		return fmt.Sprintf("[part %T]", p)
	}
	return fmt.Sprintf("[part %T]\n%s", p, data)
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
