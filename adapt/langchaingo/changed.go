package langchaingo

import (
	"strings"

	openai "github.com/sashabaranov/go-openai"
	"github.com/tmc/langchaingo/llms"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/internal/align"
)

// This file restores messages: those the engine kept (their original
// parts) and those it changed (as much of the original as still holds).

// exactSegment is piece j, which the engine kept unchanged.
func (c *Conversion) exactSegment(j int) segment {
	p := &c.pieces[j]
	return segment{role: c.hist[p.msg].Role, parts: pick(c.parts[p.msg], p.idx), idx: p.idx, origin: p, exact: true}
}

// withLead returns s, a user piece's segment, with lead (a summary merged
// in front of it, see align.Shared) as a text part before its parts, in
// place of the summary the first of them held when had (that part keeps
// its form, a pointer or a cache wrapper, when text of its own is left).
func withLead(s segment, lead string, had bool) segment {
	parts, idx := s.parts, s.idx
	if had && len(parts) > 0 {
		text, _ := asText(parts[0])
		if own := align.OwnText(text.Text); own == "" {
			parts, idx = parts[1:], idx[1:]
		} else if own != text.Text {
			text.Text = own
			parts = append([]llms.ContentPart{inForm(parts[0], text)}, parts[1:]...)
		}
	}
	s.parts = append([]llms.ContentPart{llms.TextContent{Text: lead}}, parts...)
	s.idx = append([]int{-1}, idx...)
	s.exact = false
	return s
}

// changedSegment converts message i of the engine's output, which the
// engine changed or wrote. A tool response or an AI message with calls
// whose id names an input piece no other message reproduced (by position
// when several have the id: see align.Origins) keeps that piece's other
// parts and fields; a human message that holds a summary merged in front
// of an input piece's own parts (see align.Shared) is that piece with the
// summary as a leading text part; a human or system
// message that reads part for part as the piece it replaced keeps the
// parts it kept, and one that extends it (a leading system message extends
// the input's leading one) keeps its parts and gets the addition as more
// text parts. leading says no message precedes it. false means
// the role has no place in a langchaingo history.
func (c *Conversion) changedSegment(m compact.Message, i int, leading bool, o *align.Origins,
	names map[string]string) (segment, bool) {
	sub, used := o.Sub[i], o.Used
	switch m.Role {
	case compact.RoleTool:
		if j, ok := o.Result(i, m.ToolCallID); ok {
			return c.changedResponse(m, j), true
		}
	case compact.RoleAssistant:
		if len(m.ToolCalls) > 0 {
			if j, ok := o.Call(i, m.ToolCalls[0].ID); ok {
				return c.changedAI(m, j), true
			}
		}
	case compact.RoleSystem:
		// A leading system message extends the input's leading one, whatever
		// the alignment paired it with.
		if leading && len(c.views) > 0 && c.views[0].Role == compact.RoleSystem {
			sub = 0
		}
		fallthrough
	case compact.RoleUser:
		if j, lead, had, ok := align.Shared(c.views, m, used); ok && m.Role == compact.RoleUser {
			used[j] = true
			return withLead(c.exactSegment(j), lead, had), true
		}
		if sub >= 0 && !used[sub] && c.views[sub].Role == m.Role {
			if s, ok := c.changedUser(m, sub); ok {
				used[sub] = true
				return s, true
			}
		}
	}
	return newSegment(m, names)
}

// changedResponse is a tool message the engine changed, as input piece j's
// tool call response with the new content, in the part's form (see
// inForm).
func (c *Conversion) changedResponse(m compact.Message, j int) segment {
	p := &c.pieces[j]
	i := p.idx[0]
	orig := c.parts[p.msg][i]
	r, _ := asResponse(orig)
	r.Content = compact.Text(m)
	return segment{role: c.hist[p.msg].Role, parts: []llms.ContentPart{inForm(orig, r)}, idx: []int{i}, origin: p}
}

