package eino

import (
	"slices"
	"strings"

	"github.com/cloudwego/eino/schema"
	openai "github.com/sashabaranov/go-openai"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/internal/align"
)

// This file restores messages the engine changed: as much of the original
// as still holds.

// changed converts message i of the engine's output, which the engine
// changed or wrote. cand is the input message it took the place of, or -1.
// A tool result or a tool-calling assistant turn whose id names an input
// message no other message reproduced (by position when several have the
// id: see align.Origins) keeps that message's other fields; a user message that reads
// part for part as the one it replaced keeps the parts it kept; a system
// message that extends the one it replaced keeps its fields and parts.
// false means the message has no role.
func (c *Conversion) changed(m compact.Message, i, cand int, o *align.Origins) (*schema.Message, bool) {
	used := o.Used
	replaced := cand >= 0 && !used[cand] && c.views[cand].Role == m.Role
	switch m.Role {
	case compact.RoleTool:
		if j, ok := o.Result(i, m.ToolCallID); ok {
			return c.rewrite(m, j), true
		}
	case compact.RoleAssistant:
		if len(m.ToolCalls) > 0 {
			if j, ok := o.Call(i, m.ToolCalls[0].ID); ok {
				return c.rewrite(m, j), true
			}
		}
	case compact.RoleUser:
		if replaced && usesLists(c.hist[cand]) {
			if parts, ok := align.EditedParts(c.views[cand], m); ok && keepsSome(parts, c.views[cand]) {
				used[cand] = true
				return c.rewrite(m, cand), true
			}
		}
	case compact.RoleSystem:
		if replaced {
			if extra, ok := align.Extension(c.views[cand], m); ok && m.Name == c.views[cand].Name {
				used[cand] = true
				return c.extended(m, cand, extra), true
			}
		}
	}
	return newMessage(m)
}

// keepsSome reports whether parts keeps a part of v that says something.
func keepsSome(parts []openai.ChatMessagePart, v compact.Message) bool {
	for i, p := range align.ContentParts(v) {
		if i < len(parts) && align.SamePart(p, parts[i]) && (strings.TrimSpace(p.Text) != "" || align.IsImage(p)) {
			return true
		}
	}
	return false
}

// rewrite is input message j with what m changed: its content (part for
// part where m reads so against the view, so kept parts stay the original
// parts), its reasoning, its tool calls by id (an unchanged call stays the
// original call, a changed one keeps its index and Extra), its call id and
// name. Everything else (ResponseMeta, Extra, ToolName) stays.
func (c *Conversion) rewrite(m compact.Message, j int) *schema.Message {
	u := *c.hist[j]
	v := c.views[j]
	if !align.SameMessage(contentOnly(v), contentOnly(m)) {
		c.rewriteContent(&u, m, j)
	}
	if m.ReasoningContent != v.ReasoningContent {
		u.ReasoningContent = m.ReasoningContent
		u.AssistantGenMultiContent = withoutReasoning(u.AssistantGenMultiContent)
	}
	if !sameCalls(v.ToolCalls, m.ToolCalls) {
		u.ToolCalls = updatedCalls(u.ToolCalls, m.ToolCalls)
	}
	u.ToolCallID = m.ToolCallID
	if m.Name != v.Name {
		u.Name = m.Name
	}
	return &u
}

// contentOnly is m's content, for comparing content alone.
func contentOnly(m compact.Message) compact.Message {
	return compact.Message{Content: m.Content, MultiContent: m.MultiContent}
}

func sameCalls(a, b []openai.ToolCall) bool {
	return slices.EqualFunc(a, b, align.SameCall)
}

// rewriteContent puts m's content in u, in the form input message j had:
// a string stays a string; parts read part for part against the view keep
// each original part the engine kept, in its own list; otherwise the
// content becomes parts of the first list the message used.
func (c *Conversion) rewriteContent(u *schema.Message, m compact.Message, j int) {
	if !usesLists(c.hist[j]) {
		u.Content = textOf(m)
		return
	}
	refs := c.refs[j]
	if parts, ok := align.EditedParts(c.views[j], m); ok && len(parts) == len(refs) {
		c.rewriteParts(u, parts, j)
		return
	}
	kind := kindMulti
	for _, r := range refs {
		if r.kind != kindContent {
			kind = r.kind
			break
		}
	}
	if len(refs) == 0 {
		kind = listKind(c.hist[j])
	}
	keep := u.AssistantGenMultiContent
	u.Content, u.MultiContent, u.UserInputMultiContent, u.AssistantGenMultiContent = "", nil, nil, nil
	if kind == kindOutput {
		u.AssistantGenMultiContent = reasoningParts(keep)
	}
	for _, p := range align.ContentParts(m) {
		appendPart(u, kind, p)
	}
}

