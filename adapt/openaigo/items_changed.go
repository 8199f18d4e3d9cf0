package openaigo

import (
	"encoding/json"
	"strings"

	goopenai "github.com/sashabaranov/go-openai"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/internal/align"
)

// This file restores messages the engine changed: the original items with
// what changed written into their JSON, everything else of them (ids,
// statuses, fields the SDK does not know) as it was.

// inputText is a text part of a message or an output.
func inputText(s string) map[string]any {
	return map[string]any{"type": "input_text", "text": s}
}

// changedOutput is the output of message j with its content replaced by
// m's, in the form the original had (a string stays a string, a list of
// parts stays a list). An output whose content cannot be text (a
// screenshot, a tool search's tools, an approval) stays as it was.
func (c *ItemConversion) changedOutput(j int, m compact.Message) ([]Item, error) {
	s := c.spans[j]
	out := c.original(j)
	i := c.firstItem(s)
	w := c.wires[i]
	text := compact.Text(m)
	var set map[string]any
	switch w.Type {
	case typeFunctionCallOutput, typeCustomToolCallOutput:
		if _, isString := jsonString(w.Output); isString {
			set = map[string]any{"output": text}
			break
		}
		var parts []any
		for _, p := range align.ContentParts(m) {
			t := p.Text
			if align.IsImage(p) {
				t = imageText(p)
			}
			parts = append(parts, inputText(t))
		}
		if parts == nil {
			parts = []any{}
		}
		set = map[string]any{"output": parts}
	case typeLocalShellCallOutput, typeApplyPatchCallOutput:
		set = map[string]any{"output": text}
	case typeProgramOutput:
		set = map[string]any{"result": text}
	case typeShellCallOutput:
		entry := map[string]any{"stdout": text, "stderr": ""}
		if raws, ok := rawParts(w.Output); ok && len(raws) > 0 {
			var first map[string]json.RawMessage
			if json.Unmarshal(raws[0], &first) == nil && first["outcome"] != nil {
				entry["outcome"] = first["outcome"]
			}
		}
		set = map[string]any{"output": []any{entry}}
	default:
		return out, nil
	}
	u, err := patchItem(c.hist[i], set)
	if err != nil {
		return nil, err
	}
	out[i-s.from] = u
	return out, nil
}

// changedGroup is the run of model items of message j with m's changes
// written in. Reasoning, hosted calls and glue stay as they were, in their
// places. Each call is the original when m has it unchanged, the original
// with m's name and arguments written in when they changed (a call whose
// arguments are not text, such as a computer action, stays as it was), and
// gone when m dropped it; a call only m has is added at the end. When m's
// text differs from the turn's, the turn's messages give way to one message
// with m's text, where the first of them was.
func (r *restorer) changedGroup(j int, m compact.Message) ([]Item, error) {
	c := r.c
	s, v := c.spans[j], c.views[j]
	mc, vc := m, v
	mc.ToolCalls, vc.ToolCalls = nil, nil
	same := align.SameMessage(mc, vc)
	want := make(map[string]goopenai.ToolCall, len(m.ToolCalls))
	for _, tc := range m.ToolCalls {
		want[tc.ID] = tc
	}
	var text []Item
	if !same {
		text = groupText(m, c.hostedTexts(s))
	}
	wrote := same
	var out []Item
	for i := s.from; i < s.to; i++ {
		w, u := c.wires[i], c.hist[i]
		isMessage := c.sorted.kinds[i] == kindModel && (w.Type == typeMessage || w.Type == "")
		switch {
		case c.sorted.calls[i]:
			tc, ok := want[callID(w)]
			if !ok {
				continue // the engine dropped the call
			}
			delete(want, callID(w))
			if !wrote {
				out, wrote = append(out, text...), true
			}
			p, err := patchCall(u, w, tc)
			if err != nil {
				return nil, err
			}
			out = append(out, p)
		case isMessage && !same:
			if !wrote {
				out, wrote = append(out, text...), true
			}
		default:
			out = append(out, copyItem(u))
		}
	}
	if !wrote {
		out = append(out, text...)
	}
	for _, tc := range m.ToolCalls {
		if _, left := want[tc.ID]; left {
			out = append(out, r.newCall(tc))
		}
	}
	return out, nil
}

// hostedTexts are the texts the hosted calls of s read as.
func (c *ItemConversion) hostedTexts(s span) map[string]bool {
	out := map[string]bool{}
	for i := s.from; i < s.to; i++ {
		w := c.wires[i]
		if c.sorted.kinds[i] != kindModel || c.sorted.calls[i] || w.Type == typeMessage || w.Type == "" || w.Type == typeReasoning {
			continue
		}
		data, _ := encodeItem(c.hist[i])
		out[hostedText(w, data)] = true
	}
	return out
}

// groupText is the assistant message holding m's text, less what the
// turn's hosted calls read as (they stay items of their own) and the
// bracketed type a turn with nothing to show reads as: none when nothing is
// left.
func groupText(m compact.Message, hosted map[string]bool) []Item {
	var texts []string
	for _, p := range align.ContentParts(m) {
		t := p.Text
		if align.IsImage(p) {
			t = imageText(p)
		}
		if hosted[t] || isBracketedType(t) && len(m.MultiContent) == 0 {
			continue
		}
		texts = append(texts, t)
	}
	if m.Refusal != "" {
		texts = append(texts, m.Refusal)
	}
	if len(texts) == 0 {
		return nil
	}
	return []Item{easyMessage(compact.RoleAssistant, strings.Join(texts, "\n"))}
}