// changedAI is an assistant message the engine changed, as input piece j's
// parts. When only the calls changed: the original parts in their order,
// each call updated or, when it is gone, left out, and new calls at the
// end. Otherwise: the new content, then the calls, each keeping its
// original part's type.
func (c *Conversion) changedAI(m compact.Message, j int) segment {
	p := &c.pieces[j]
	orig := c.parts[p.msg]
	v := c.views[j]
	calls := m.ToolCalls
	v.ToolCalls, m.ToolCalls = nil, nil // v and m are copies
	s := segment{role: c.hist[p.msg].Role, origin: p}
	add := func(part llms.ContentPart, i int) { s.parts, s.idx = append(s.parts, part), append(s.idx, i) }
	pending := make(map[string]openai.ToolCall, len(calls))
	for _, tc := range calls {
		if _, dup := pending[tc.ID]; !dup {
			pending[tc.ID] = tc
		}
	}
	byID := map[string]int{}
	for i, part := range orig {
		if tc, ok := asCall(part); ok {
			byID[tc.ID] = i
		}
	}
	if align.SameMessage(v, m) {
		for i, part := range orig {
			tc, ok := asCall(part)
			if !ok {
				add(part, i)
				continue
			}
			if call, open := pending[tc.ID]; open {
				add(updatedCall(part, tc, call), i)
				delete(pending, tc.ID)
			}
		}
	} else {
		for _, part := range aiParts(m) {
			add(part, -1)
		}
	}
	for _, call := range calls {
		if _, open := pending[call.ID]; !open {
			continue
		}
		delete(pending, call.ID)
		if i, ok := byID[call.ID]; ok {
			tc, _ := asCall(orig[i])
			add(updatedCall(orig[i], tc, call), i)
		} else {
			add(callPart(call), -1)
		}
	}
	return s
}

// updatedCall is tool call part part (tc read from it) with the name and
// arguments of call: part itself when they did not change, else the new
// call in part's form (see inForm).
func updatedCall(part llms.ContentPart, tc llms.ToolCall, call openai.ToolCall) llms.ContentPart {
	if align.SameCall(callView(tc), call) {
		return part
	}
	tc.FunctionCall = &llms.FunctionCall{Name: call.Function.Name, Arguments: call.Function.Arguments}
	return inForm(part, tc)
}

// changedUser is a human or system message the engine changed, as input
// piece j's parts: each part the engine kept is its original part, each
// part it rewrote (an image it replaced by a note) a new text part, and
// text the engine added at the end (the Compressor's note on a system
// prompt) more text parts. ok is false when the message reads neither way,
// or keeps none of the piece's parts.
func (c *Conversion) changedUser(m compact.Message, j int) (segment, bool) {
	p := &c.pieces[j]
	orig := pick(c.parts[p.msg], p.idx)
	s := segment{role: c.hist[p.msg].Role, origin: p}
	if extra, ok := align.Extension(c.views[j], m); ok && len(orig) > 0 {
		s.parts, s.idx = orig, p.idx
		for _, t := range extra {
			s.parts, s.idx = append(s.parts, llms.TextContent{Text: t}), append(s.idx, len(c.parts[p.msg]))
		}
		return s, true
	}
	view := align.ContentParts(c.views[j])
	parts, ok := align.EditedParts(c.views[j], m)
	if !ok || len(view) != len(orig) {
		return segment{}, false
	}
	kept := false
	for i, part := range parts {
		if align.SamePart(view[i], part) {
			s.parts, s.idx = append(s.parts, orig[i]), append(s.idx, p.idx[i])
			kept = kept || strings.TrimSpace(part.Text) != "" || part.ImageURL != nil
			continue
		}
		for _, np := range contentParts(compact.Message{MultiContent: []openai.ChatMessagePart{part}}) {
			s.parts, s.idx = append(s.parts, inForm(orig[i], np)), append(s.idx, p.idx[i])
		}
	}
	if !kept {
		return segment{}, false
	}
	return s, true
}