// listKind is the first part list u uses.
func listKind(u *schema.Message) partKind {
	switch {
	case len(u.MultiContent) > 0:
		return kindMulti
	case len(u.UserInputMultiContent) > 0:
		return kindInput
	}
	return kindOutput
}

// rewriteParts rebuilds u's content from parts, read one for one against
// the view of input message j: a part the engine kept is the original
// part, a part it rewrote a new part in the same list.
func (c *Conversion) rewriteParts(u *schema.Message, parts []openai.ChatMessagePart, j int) {
	orig := c.hist[j]
	view := align.ContentParts(c.views[j])
	kept := make(map[partRef]bool, len(parts))
	fresh := make(map[partRef]openai.ChatMessagePart)
	for i, r := range c.refs[j] {
		if align.SamePart(view[i], parts[i]) {
			kept[r] = true
		} else {
			fresh[r] = parts[i]
		}
	}
	u.Content, u.MultiContent, u.UserInputMultiContent, u.AssistantGenMultiContent = "", nil, nil, nil
	if r := (partRef{kind: kindContent}); kept[r] {
		u.Content = orig.Content
	} else if p, ok := fresh[r]; ok {
		u.Content = p.Text
	}
	for i, p := range orig.MultiContent {
		r := partRef{kindMulti, i}
		if kept[r] {
			u.MultiContent = append(u.MultiContent, p)
		} else {
			appendPart(u, kindMulti, fresh[r])
		}
	}
	for i, p := range orig.UserInputMultiContent {
		r := partRef{kindInput, i}
		if kept[r] {
			u.UserInputMultiContent = append(u.UserInputMultiContent, p)
		} else {
			appendPart(u, kindInput, fresh[r])
		}
	}
	for i, p := range orig.AssistantGenMultiContent {
		r := partRef{kindOutput, i}
		if kept[r] || p.Type == schema.ChatMessagePartTypeReasoning {
			u.AssistantGenMultiContent = append(u.AssistantGenMultiContent, p)
		} else {
			appendPart(u, kindOutput, fresh[r])
		}
	}
}

// extended is system message j with the texts extra added at its end (as
// the Compressor adds its note): a longer string, or one more text part in
// the last list the message used.
func (c *Conversion) extended(m compact.Message, j int, extra []string) *schema.Message {
	u := *c.hist[j]
	if !usesLists(&u) {
		u.Content = compact.Text(m)
		return &u
	}
	kind := c.refs[j][len(c.refs[j])-1].kind
	if kind == kindContent {
		kind = listKind(&u)
	}
	u.MultiContent = slices.Clip(u.MultiContent)
	u.UserInputMultiContent = slices.Clip(u.UserInputMultiContent)
	u.AssistantGenMultiContent = slices.Clip(u.AssistantGenMultiContent)
	for _, t := range extra {
		appendPart(&u, kind, align.TextPart(t))
	}
	return &u
}

// updatedCalls is the calls of want, each the original call with its id
// when there is one (itself when unchanged, else with the new type, name and
// arguments), else a new call.
func updatedCalls(orig []schema.ToolCall, want []openai.ToolCall) []schema.ToolCall {
	byID := make(map[string]schema.ToolCall, len(orig))
	for _, tc := range orig {
		if _, dup := byID[tc.ID]; !dup {
			byID[tc.ID] = tc
		}
	}
	out := make([]schema.ToolCall, 0, len(want))
	for _, w := range want {
		tc, ok := byID[w.ID]
		if !ok {
			out = append(out, newCall(w))
			continue
		}
		if !align.SameCall(toolCall(tc), w) {
			tc.Type, tc.Function.Name, tc.Function.Arguments = string(w.Type), w.Function.Name, w.Function.Arguments
			if w.Index != nil {
				tc.Index = w.Index
			}
		}
		out = append(out, tc)
	}
	return out
}

// withoutReasoning returns parts without its reasoning parts, copied.
func withoutReasoning(parts []schema.MessageOutputPart) []schema.MessageOutputPart {
	var out []schema.MessageOutputPart
	for _, p := range parts {
		if p.Type != schema.ChatMessagePartTypeReasoning {
			out = append(out, p)
		}
	}
	return out
}

// reasoningParts returns the reasoning parts of parts, copied.
func reasoningParts(parts []schema.MessageOutputPart) []schema.MessageOutputPart {
	var out []schema.MessageOutputPart
	for _, p := range parts {
		if p.Type == schema.ChatMessagePartTypeReasoning {
			out = append(out, p)
		}
	}
	return out
}
