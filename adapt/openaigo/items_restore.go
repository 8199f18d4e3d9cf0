package openaigo

import (
	"fmt"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/internal/align"
)

// Restore converts msgs, an engine's output for c.Messages, back to items.
// Every message the engine kept unchanged comes back as the original items
// it stands for (the same values, byte for byte when encoded), reasoning
// included; messages the engine changed or wrote are converted as the
// package doc describes. It does not modify msgs.
//
// A restored item is a copy of the original's variant struct; values
// nested deeper are shared with the history c was made from. Neither is
// modified here, so a host that changes them in place should copy them
// first.
func (c *ItemConversion) Restore(msgs []compact.Message) ([]Item, error) {
	out, _, err := c.restore(msgs)
	return out, err
}

// ItemsFromMessages converts a go-openai history, with no original items
// behind it, to Responses items: a system, developer or user message to a
// message of that role, an assistant turn to a message (when it has text)
// followed by a function call for each tool call (a custom call for one of
// type "custom"), a tool message to the output of its call. Reasoning
// content is left out: a reasoning item needs the id the API gave it. A
// deprecated function call or function result has no place in a Responses
// request and is an error wrapping compact.ErrInvalidHistory. msgs is not
// modified.
func ItemsFromMessages(msgs []compact.Message) ([]Item, error) {
	return (&ItemConversion{}).Restore(msgs)
}

// restore is Restore, and for each message of msgs the index in the result
// of the first item it became.
func (c *ItemConversion) restore(msgs []compact.Message) ([]Item, []int, error) {
	var out []Item
	if len(c.views) == 0 {
		for _, u := range c.hist {
			out = append(out, copyItem(u)) // items that stand for no message
		}
	}
	match, sub := align.Messages(c.views, msgs)
	r := &restorer{c: c, used: make([]bool, len(c.views)), ids: c.idIndex(), callTypes: c.callTypes()}
	for _, j := range match {
		if j >= 0 {
			r.used[j] = true
		}
	}
	starts := make([]int, 0, len(msgs))
	for i, m := range msgs {
		starts = append(starts, len(out))
		if j := match[i]; j >= 0 {
			out = append(out, c.original(j)...)
			continue
		}
		if j, lead, had, ok := align.Shared(c.views, m, r.used); ok && c.sorted.kinds[c.firstItem(c.spans[j])] == kindUser {
			r.used[j] = true
			items, err := c.sharedUser(j, lead, had)
			if err != nil {
				return nil, nil, fmt.Errorf("openaigo: message %d: %w", i, err)
			}
			out = append(out, items...)
			continue
		}
		cand := sub[i]
		if cand < 0 && i == 0 && len(c.views) > 0 {
			cand = 0 // a first message that may extend the first input message
		}
		items, err := r.changed(m, cand)
		if err != nil {
			return nil, nil, fmt.Errorf("openaigo: message %d: %w: %w", i, compact.ErrInvalidHistory, err)
		}
		out = append(out, items...)
	}
	if len(out) == 0 && len(c.hist) == 0 {
		return c.hist, starts, nil
	}
	return out, starts, nil
}

// original returns copies of the items message j stands for.
func (c *ItemConversion) original(j int) []Item {
	s := c.spans[j]
	out := make([]Item, 0, s.to-s.from)
	for _, u := range c.hist[s.from:s.to] {
		out = append(out, copyItem(u))
	}
	return out
}

// idIndex maps the ids of the input's outputs and calls to their
// messages, as the Chat Completions conversion does.
func (c *ItemConversion) idIndex() ids {
	x := ids{results: map[string]int{}, calls: map[string]int{}}
	for j, v := range c.views {
		switch v.Role {
		case compact.RoleTool:
			putID(x.results, v.ToolCallID, j)
		case compact.RoleAssistant:
			for _, call := range v.ToolCalls {
				putID(x.calls, call.ID, j)
			}
		}
	}
	return x
}

// callTypes maps the id of every call of the input to its item type.
func (c *ItemConversion) callTypes() map[string]string {
	out := map[string]string{}
	for i, w := range c.wires {
		if c.sorted.calls[i] {
			out[callID(w)] = w.Type
		}
	}
	return out
}

// restorer restores the messages an engine changed or wrote.
type restorer struct {
	c         *ItemConversion
	used      []bool // input messages already given back
	ids       ids
	callTypes map[string]string // call id to item type, for new outputs
}

// origin returns the input message id names in in, when no other message
// took it yet, and takes it.
func (r *restorer) origin(id string, in map[string]int) (int, bool) {
	j, ok := in[id]
	if !ok || j < 0 || r.used[j] {
		return 0, false
	}
	r.used[j] = true
	return j, true
}

// replaced reports whether cand is an input message of kind k no other
// message took.
func (r *restorer) replaced(cand int, k kind) bool {
	c := r.c
	return cand >= 0 && !r.used[cand] && c.sorted.kinds[c.firstItem(c.spans[cand])] == k
}

// changed converts a message the engine changed or wrote. cand is the
// input message it took the place of, or -1. An output or a run of model
// items whose call id names an input message no other message reproduced
// keeps that message's items with what changed written in; an assistant
// message with the reasoning of the turn it replaced is that turn; a user
// message keeps the parts it kept; a system or developer message that
// extends the one it replaced keeps its fields and parts. Anything else is
// a new item. A summary is always new.
func (r *restorer) changed(m compact.Message, cand int) ([]Item, error) {
	c := r.c
	switch m.Role {
	case compact.RoleTool:
		if j, ok := r.origin(m.ToolCallID, r.ids.results); ok {
			return c.changedOutput(j, m)
		}
	case compact.RoleAssistant:
		for _, tc := range m.ToolCalls {
			if j, ok := r.origin(tc.ID, r.ids.calls); ok {
				return r.changedGroup(j, m)
			}
		}
		if len(m.ToolCalls) == 0 && !compact.IsSummary(m) && r.replaced(cand, kindModel) &&
			m.ReasoningContent != "" && m.ReasoningContent == c.views[cand].ReasoningContent {
			r.used[cand] = true
			return r.changedGroup(cand, m)
		}
	case compact.RoleUser:
		if !compact.IsSummary(m) && r.replaced(cand, kindUser) {
			if items, ok, err := c.changedUser(cand, m); err != nil || ok {
				r.used[cand] = true
				return items, err
			}
		}
	case compact.RoleSystem, roleDeveloper:
		if r.replaced(cand, kindInstruction) && c.views[cand].Role == m.Role {
			if items, ok, err := c.extended(cand, m); err != nil || ok {
				r.used[cand] = true
				return items, err
			}
		}
	}
	return r.newItems(m)
}
