//lint:file-ignore SA1019 deprecated MultiContent parts are converted too, so histories that use them round-trip

package eino

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/cloudwego/eino/schema"
	openai "github.com/sashabaranov/go-openai"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/internal/align"
)

// This file builds the view: the compact message each eino message reads
// as. A view is what the engine counts and summarises; it is never turned
// back into a message when the engine keeps it unchanged.

// Placeholders stand for an assistant turn with nothing compact can read,
// since an empty assistant message is not a valid request.
const (
	reasoningPlaceholder = "[reasoning]"
	emptyPlaceholder     = "[empty turn]"
)

// reasoningSep joins the reasoning texts of one assistant turn.
const reasoningSep = "\n\n"

// partKind says which of a message's content lists a part came from.
type partKind uint8

const (
	kindContent partKind = iota // Content, read as a text part before the lists
	kindMulti                   // MultiContent (deprecated in eino)
	kindInput                   // UserInputMultiContent
	kindOutput                  // AssistantGenMultiContent
)

// partRef locates the source of one part of a view.
type partRef struct {
	kind partKind
	idx  int
}

// usesLists reports whether u carries its content in part lists: then its
// view has parts, even a single text part, so that a list reads
// differently from a string.
func usesLists(u *schema.Message) bool {
	return len(u.MultiContent) > 0 || len(u.UserInputMultiContent) > 0 || len(u.AssistantGenMultiContent) > 0
}

// view is the message u reads as, and where each of its parts came from.
func view(u *schema.Message) (compact.Message, []partRef) {
	m := compact.Message{Role: string(u.Role), Name: u.Name, ToolCallID: u.ToolCallID}
	var refs []partRef
	if !usesLists(u) {
		m.Content = u.Content
	} else {
		var parts []openai.ChatMessagePart
		if u.Content != "" {
			parts = append(parts, align.TextPart(u.Content))
			refs = append(refs, partRef{kind: kindContent})
		}
		for i, p := range u.MultiContent {
			parts = append(parts, multiPart(p))
			refs = append(refs, partRef{kindMulti, i})
		}
		for i, p := range u.UserInputMultiContent {
			parts = append(parts, inputPart(p))
			refs = append(refs, partRef{kindInput, i})
		}
		for i, p := range u.AssistantGenMultiContent {
			if p.Type == schema.ChatMessagePartTypeReasoning {
				continue
			}
			parts = append(parts, outputPart(p))
			refs = append(refs, partRef{kindOutput, i})
		}
		if len(parts) > 0 {
			m.MultiContent = parts
		}
	}
	m.ReasoningContent = reasoning(u)
	for _, c := range u.ToolCalls {
		m.ToolCalls = append(m.ToolCalls, toolCall(c))
	}
	if u.Role == schema.Assistant && len(m.ToolCalls) == 0 && strings.TrimSpace(compact.Text(m)) == "" && !align.HasImage(m) {
		placeholder := emptyPlaceholder
		if strings.TrimSpace(m.ReasoningContent) != "" {
			placeholder = reasoningPlaceholder
		}
		m.Content, m.MultiContent, refs = placeholder, nil, nil
	}
	return m, refs
}

// reasoning is the reasoning an assistant turn carries: ReasoningContent,
// then the text of each reasoning part that says something else.
func reasoning(u *schema.Message) string {
	var texts []string
	if u.ReasoningContent != "" {
		texts = append(texts, u.ReasoningContent)
	}
	for _, p := range u.AssistantGenMultiContent {
		if p.Type != schema.ChatMessagePartTypeReasoning || p.Reasoning == nil || p.Reasoning.Text == "" {
			continue
		}
		if len(texts) == 1 && texts[0] == p.Reasoning.Text {
			continue // the same reasoning in both places
		}
		texts = append(texts, p.Reasoning.Text)
	}
	return strings.Join(texts, reasoningSep)
}

// toolCall is the call an eino tool call reads as.
func toolCall(c schema.ToolCall) openai.ToolCall {
	return openai.ToolCall{Index: c.Index, ID: c.ID, Type: openai.ToolType(c.Type),
		Function: openai.FunctionCall{Name: c.Function.Name, Arguments: c.Function.Arguments}}
}

