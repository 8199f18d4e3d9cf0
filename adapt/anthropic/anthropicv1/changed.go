package anthropicv1

import (
	"slices"
	"strings"

	sdk "github.com/anthropics/anthropic-sdk-go"
	openai "github.com/sashabaranov/go-openai"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/internal/align"
)

// This file restores messages: those the engine kept (their original
// blocks) and those it changed (as much of the original as still holds).

// exactSegment is piece j, which the engine kept unchanged.
func (c *Conversion) exactSegment(j int) segment {
	p := c.pieces[j]
	if p.turn == systemTurn {
		return segment{top: true, sys: slices.Clone(c.hist.System)}
	}
	m := c.hist.Messages[p.turn]
	blocks := slices.Clone(m.Content[p.from:p.to])
	return segment{role: m.Role, blocks: blocks, origin: &c.pieces[j], exact: true}
}

// changedSegment converts message i of the engine's output, which the
// engine changed or wrote; leading says no turn precedes it. A tool result
// or a tool-calling assistant turn whose id names an input piece no other
// message reproduced (by position when several have the id: see
// align.Origins) keeps that piece's other fields; a user message that
// holds a summary merged in front of an input piece's own blocks (see
// align.Shared) is that piece with the summary as a leading text block; a
// user message that reads part for part as the piece it replaced keeps the
// blocks whose parts it kept; a leading system message that extends the
// input's system prompt keeps its blocks. false means the role has no place
// in a History.
func (c *Conversion) changedSegment(m compact.Message, i int, leading bool, o *align.Origins) (segment, bool) {
	sub, used := o.Sub[i], o.Used
	switch m.Role {
	case compact.RoleTool:
		if j, ok := o.Result(i, m.ToolCallID); ok {
			return c.changedResult(m, j), true
		}
	case compact.RoleAssistant:
		if len(m.ToolCalls) > 0 {
			if j, ok := o.Call(i, m.ToolCalls[0].ID); ok {
				return c.changedAssistant(m, j), true
			}
		}
	case compact.RoleUser:
		if j, lead, had, ok := align.Shared(c.views, m, used); ok && c.pieces[j].turn != systemTurn {
			used[j] = true
			s := c.exactSegment(j)
			s.blocks, s.exact = withLead(s.blocks, lead, had), false
			return s, true
		}
		if sub >= 0 && !used[sub] && c.views[sub].Role == compact.RoleUser {
			if s, ok := c.changedUser(m, sub); ok {
				used[sub] = true
				return s, true
			}
		}
	case compact.RoleSystem, roleDeveloper:
		if leading {
			s := segment{top: true, sys: systemBlocks(m)}
			if len(c.pieces) > 0 && c.pieces[0].turn == systemTurn && !used[0] {
				if extra, ok := align.Extension(c.views[0], m); ok {
					used[0] = true
					s.sys = slices.Clone(c.hist.System)
					for _, t := range extra {
						s.sys = append(s.sys, sdk.TextBlockParam{Text: t})
					}
				}
			}
			return s, true
		}
	}
	return newSegment(m)
}

// withLead returns blocks, a user turn's, with lead (a summary merged in
// front of them, see align.Shared) as a text block before them, in place
// of the summary the first of them held when had.
func withLead(blocks []sdk.ContentBlockParamUnion, lead string, had bool) []sdk.ContentBlockParamUnion {
	if had && len(blocks) > 0 && blocks[0].OfText != nil {
		if own := align.OwnText(blocks[0].OfText.Text); own == "" {
			blocks = blocks[1:]
		} else {
			t := *blocks[0].OfText
			t.Text = own
			blocks = append([]sdk.ContentBlockParamUnion{{OfText: &t}}, blocks[1:]...)
		}
	}
	return append([]sdk.ContentBlockParamUnion{sdk.NewTextBlock(lead)}, blocks...)
}

// changedResult is a tool message the engine changed, as input piece j's
// tool_result block with the new content.
func (c *Conversion) changedResult(m compact.Message, j int) segment {
	p := &c.pieces[j]
	b := c.hist.Messages[p.turn].Content[p.from]
	r := *b.OfToolResult
	r.Content = toolResultContent(m)
	b.OfToolResult = &r
	return segment{role: sdk.MessageParamRoleUser, blocks: []sdk.ContentBlockParamUnion{b}, origin: p}
}