// isBracketedType reports whether t is what a turn with nothing to show
// reads as, such as "[reasoning]".
func isBracketedType(t string) bool {
	return strings.HasPrefix(t, "[") && strings.HasSuffix(t, "]") && !strings.ContainsAny(t, " \n")
}

// patchCall is call item u (read as w) with tc's name and arguments: u
// itself when they are the same, and u when its arguments are not text.
func patchCall(u Item, w wire, tc goopenai.ToolCall) (Item, error) {
	if align.SameCall(callView(w), tc) {
		return copyItem(u), nil
	}
	switch w.Type {
	case typeFunctionCall:
		return patchItem(u, map[string]any{"name": tc.Function.Name, "arguments": tc.Function.Arguments})
	case typeCustomToolCall:
		return patchItem(u, map[string]any{"name": tc.Function.Name, "input": tc.Function.Arguments})
	case typeMcpApprovalRequest:
		return patchItem(u, map[string]any{"arguments": tc.Function.Arguments})
	}
	return copyItem(u), nil
}

// changedUser is the user message of message j with m's content: a string
// stays a string; a list keeps each part m kept (read part for part against
// the original's view, or as the view's parts joined by newlines, as the
// Compressor writes a message whose images it replaced) and has a new part
// for each part m rewrote. ok is false when m cannot be read so, or keeps
// no part of it.
func (c *ItemConversion) changedUser(j int, m compact.Message) ([]Item, bool, error) {
	s := c.spans[j]
	i := c.firstItem(s)
	w := c.wires[i]
	var content any
	if _, isString := jsonString(w.Content); isString {
		if len(m.MultiContent) > 0 {
			return nil, false, nil
		}
		content = m.Content
	} else {
		raws, ok := rawParts(w.Content)
		view := c.views[j].MultiContent
		if !ok || len(raws) != len(view) {
			return nil, false, nil
		}
		parts := m.MultiContent
		if len(parts) != len(view) {
			if parts, ok = align.ReadAsParts(m.Content, view); !ok || len(m.MultiContent) > 0 {
				return nil, false, nil
			}
		}
		list := make([]any, 0, len(parts))
		kept := false
		for k, p := range parts {
			if align.SamePart(view[k], p) {
				list = append(list, raws[k])
				kept = kept || strings.TrimSpace(p.Text) != "" || p.ImageURL != nil
				continue
			}
			list = append(list, partJSON(p, true))
		}
		if !kept {
			return nil, false, nil
		}
		content = list
	}
	if m.Name != c.views[j].Name {
		return nil, false, nil
	}
	u, err := patchItem(c.hist[i], map[string]any{"content": content})
	if err != nil {
		return nil, false, err
	}
	out := c.original(j)
	out[i-s.from] = u
	return out, true, nil
}

// sharedUser is the user message j with lead (a summary merged in front of
// it, see align.Shared) before its content, in place of the summary it had
// when had: joined to a string, or as a leading text part of a list.
// Everything else of its items stays as it was.
func (c *ItemConversion) sharedUser(j int, lead string, had bool) ([]Item, error) {
	s := c.spans[j]
	i := c.firstItem(s)
	var content any = []any{inputText(lead)}
	if str, isString := jsonString(c.wires[i].Content); isString {
		content = align.JoinLead(lead, align.OwnText(str))
	} else if raws, ok := rawParts(c.wires[i].Content); ok {
		if had && len(raws) > 0 {
			raws = raws[1:]
		}
		for _, raw := range raws {
			content = append(content.([]any), raw)
		}
	}
	u, err := patchItem(c.hist[i], map[string]any{"content": content})
	if err != nil {
		return nil, err
	}
	out := c.original(j)
	out[i-s.from] = u
	return out, nil
}

// extended is the system or developer message of message j with text added
// at its end (as the Compressor adds its note): a string content the longer
// string, a list its parts and a text part for each addition. An item that
// acts as a developer message without being one (additional tools, a
// configuration update) stays as it was, and a developer message with the
// additions follows it.
func (c *ItemConversion) extended(j int, m compact.Message) ([]Item, bool, error) {
	extra, ok := align.Extension(c.views[j], m)
	if !ok || m.Name != c.views[j].Name {
		return nil, false, nil
	}
	s := c.spans[j]
	i := c.firstItem(s)
	w := c.wires[i]
	out := c.original(j)
	if w.Type == typeAdditionalTools || w.Type == typeConfigurationUpdate {
		if len(extra) > 0 {
			out = append(out, easyMessage(roleDeveloper, strings.Join(extra, compactionNoteSep)))
		}
		return out, true, nil
	}
	var content any = compact.Text(m)
	if raws, isList := rawParts(w.Content); isList {
		list := make([]any, 0, len(raws)+len(extra))
		for _, r := range raws {
			list = append(list, r)
		}
		for _, t := range extra {
			list = append(list, inputText(t))
		}
		content = list
	}
	u, err := patchItem(c.hist[i], map[string]any{"content": content})
	if err != nil {
		return nil, false, err
	}
	out[i-s.from] = u
	return out, true, nil
}

// compactionNoteSep separates a note from what it follows, as the
// Compressor separates its note from the system prompt.
const compactionNoteSep = "\n\n"
