package genai

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	openai "github.com/sashabaranov/go-openai"
	sdk "google.golang.org/genai"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/internal/align"
)

// This file builds the view: the compact message each piece of a history
// reads as. A view is what the engine counts and summarises; it is never
// turned back into parts when the engine keeps it unchanged.

// reasoningSep joins the thought parts of one model content.
const reasoningSep = "\n\n"

// outputKey is the key the Gemini API documents for a function's output in
// a FunctionResponse's Response; a response holding only it reads as its
// text.
const outputKey = "output"

// textPart is a text content part.
func textPart(s string) openai.ChatMessagePart { return align.TextPart(s) }

// imageURLPart is an image content part.
func imageURLPart(url string) openai.ChatMessagePart { return align.ImagePart(url, "") }

// partView is the content part p reads as, for every part but a function
// response in a user content and a thought or function call in a model
// content, which have fields of their own.
func partView(p *sdk.Part) openai.ChatMessagePart {
	switch {
	case p.InlineData != nil:
		return blobPart(p.InlineData.MIMEType, p.InlineData.DisplayName, len(p.InlineData.Data), p.InlineData.Data)
	case p.FileData != nil:
		return textPart(fileText(p.FileData.FileURI, p.FileData.MIMEType, p.FileData.DisplayName))
	case p.FunctionCall != nil:
		args, _ := argsJSON(p.FunctionCall.Args)
		return textPart("[function call " + p.FunctionCall.ID + "] " + p.FunctionCall.Name + "(" + args + ")")
	case p.FunctionResponse != nil:
		text, _ := responseText(p.FunctionResponse.Response)
		return textPart("[function response " + p.FunctionResponse.Name + "]\n" + text)
	case p.ExecutableCode != nil:
		return textPart("[executable code " + strings.ToLower(string(p.ExecutableCode.Language)) + "]\n" + p.ExecutableCode.Code)
	case p.CodeExecutionResult != nil:
		return textPart("[code execution result " + strings.ToLower(string(p.CodeExecutionResult.Outcome)) + "]\n" +
			p.CodeExecutionResult.Output)
	case p.ToolCall != nil:
		return textPart("[server tool call " + string(p.ToolCall.ToolType) + "]\n" + jsonText(p.ToolCall.Args))
	case p.ToolResponse != nil:
		return textPart("[server tool response " + string(p.ToolResponse.ToolType) + "]\n" + jsonText(p.ToolResponse.Response))
	case p.Thought && p.Text != "":
		return textPart("[thought]\n" + p.Text)
	case p.Text == "" && p.AudioTranscription != nil:
		return textPart("[transcription]\n" + p.AudioTranscription.Text)
	}
	return textPart(p.Text)
}

// blobPart is the part inline bytes read as: an image part (a data: URL)
// for an image, else a text that names them.
func blobPart(mime, name string, size int, data []byte) openai.ChatMessagePart {
	if strings.HasPrefix(mime, "image/") && !strings.ContainsAny(mime, ",;") {
		return imageURLPart("data:" + mime + ";base64," + base64.StdEncoding.EncodeToString(data))
	}
	return textPart(dataText("inline data", mime, name, strconv.Itoa(size)+" bytes"))
}

// fileText names file data: what it is, where it is.
func fileText(uri, mime, name string) string {
	return dataText("file", mime, name, uri)
}

// dataText is "[kind: name, mime, where]" without the empty fields.
func dataText(kind, mime, name, where string) string {
	var fields []string
	for _, f := range []string{name, mime, where} {
		if f != "" {
			fields = append(fields, f)
		}
	}
	if len(fields) == 0 {
		return "[" + kind + "]"
	}
	return "[" + kind + ": " + strings.Join(fields, ", ") + "]"
}

// jsonText is v as JSON, or a placeholder when it does not encode.
func jsonText(v any) string {
	data, err := json.Marshal(v)
	if err != nil {
		return "(does not encode as JSON)"
	}
	return string(data)
}

// argsJSON is function call arguments as compact's call arguments: the
// JSON object; no arguments read as {}.
func argsJSON(args map[string]any) (string, error) {
	if len(args) == 0 {
		return "{}", nil
	}
	data, err := json.Marshal(args)
	if err != nil {
		return "", err
	}
	return string(data), nil
}

// responseText is a function response as the text of a tool message: the
// output alone when it is all the response holds, a single text field as
// "key: text", anything else as JSON.
func responseText(resp map[string]any) (string, error) {
	if len(resp) == 1 {
		for k, v := range resp {
			if s, ok := v.(string); ok {
				if k == outputKey {
					return s, nil
				}
				return k + ": " + s, nil
			}
		}
	}
	if len(resp) == 0 {
		return "", nil
	}
	data, err := json.Marshal(resp)
	if err != nil {
		return "", err
	}
	return string(data), nil
}

