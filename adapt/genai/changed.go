package genai

import (
	"slices"
	"strings"

	openai "github.com/sashabaranov/go-openai"
	sdk "google.golang.org/genai"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/internal/align"
)

// This file restores messages: those the engine kept (their original
// parts) and those it changed (as much of the original as still holds).

// exactSegment is piece j, which the engine kept unchanged.
func (c *Conversion) exactSegment(j int) segment {
	p := &c.pieces[j]
	if p.content == systemContent {
		return segment{top: true, sys: c.hist.System, exact: true}
	}
	return segment{role: c.hist.Contents[p.content].Role, parts: pick(c.parts[p.content], p.idx),
		idx: p.idx, origin: p, exact: true}
}

// withLead returns s, a user piece's segment, with lead (a summary merged
// in front of it, see align.Shared) as a text part before its parts, in
// place of the summary the first of them held when had.
func withLead(s segment, lead string, had bool) segment {
	parts, idx := s.parts, s.idx
	if had && len(parts) > 0 && parts[0].Text != "" {
		if own := align.OwnText(parts[0].Text); own == "" {
			parts, idx = parts[1:], idx[1:]
		} else {
			p := *parts[0]
			p.Text = own
			parts = append([]*sdk.Part{&p}, parts[1:]...)
		}
	}
	s.parts = append([]*sdk.Part{{Text: lead}}, parts...)
	s.idx = append([]int{-1}, idx...)
	s.exact = false
	return s
}

// changedSegment converts message i of the engine's output, which the
// engine changed or wrote; leading says no content precedes it. A function
// response or a model content with calls whose id names an input piece no
// other message reproduced (by position when several have the id: see
// align.Origins) keeps that piece's other fields; a user message that holds
// a summary merged in front of an input piece's own parts (see
// align.Shared) is that piece with the summary as a leading text part; a
// user message that reads part for part as the piece it replaced keeps the
// parts it kept; a leading system message that extends the system
// instruction keeps its parts. false means the role has no place in a
// History.
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
				return c.changedModel(m, j), true
			}
		}
	case compact.RoleUser:
		if j, lead, had, ok := align.Shared(c.views, m, used); ok && c.pieces[j].content != systemContent {
			used[j] = true
			return withLead(c.exactSegment(j), lead, had), true
		}
		if sub >= 0 && !used[sub] && c.views[sub].Role == compact.RoleUser {
			if s, ok := c.changedUser(m, sub); ok {
				used[sub] = true
				return s, true
			}
		}
	case compact.RoleSystem, roleDeveloper:
		if leading && len(c.pieces) > 0 && c.pieces[0].content == systemContent && !used[0] {
			if extra, ok := align.Extension(c.views[0], m); ok {
				used[0] = true
				sys := *c.hist.System
				sys.Parts = slices.Clone(sys.Parts)
				for _, t := range extra {
					sys.Parts = append(sys.Parts, &sdk.Part{Text: t})
				}
				return segment{top: true, sys: &sys}, true
			}
		}
	}
	return c.newSegment(m, leading, names)
}

// changedResponse is a tool message the engine changed, as input piece
// j's function response with the new output. The response keeps its id,
// name and other fields, and the part its own fields (a thought signature,
// metadata); its own parts stay when their images are still in the
// message, and go when the engine replaced them.
func (c *Conversion) changedResponse(m compact.Message, j int) segment {
	p := &c.pieces[j]
	i := p.idx[0]
	orig := c.parts[p.content][i]
	part := *orig
	fr := *orig.FunctionResponse
	var texts []string
	kept := map[string]bool{}
	for _, q := range align.ContentParts(m) {
		if align.IsImage(q) && q.ImageURL != nil {
			kept[q.ImageURL.URL] = true
			continue
		}
		texts = append(texts, q.Text)
	}
	fr.Parts = nil
	for _, rp := range orig.FunctionResponse.Parts {
		if v := responsePartView(rp); align.IsImage(v) && kept[v.ImageURL.URL] {
			fr.Parts = append(fr.Parts, rp)
		}
	}
	fr.Response = newResponse(orig.FunctionResponse.Response, strings.Join(texts, "\n"))
	part.FunctionResponse = &fr
	return segment{role: c.hist.Contents[p.content].Role, parts: []*sdk.Part{&part}, idx: []int{i}, origin: p}
}

// newResponse is a response holding text in place of orig: under orig's
// one key when orig held one text ("key: " read back off it), else as the
// output.
func newResponse(orig map[string]any, text string) map[string]any {
	if len(orig) == 1 {
		for k, v := range orig {
			if _, ok := v.(string); ok {
				if k != outputKey {
					text = strings.TrimPrefix(text, k+": ")
				}
				return map[string]any{k: text}
			}
		}
	}
	return map[string]any{outputKey: text}
}

