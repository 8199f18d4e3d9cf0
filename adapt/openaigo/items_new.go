package openaigo

import (
	"fmt"
	"strings"

	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/responses"
	goopenai "github.com/sashabaranov/go-openai"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/internal/align"
)

// This file turns a message with no original items behind it (one the
// engine wrote, or one from a go-openai history) into items.

// easyMessage is a message item of role with a string content.
func easyMessage(role, text string) Item {
	return Item{OfMessage: &responses.EasyInputMessageParam{
		Role:    responses.EasyInputMessageRole(role),
		Content: responses.EasyInputMessageContentUnionParam{OfString: param.NewOpt(text)},
		Type:    responses.EasyInputMessageTypeMessage,
	}}
}

// imageDetailAuto is the detail an image part gets when its own is unset:
// the API requires one, and "auto" is its default.
const imageDetailAuto = "auto"

// filePrefix marks the URL of an image a view read from a file id.
const filePrefix = "file:"

// partJSON is a content part as the API reads it: a text part, or, where
// images may go (images is true), an image part.
func partJSON(p goopenai.ChatMessagePart, images bool) map[string]any {
	if !align.IsImage(p) {
		return inputText(p.Text)
	}
	if !images || p.ImageURL == nil {
		return inputText(imageText(p))
	}
	detail := string(p.ImageURL.Detail)
	if detail == "" {
		detail = imageDetailAuto
	}
	img := map[string]any{"type": "input_image", "detail": detail}
	if id, ok := strings.CutPrefix(p.ImageURL.URL, filePrefix); ok {
		img["file_id"] = id
	} else {
		img["image_url"] = p.ImageURL.URL
	}
	return img
}

// inputParts is m's content as a list of the SDK's input parts.
func inputParts(m compact.Message, images bool) responses.ResponseInputMessageContentListParam {
	out := make(responses.ResponseInputMessageContentListParam, 0, len(m.MultiContent))
	for _, p := range m.MultiContent {
		switch {
		case !align.IsImage(p):
			out = append(out, responses.ResponseInputContentParamOfInputText(p.Text))
		case images && p.ImageURL != nil:
			img := partJSON(p, true)
			part := &responses.ResponseInputImageParam{Detail: responses.ResponseInputImageDetail(img["detail"].(string))}
			if id, ok := img["file_id"].(string); ok {
				part.FileID = param.NewOpt(id)
			} else {
				part.ImageURL = param.NewOpt(p.ImageURL.URL)
			}
			out = append(out, responses.ResponseInputContentUnionParam{OfInputImage: part})
		default:
			out = append(out, responses.ResponseInputContentParamOfInputText(imageText(p)))
		}
	}
	return out
}

// newItems converts m, which has no original items. An error means m has no
// place in a Responses request.
func (r *restorer) newItems(m compact.Message) ([]Item, error) {
	switch m.Role {
	case compact.RoleSystem, roleDeveloper, compact.RoleUser:
		msg := &responses.EasyInputMessageParam{Role: responses.EasyInputMessageRole(m.Role), Type: responses.EasyInputMessageTypeMessage}
		if len(m.MultiContent) == 0 {
			msg.Content.OfString = param.NewOpt(m.Content)
		} else {
			msg.Content.OfInputItemContentList = inputParts(m, m.Role == compact.RoleUser)
		}
		return []Item{{OfMessage: msg}}, nil
	case compact.RoleAssistant:
		if m.FunctionCall != nil {
			return nil, fmt.Errorf("a deprecated function call (%s) has no place in a Responses request", m.FunctionCall.Name)
		}
		var out []Item
		text := assistantText(m)
		if text != "" || len(m.ToolCalls) == 0 {
			out = append(out, easyMessage(compact.RoleAssistant, text))
		}
		for _, tc := range m.ToolCalls {
			out = append(out, r.newCall(tc))
		}
		return out, nil
	case compact.RoleTool:
		return []Item{r.newOutput(m)}, nil
	}
	return nil, fmt.Errorf("role %q has no place in a Responses request", m.Role)
}

// assistantText is the text of an assistant message's message item: its
// content, then its refusal on a line of its own.
func assistantText(m compact.Message) string {
	text := compact.Text(m)
	if m.Refusal != "" {
		text = strings.TrimLeft(text+"\n"+m.Refusal, "\n")
	}
	return text
}

// newCall is tc as a call item: a custom tool call for type "custom", else
// a function call.
func (r *restorer) newCall(tc goopenai.ToolCall) Item {
	if tc.Type == toolTypeCustom {
		r.callTypes[tc.ID] = typeCustomToolCall
		return Item{OfCustomToolCall: &responses.ResponseCustomToolCallParam{
			CallID: tc.ID, Name: tc.Function.Name, Input: tc.Function.Arguments}}
	}
	r.callTypes[tc.ID] = typeFunctionCall
	return Item{OfFunctionCall: &responses.ResponseFunctionToolCallParam{
		CallID: tc.ID, Name: tc.Function.Name, Arguments: tc.Function.Arguments}}
}

// newOutput is tool message m as the output of its call: a custom tool
// call's output for a custom call, else a function call's, with a string
// content as a string and parts as input parts.
func (r *restorer) newOutput(m compact.Message) Item {
	if r.callTypes[m.ToolCallID] == typeCustomToolCall {
		out := &responses.ResponseCustomToolCallOutputParam{CallID: m.ToolCallID}
		out.Output.OfString = param.NewOpt(compact.Text(m))
		return Item{OfCustomToolCallOutput: out}
	}
	out := &responses.ResponseInputItemFunctionCallOutputParam{CallID: param.NewOpt(m.ToolCallID)}
	if len(m.MultiContent) == 0 {
		out.Output.OfString = param.NewOpt(m.Content)
		return Item{OfFunctionCallOutput: out}
	}
	list := make(responses.ResponseFunctionCallOutputItemListParam, 0, len(m.MultiContent))
	for _, p := range m.MultiContent {
		t := p.Text
		if align.IsImage(p) {
			t = imageText(p)
		}
		list = append(list, responses.ResponseFunctionCallOutputItemUnionParam{
			OfInputText: &responses.ResponseInputTextContentParam{Text: t}})
	}
	out.Output.OfResponseFunctionCallOutputItemArray = list
	return Item{OfFunctionCallOutput: out}
}