// changedAssistant is an assistant message the engine changed, as input
// piece j's blocks. When only the calls changed: the original blocks in
// their order, each tool_use updated or, when its call is gone, left out,
// and new calls at the end. Otherwise: the original thinking when the
// reasoning is unchanged, the new content, then the calls, each keeping
// its original block's other fields.
func (c *Conversion) changedAssistant(m compact.Message, j int) segment {
	p := &c.pieces[j]
	orig := c.hist.Messages[p.turn].Content[p.from:p.to]
	v := c.views[j]
	calls := m.ToolCalls
	v.ToolCalls, m.ToolCalls = nil, nil // v and m are copies
	var out []sdk.ContentBlockParamUnion
	if align.SameMessage(v, m) {
		pending := make(map[string]openai.ToolCall, len(calls))
		for _, tc := range calls {
			if _, dup := pending[tc.ID]; !dup {
				pending[tc.ID] = tc
			}
		}
		for _, b := range orig {
			if b.OfToolUse == nil {
				out = append(out, b)
				continue
			}
			if tc, ok := pending[b.OfToolUse.ID]; ok {
				out = append(out, updatedToolUse(b, tc))
				delete(pending, b.OfToolUse.ID)
			}
		}
		for _, tc := range calls {
			if _, ok := pending[tc.ID]; ok {
				out = append(out, toolUseBlock(tc))
				delete(pending, tc.ID)
			}
		}
		return segment{role: sdk.MessageParamRoleAssistant, blocks: out, origin: p}
	}
	byID := make(map[string]sdk.ContentBlockParamUnion)
	for _, b := range orig {
		switch {
		case b.OfToolUse != nil:
			byID[b.OfToolUse.ID] = b
		case (b.OfThinking != nil || b.OfRedactedThinking != nil) && m.ReasoningContent == v.ReasoningContent:
			out = append(out, b)
		}
	}
	out = append(out, assistantBlocks(m)...)
	for _, tc := range calls {
		if b, ok := byID[tc.ID]; ok {
			out = append(out, updatedToolUse(b, tc))
		} else {
			out = append(out, toolUseBlock(tc))
		}
	}
	return segment{role: sdk.MessageParamRoleAssistant, blocks: out, origin: p}
}

// changedUser is a user message the engine changed, as input piece j's
// blocks: each part the engine kept is its original block, each part it
// rewrote (an image it replaced by a note) a new block. The message is read
// part for part against the piece's view: as parts when it still has as
// many, or as the piece's parts joined by newlines (how the Compressor
// writes a message whose images it replaced), with each rewritten part one
// line. ok is false when it cannot be read so, or keeps no block.
func (c *Conversion) changedUser(m compact.Message, j int) (segment, bool) {
	p := &c.pieces[j]
	orig := c.hist.Messages[p.turn].Content[p.from:p.to]
	view := align.ContentParts(c.views[j])
	if len(view) != len(orig) || len(view) < 2 {
		return segment{}, false
	}
	parts, ok := align.EditedParts(c.views[j], m)
	if !ok {
		return segment{}, false
	}
	var blocks []sdk.ContentBlockParamUnion
	kept := false
	for i, part := range parts {
		if align.SamePart(view[i], part) {
			blocks = append(blocks, orig[i])
			kept = kept || strings.TrimSpace(part.Text) != "" || part.ImageURL != nil
			continue
		}
		blocks = append(blocks, contentBlocks(compact.Message{MultiContent: []openai.ChatMessagePart{part}}, true)...)
	}
	if !kept {
		return segment{}, false
	}
	return segment{role: sdk.MessageParamRoleUser, blocks: blocks, origin: p}, true
}

// updatedToolUse is tool_use block b with the name and arguments of tc; an
// input whose arguments did not change stays the original value.
func updatedToolUse(b sdk.ContentBlockParamUnion, tc openai.ToolCall) sdk.ContentBlockParamUnion {
	u := *b.OfToolUse
	if args, err := inputJSON(u.Input); err != nil || args != tc.Function.Arguments {
		u.Input = toolInput(tc.Function.Arguments)
	}
	u.Name = tc.Function.Name
	b.OfToolUse = &u
	return b
}
