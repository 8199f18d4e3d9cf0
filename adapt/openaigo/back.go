//lint:file-ignore SA1019 deprecated function calling is converted too, so histories that use it round-trip

package openaigo

import (
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/param"
	goopenai "github.com/sashabaranov/go-openai"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/internal/align"
)

// This file turns a message with no original behind it (one the engine
// wrote, or one from a go-openai history) into the SDK's message.

// imageText is the text an image becomes where only text may go.
func imageText(p goopenai.ChatMessagePart) string {
	if p.ImageURL == nil {
		return "[image]"
	}
	return compact.Text(compact.Message{MultiContent: []goopenai.ChatMessagePart{p}})
}

// textOnly returns m's parts as text parts, an image as its placeholder.
func textOnly(m compact.Message) []openai.ChatCompletionContentPartTextParam {
	var out []openai.ChatCompletionContentPartTextParam
	for _, p := range m.MultiContent {
		t := p.Text
		if align.IsImage(p) {
			t = imageText(p)
		}
		out = append(out, openai.ChatCompletionContentPartTextParam{Text: t})
	}
	return out
}

// userContentPart is a content part of a user message.
func userContentPart(p goopenai.ChatMessagePart) openai.ChatCompletionContentPartUnionParam {
	if align.IsImage(p) {
		img := openai.ChatCompletionContentPartImageImageURLParam{}
		if p.ImageURL != nil {
			img.URL, img.Detail = p.ImageURL.URL, string(p.ImageURL.Detail)
		}
		return openai.ChatCompletionContentPartUnionParam{OfImageURL: &openai.ChatCompletionContentPartImageParam{ImageURL: img}}
	}
	return openai.TextContentPart(p.Text)
}

// userContent is m's content as a user message's.
func userContent(m compact.Message) openai.ChatCompletionUserMessageParamContentUnion {
	if len(m.MultiContent) == 0 {
		return openai.ChatCompletionUserMessageParamContentUnion{OfString: param.NewOpt(m.Content)}
	}
	parts := make([]openai.ChatCompletionContentPartUnionParam, 0, len(m.MultiContent))
	for _, p := range m.MultiContent {
		parts = append(parts, userContentPart(p))
	}
	return openai.ChatCompletionUserMessageParamContentUnion{OfArrayOfContentParts: parts}
}

// assistantContent is m's content as an assistant message's: omitted when
// m has none and makes calls.
func assistantContent(m compact.Message) openai.ChatCompletionAssistantMessageParamContentUnion {
	var c openai.ChatCompletionAssistantMessageParamContentUnion
	switch {
	case len(m.MultiContent) > 0:
		for _, p := range textOnly(m) {
			c.OfArrayOfContentParts = append(c.OfArrayOfContentParts,
				openai.ChatCompletionAssistantMessageParamContentArrayOfContentPartUnion{OfText: &p})
		}
	case m.Content != "" || (len(m.ToolCalls) == 0 && m.FunctionCall == nil && m.Refusal == ""):
		c.OfString = param.NewOpt(m.Content)
	}
	return c
}

// toolCallParam is a call as the SDK's: a custom call for type "custom",
// else a function call.
func toolCallParam(c goopenai.ToolCall) openai.ChatCompletionMessageToolCallUnionParam {
	if c.Type == toolTypeCustom {
		return openai.ChatCompletionMessageToolCallUnionParam{OfCustom: &openai.ChatCompletionMessageCustomToolCallParam{
			ID: c.ID, Custom: openai.ChatCompletionMessageCustomToolCallCustomParam{Name: c.Function.Name, Input: c.Function.Arguments}}}
	}
	return openai.ChatCompletionMessageToolCallUnionParam{OfFunction: &openai.ChatCompletionMessageFunctionToolCallParam{
		ID: c.ID, Function: openai.ChatCompletionMessageFunctionToolCallFunctionParam{Name: c.Function.Name, Arguments: c.Function.Arguments}}}
}

// opt is s as an optional field, omitted when empty.
func opt(s string) param.Opt[string] {
	if s == "" {
		return param.Opt[string]{}
	}
	return param.NewOpt(s)
}

// newMessage converts m, which has no original: false when its role has no
// place in a Chat Completions request. Reasoning content is left out: the
// API has no field for it.
func newMessage(m compact.Message) (openai.ChatCompletionMessageParamUnion, bool) {
	switch m.Role {
	case compact.RoleSystem:
		p := &openai.ChatCompletionSystemMessageParam{Name: opt(m.Name)}
		p.Content.OfString, p.Content.OfArrayOfContentParts = textContent(m)
		return openai.ChatCompletionMessageParamUnion{OfSystem: p}, true
	case roleDeveloper:
		p := &openai.ChatCompletionDeveloperMessageParam{Name: opt(m.Name)}
		p.Content.OfString, p.Content.OfArrayOfContentParts = textContent(m)
		return openai.ChatCompletionMessageParamUnion{OfDeveloper: p}, true
	case compact.RoleUser:
		return openai.ChatCompletionMessageParamUnion{OfUser: &openai.ChatCompletionUserMessageParam{
			Name: opt(m.Name), Content: userContent(m)}}, true
	case compact.RoleAssistant:
		p := &openai.ChatCompletionAssistantMessageParam{Name: opt(m.Name), Refusal: opt(m.Refusal), Content: assistantContent(m)}
		if fc := m.FunctionCall; fc != nil {
			p.FunctionCall = openai.ChatCompletionAssistantMessageParamFunctionCall{Name: fc.Name, Arguments: fc.Arguments}
		}
		for _, c := range m.ToolCalls {
			p.ToolCalls = append(p.ToolCalls, toolCallParam(c))
		}
		return openai.ChatCompletionMessageParamUnion{OfAssistant: p}, true
	case compact.RoleTool:
		p := &openai.ChatCompletionToolMessageParam{ToolCallID: m.ToolCallID}
		p.Content.OfString, p.Content.OfArrayOfContentParts = textContent(m)
		return openai.ChatCompletionMessageParamUnion{OfTool: p}, true
	case roleFunction:
		return openai.ChatCompletionMessageParamUnion{OfFunction: &openai.ChatCompletionFunctionMessageParam{
			Name: m.Name, Content: param.NewOpt(compact.Text(m))}}, true
	}
	return openai.ChatCompletionMessageParamUnion{}, false
}

// textContent is m's content for a message that takes text only: a string,
// or text parts.
func textContent(m compact.Message) (param.Opt[string], []openai.ChatCompletionContentPartTextParam) {
	if len(m.MultiContent) == 0 {
		return param.NewOpt(m.Content), nil
	}
	return param.Opt[string]{}, textOnly(m)
}
