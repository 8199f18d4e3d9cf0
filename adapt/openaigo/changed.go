//lint:file-ignore SA1019 deprecated function calling is converted too, so histories that use it round-trip

package openaigo

import (
	"strings"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/param"
	goopenai "github.com/sashabaranov/go-openai"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/internal/align"
)

// This file restores messages the engine changed: as much of the original
// as still holds.

// changed converts message i of the engine's output, which the engine
// changed or wrote. cand is the input message it took the place of, or -1.
// A tool result or a tool-calling assistant turn whose id names an input
// message no other message reproduced (by position when several have the
// id: see align.Origins) keeps that message's other fields; a user message
// that reads part for part as the one it replaced keeps the parts it kept;
// a system or developer message that extends the one it replaced keeps its
// fields and parts. false means the role has no place in a request.
func (c *Conversion) changed(m compact.Message, i, cand int, o *align.Origins) (openai.ChatCompletionMessageParamUnion, bool) {
	used := o.Used
	replaced := func(role string) bool {
		return cand >= 0 && !used[cand] && c.views[cand].Role == role
	}
	switch m.Role {
	case compact.RoleTool:
		if j, ok := o.Result(i, m.ToolCallID); ok {
			t := *c.hist[j].OfTool
			t.Content.OfString, t.Content.OfArrayOfContentParts = sameForm(t.Content.OfArrayOfContentParts != nil, m)
			return openai.ChatCompletionMessageParamUnion{OfTool: &t}, true
		}
	case compact.RoleAssistant:
		if len(m.ToolCalls) > 0 {
			if j, ok := o.Call(i, m.ToolCalls[0].ID); ok {
				return c.changedAssistant(m, j), true
			}
		}
	case compact.RoleUser:
		if replaced(compact.RoleUser) {
			if u, ok := c.changedUser(m, cand); ok {
				used[cand] = true
				return u, true
			}
		}
	case compact.RoleSystem, roleDeveloper:
		if replaced(m.Role) {
			if u, ok := c.extended(m, cand); ok {
				used[cand] = true
				return u, true
			}
		}
	}
	return newMessage(m)
}

// sameForm is m's content as text, in the form the original had: parts
// when array, else a string.
func sameForm(array bool, m compact.Message) (param.Opt[string], []openai.ChatCompletionContentPartTextParam) {
	if !array {
		return param.NewOpt(compact.Text(m)), nil
	}
	var parts []openai.ChatCompletionContentPartTextParam
	for _, p := range align.ContentParts(m) {
		t := p.Text
		if align.IsImage(p) {
			t = imageText(p)
		}
		parts = append(parts, openai.ChatCompletionContentPartTextParam{Text: t})
	}
	if parts == nil {
		parts = []openai.ChatCompletionContentPartTextParam{}
	}
	return param.Opt[string]{}, parts
}

// changedAssistant is an assistant message the engine changed, as input
// message j with what changed replaced: its content, refusal and function
// call only when those changed, and each call by id, an unchanged call
// being the original one and a changed call the original with the new name
// and arguments.
func (c *Conversion) changedAssistant(m compact.Message, j int) openai.ChatCompletionMessageParamUnion {
	a := *c.hist[j].OfAssistant
	v := c.views[j]
	mc, vc := m, v
	mc.ToolCalls, vc.ToolCalls = nil, nil
	if !align.SameMessage(mc, vc) {
		a.Content = assistantContent(m)
		a.Refusal = opt(m.Refusal)
		a.FunctionCall = openai.ChatCompletionAssistantMessageParamFunctionCall{}
		if fc := m.FunctionCall; fc != nil {
			a.FunctionCall.Name, a.FunctionCall.Arguments = fc.Name, fc.Arguments
		}
		if m.Name != v.Name {
			a.Name = opt(m.Name)
		}
	}
	byID := make(map[string]openai.ChatCompletionMessageToolCallUnionParam, len(a.ToolCalls))
	for _, tc := range a.ToolCalls {
		byID[toolCall(tc).ID] = tc
	}
	a.ToolCalls = nil
	for _, tc := range m.ToolCalls {
		a.ToolCalls = append(a.ToolCalls, updatedCall(byID[tc.ID], tc))
	}
	return openai.ChatCompletionMessageParamUnion{OfAssistant: &a}
}