// changedModel is an assistant message the engine changed, as input piece
// j's model content. When only the calls changed: the original parts in
// their order, each function call updated or, when its call is gone, left
// out, and new calls at the end. Otherwise: the original thoughts (and
// signature-only parts) when the reasoning is unchanged, the new content,
// then the calls, each keeping its original part's other fields (its
// thought signature above all: Gemini 3 refuses a call without it).
func (c *Conversion) changedModel(m compact.Message, j int) segment {
	p := &c.pieces[j]
	orig := c.parts[p.content]
	v := c.views[j]
	tcs := m.ToolCalls
	v.ToolCalls, m.ToolCalls = nil, nil // v and m are copies
	viewID := c.viewIDs(j)
	s := segment{role: c.hist.Contents[p.content].Role, origin: p}
	add := func(part *sdk.Part, i int) {
		s.parts, s.idx = append(s.parts, part), append(s.idx, i)
	}
	pending := make(map[string]openai.ToolCall, len(tcs))
	for _, tc := range tcs {
		if _, dup := pending[tc.ID]; !dup {
			pending[tc.ID] = tc
		}
	}
	if align.SameMessage(v, m) {
		for i, part := range orig {
			if part.FunctionCall == nil {
				add(part, i)
				continue
			}
			if tc, ok := pending[viewID[i]]; ok {
				add(updatedCall(part, tc), i)
				delete(pending, viewID[i])
			}
		}
	} else {
		byID := map[string]int{}
		for i, part := range orig {
			switch {
			case part.FunctionCall != nil:
				byID[viewID[i]] = i
			case isText(part) && (part.Thought || part.Text == "") && m.ReasoningContent == v.ReasoningContent:
				add(part, i)
			}
		}
		for _, part := range c.modelParts(m) {
			add(part, -1)
		}
		for _, tc := range tcs {
			if _, open := pending[tc.ID]; !open {
				continue
			}
			delete(pending, tc.ID)
			if i, ok := byID[tc.ID]; ok {
				add(updatedCall(orig[i], tc), i)
			} else {
				add(c.callPart(tc), -1)
			}
		}
	}
	for _, tc := range tcs { // only the first branch leaves any
		if _, ok := pending[tc.ID]; ok {
			add(c.callPart(tc), -1)
			delete(pending, tc.ID)
		}
	}
	return s
}

// viewIDs returns, for each part of piece j's model content, the view id
// of its function call ("" for other parts).
func (c *Conversion) viewIDs(j int) []string {
	orig := c.parts[c.pieces[j].content]
	out := make([]string, len(orig))
	n := 0
	for i, part := range orig {
		if part.FunctionCall != nil && n < len(c.views[j].ToolCalls) {
			out[i] = c.views[j].ToolCalls[n].ID
			n++
		}
	}
	return out
}

// updatedCall is function call part part with the name and arguments of
// tc: part itself when they did not change, else a copy whose arguments
// stay the original value when only the name changed.
func updatedCall(part *sdk.Part, tc openai.ToolCall) *sdk.Part {
	fc := *part.FunctionCall
	args, err := argsJSON(fc.Args)
	same := err == nil && args == tc.Function.Arguments
	if same && fc.Name == tc.Function.Name {
		return part
	}
	out := *part
	if !same {
		fc.Args = callArgs(tc.Function.Arguments)
	}
	fc.Name = tc.Function.Name
	out.FunctionCall = &fc
	return &out
}

// changedUser is a user message the engine changed, as input piece j's
// parts: each part the engine kept is its original part, each part it
// rewrote (an image it replaced by a note) a new text part. ok is false
// when the message does not read part for part as the piece (see
// align.EditedParts), or keeps none of its parts.
func (c *Conversion) changedUser(m compact.Message, j int) (segment, bool) {
	p := &c.pieces[j]
	orig := pick(c.parts[p.content], p.idx)
	view := align.ContentParts(c.views[j])
	if len(view) != len(orig) {
		return segment{}, false
	}
	parts, ok := align.EditedParts(c.views[j], m)
	if !ok {
		return segment{}, false
	}
	s := segment{role: c.hist.Contents[p.content].Role, origin: p}
	kept := false
	for i, part := range parts {
		if align.SamePart(view[i], part) {
			s.parts, s.idx = append(s.parts, orig[i]), append(s.idx, p.idx[i])
			kept = kept || strings.TrimSpace(part.Text) != "" || part.ImageURL != nil
			continue
		}
		for _, np := range contentParts(compact.Message{MultiContent: []openai.ChatMessagePart{part}}, true) {
			s.parts, s.idx = append(s.parts, np), append(s.idx, p.idx[i])
		}
	}
	if !kept {
		return segment{}, false
	}
	return s, true
}