// responseView is the tool message a function response reads as, with id
// as its tool_call_id: its response as text, then its own parts (images as
// images, other data named).
func responseView(fr *sdk.FunctionResponse, id string) (compact.Message, error) {
	m := compact.Message{Role: compact.RoleTool, ToolCallID: id}
	text, err := responseText(fr.Response)
	if err != nil {
		return m, fmt.Errorf("function response %q: %w", fr.Name, err)
	}
	parts := []openai.ChatMessagePart{textPart(text)}
	for _, p := range fr.Parts {
		parts = append(parts, responsePartView(p))
	}
	if len(parts) > 1 && text == "" {
		parts = parts[1:]
	}
	align.SetContent(&m, parts)
	return m, nil
}

// responsePartView is the part a function response's own part reads as.
func responsePartView(p *sdk.FunctionResponsePart) openai.ChatMessagePart {
	switch {
	case p == nil:
	case p.InlineData != nil:
		return blobPart(p.InlineData.MIMEType, p.InlineData.DisplayName, len(p.InlineData.Data), p.InlineData.Data)
	case p.FileData != nil:
		return textPart(fileText(p.FileData.FileURI, p.FileData.MIMEType, p.FileData.DisplayName))
	}
	return textPart("[part]")
}

// modelView is the message a model content reads as: its text and other
// parts as content, thoughts as reasoning, function calls as tool calls
// (made holds their view ids, in order). A content that would read as
// empty (thoughts only, say) gets a placeholder, since an empty assistant
// message is not a valid request.
func modelView(parts []*sdk.Part, made calls) (compact.Message, error) {
	m := compact.Message{Role: compact.RoleAssistant}
	var content []openai.ChatMessagePart
	var reasoning []string
	n := 0
	for i, p := range parts {
		switch {
		case p.FunctionCall != nil:
			args, err := argsJSON(p.FunctionCall.Args)
			if err != nil {
				return m, fmt.Errorf("part %d: function call %q arguments: %w", i, p.FunctionCall.Name, err)
			}
			m.ToolCalls = append(m.ToolCalls, openai.ToolCall{ID: made[n].view, Type: openai.ToolTypeFunction,
				Function: openai.FunctionCall{Name: p.FunctionCall.Name, Arguments: args}})
			n++
		case isText(p) && p.Text == "":
			// a signature-only part, as streaming ends: nothing to read
		case p.Thought && isText(p):
			reasoning = append(reasoning, p.Text)
		default:
			content = append(content, partView(p))
		}
	}
	m.ReasoningContent = strings.Join(reasoning, reasoningSep)
	align.SetContent(&m, content)
	if len(m.ToolCalls) == 0 && strings.TrimSpace(compact.Text(m)) == "" && !hasImage(m) {
		if len(reasoning) > 0 {
			m = withText(m, "[thinking]")
		} else {
			m = withText(m, "[empty turn]")
		}
	}
	return m, nil
}

// isText reports whether p carries text or nothing: no data of another
// kind.
func isText(p *sdk.Part) bool {
	return p.InlineData == nil && p.FileData == nil && p.FunctionCall == nil && p.FunctionResponse == nil &&
		p.ExecutableCode == nil && p.CodeExecutionResult == nil && p.ToolCall == nil && p.ToolResponse == nil &&
		p.AudioTranscription == nil
}

// withText returns m with content s and no parts.
func withText(m compact.Message, s string) compact.Message {
	m.Content, m.MultiContent = s, nil
	return m
}

func hasImage(m compact.Message) bool { return align.HasImage(m) }

// userView is the message parts of a user content (or of the system
// instruction, with role system) read as.
func userView(role string, parts []*sdk.Part) compact.Message {
	m := compact.Message{Role: role}
	content := make([]openai.ChatMessagePart, 0, len(parts))
	for _, p := range parts {
		content = append(content, partView(p))
	}
	align.SetContent(&m, content)
	return m
}

// systemView is the system message the system instruction reads as.
func systemView(parts []*sdk.Part) (compact.Message, error) {
	for i, p := range parts {
		if p == nil {
			return compact.Message{}, fmt.Errorf("part %d: nil part", i)
		}
		if err := nilResponsePart(p); err != nil {
			return compact.Message{}, fmt.Errorf("part %d: %w", i, err)
		}
	}
	return userView(compact.RoleSystem, parts), nil
}