// updatedCall is orig with the name and arguments of tc: orig itself when
// they are the same, a new call when there is no orig.
func updatedCall(orig openai.ChatCompletionMessageToolCallUnionParam, tc goopenai.ToolCall) openai.ChatCompletionMessageToolCallUnionParam {
	switch {
	case orig.OfFunction != nil && tc.Type != toolTypeCustom:
		if align.SameCall(toolCall(orig), tc) {
			return orig
		}
		f := *orig.OfFunction
		f.Function.Name, f.Function.Arguments = tc.Function.Name, tc.Function.Arguments
		return openai.ChatCompletionMessageToolCallUnionParam{OfFunction: &f}
	case orig.OfCustom != nil && tc.Type == toolTypeCustom:
		if align.SameCall(toolCall(orig), tc) {
			return orig
		}
		f := *orig.OfCustom
		f.Custom.Name, f.Custom.Input = tc.Function.Name, tc.Function.Arguments
		return openai.ChatCompletionMessageToolCallUnionParam{OfCustom: &f}
	}
	return toolCallParam(tc)
}

// changedUser is a user message the engine changed, as input message j
// with each content part the engine kept the original part and each part
// it rewrote (an image it replaced by a note) a new one. The message is
// read part for part against the original's view: as parts when it still
// has as many, or as the view's parts joined by newlines (how the
// Compressor writes a message whose images it replaced), each rewritten
// part one line. ok is false when it cannot be read so, or keeps no part.
func (c *Conversion) changedUser(m compact.Message, j int) (openai.ChatCompletionMessageParamUnion, bool) {
	orig := c.hist[j].OfUser
	if orig == nil {
		return openai.ChatCompletionMessageParamUnion{}, false
	}
	origParts := orig.Content.OfArrayOfContentParts
	view := align.ContentParts(c.views[j])
	if len(view) != len(origParts) || len(view) < 2 {
		return openai.ChatCompletionMessageParamUnion{}, false
	}
	parts, ok := align.EditedParts(c.views[j], m)
	if !ok {
		return openai.ChatCompletionMessageParamUnion{}, false
	}
	u := *orig
	u.Content.OfArrayOfContentParts = make([]openai.ChatCompletionContentPartUnionParam, 0, len(parts))
	kept := false
	for i, p := range parts {
		if align.SamePart(view[i], p) {
			u.Content.OfArrayOfContentParts = append(u.Content.OfArrayOfContentParts, origParts[i])
			kept = kept || strings.TrimSpace(p.Text) != "" || p.ImageURL != nil
			continue
		}
		u.Content.OfArrayOfContentParts = append(u.Content.OfArrayOfContentParts, userContentPart(p))
	}
	if !kept {
		return openai.ChatCompletionMessageParamUnion{}, false
	}
	if m.Name != c.views[j].Name {
		u.Name = opt(m.Name)
	}
	return openai.ChatCompletionMessageParamUnion{OfUser: &u}, true
}

// extended is a system or developer message that is input message j with
// text added at its end (as the Compressor adds its note): the original
// with the longer string, or with its parts and the added ones.
func (c *Conversion) extended(m compact.Message, j int) (openai.ChatCompletionMessageParamUnion, bool) {
	extra, ok := align.Extension(c.views[j], m)
	if !ok || m.Name != c.views[j].Name {
		return openai.ChatCompletionMessageParamUnion{}, false
	}
	u := copyUnion(c.hist[j])
	var content *openai.ChatCompletionSystemMessageParamContentUnion
	switch {
	case u.OfSystem != nil:
		content = &u.OfSystem.Content
	case u.OfDeveloper != nil:
		dev := &u.OfDeveloper.Content
		if dev.OfArrayOfContentParts == nil {
			dev.OfString = param.NewOpt(compact.Text(m))
			return u, true
		}
		dev.OfArrayOfContentParts = appendText(dev.OfArrayOfContentParts, extra)
		return u, true
	default:
		return openai.ChatCompletionMessageParamUnion{}, false
	}
	if content.OfArrayOfContentParts == nil {
		content.OfString = param.NewOpt(compact.Text(m))
		return u, true
	}
	content.OfArrayOfContentParts = appendText(content.OfArrayOfContentParts, extra)
	return u, true
}

// appendText returns parts, copied, with a text part for each of texts.
func appendText(parts []openai.ChatCompletionContentPartTextParam, texts []string) []openai.ChatCompletionContentPartTextParam {
	out := append([]openai.ChatCompletionContentPartTextParam(nil), parts...)
	for _, t := range texts {
		out = append(out, openai.ChatCompletionContentPartTextParam{Text: t})
	}
	return out
}