// multiPart is the part a deprecated MultiContent part reads as.
func multiPart(p schema.ChatMessagePart) openai.ChatMessagePart {
	switch {
	case p.Type == schema.ChatMessagePartTypeText:
		return align.TextPart(p.Text)
	case p.ImageURL != nil && (p.ImageURL.URL != "" || p.ImageURL.URI == ""):
		return align.ImagePart(p.ImageURL.URL, openai.ImageURLDetail(p.ImageURL.Detail))
	case p.ImageURL != nil:
		return align.TextPart("[image: " + p.ImageURL.URI + "]")
	case p.AudioURL != nil:
		return align.TextPart("[audio: " + shortURL(firstOf(p.AudioURL.URL, p.AudioURL.URI)) + "]")
	case p.VideoURL != nil:
		return align.TextPart("[video: " + shortURL(firstOf(p.VideoURL.URL, p.VideoURL.URI)) + "]")
	case p.FileURL != nil:
		return align.TextPart("[file: " + firstOf(p.FileURL.Name, shortURL(firstOf(p.FileURL.URL, p.FileURL.URI))) + "]")
	}
	return align.TextPart(opaqueText(p))
}

// inputPart is the part a user input part reads as: text as text, an image
// with a URL or inline data as an image, anything else as a short text
// that names it.
func inputPart(p schema.MessageInputPart) openai.ChatMessagePart {
	switch {
	case p.Type == schema.ChatMessagePartTypeText:
		return align.TextPart(p.Text)
	case p.Image != nil:
		if url, ok := mediaURL(p.Image.MessagePartCommon); ok {
			return align.ImagePart(url, openai.ImageURLDetail(p.Image.Detail))
		}
		return align.TextPart("[image]")
	case p.Audio != nil:
		return align.TextPart("[audio: " + mediaName(p.Audio.MessagePartCommon) + "]")
	case p.Video != nil:
		return align.TextPart("[video: " + mediaName(p.Video.MessagePartCommon) + "]")
	case p.File != nil:
		name := mediaName(p.File.MessagePartCommon)
		if p.File.Name != "" {
			name = p.File.Name + ", " + name
		}
		return align.TextPart("[file: " + name + "]")
	case p.ToolSearchResult != nil:
		var names []string
		for _, t := range p.ToolSearchResult.Tools {
			if t != nil {
				names = append(names, t.Name)
			}
		}
		return align.TextPart("[tool search result: " + strings.Join(names, ", ") + "]")
	}
	return align.TextPart(opaqueText(p))
}

// outputPart is the part an assistant output part (other than reasoning)
// reads as.
func outputPart(p schema.MessageOutputPart) openai.ChatMessagePart {
	switch {
	case p.Type == schema.ChatMessagePartTypeText:
		return align.TextPart(p.Text)
	case p.Image != nil:
		if url, ok := mediaURL(p.Image.MessagePartCommon); ok {
			return align.ImagePart(url, "")
		}
		return align.TextPart("[image]")
	case p.Audio != nil:
		return align.TextPart("[audio: " + mediaName(p.Audio.MessagePartCommon) + "]")
	case p.Video != nil:
		return align.TextPart("[video: " + mediaName(p.Video.MessagePartCommon) + "]")
	}
	return align.TextPart(opaqueText(p))
}

// mediaURL is where an image's bytes are, as an image part's URL: its URL,
// or its inline data as a data: URL.
func mediaURL(c schema.MessagePartCommon) (string, bool) {
	switch {
	case c.URL != nil:
		return *c.URL, true
	case c.Base64Data != nil:
		mime := c.MIMEType
		if mime == "" {
			mime = "application/octet-stream"
		}
		return "data:" + mime + ";base64," + *c.Base64Data, true
	}
	return "", false
}

// mediaName says where a media part's bytes are without its inline payload.
func mediaName(c schema.MessagePartCommon) string {
	switch {
	case c.URL != nil && *c.URL != "":
		return shortURL(*c.URL)
	case c.Base64Data != nil:
		return firstOf(c.MIMEType, "data") + ", " + strconv.Itoa(len(*c.Base64Data)) + " bytes inline"
	}
	return firstOf(c.MIMEType, "no source")
}

// shortURL names a URL without an inline payload.
func shortURL(url string) string {
	if strings.HasPrefix(url, "data:") {
		if i := strings.IndexAny(url, ";,"); i >= 0 {
			return url[:i]
		}
	}
	return url
}

func firstOf(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// opaqueText is the text of a part this package gives no reading of its
// own: its JSON, which is what a model would read.
func opaqueText(v any) string {
	data, err := json.Marshal(v)
	if err != nil {
		return "[part]"
	}
	return string(data)
}
