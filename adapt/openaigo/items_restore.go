package openaigo

import (
	"fmt"
	"slices"

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
//
// A message of msgs with both Content and MultiContent is an error
// (compact.Validate's, naming it), since converting it would keep one and
// drop the other.
func (c *ItemConversion) Restore(msgs []compact.Message) ([]Item, error) {
	out, _, err := c.restore(msgs)
	return out, err
}

// ItemsFromMessages converts a go-openai history, with no original items
// behind it, to Responses items: a system, developer or user message to a
// message of that role, an assistant turn to a message (when it has text)
// followed by a function call for each tool call (a custom call for one of
// type "custom"), a tool message to the output of its call. Consecutive
// assistant messages (a summary apart) are one turn, as ConvertItems reads
// a run of model items: one message with their texts joined by newlines,
// then the calls of each. Reasoning
// content is left out: a reasoning item needs the id the API gave it. A
// deprecated function call or function result has no place in a Responses
// request and is an error wrapping compact.ErrInvalidHistory, and so is a
// message with both Content and MultiContent (compact.Validate's error,
// naming it). msgs is not modified.
func ItemsFromMessages(msgs []compact.Message) ([]Item, error) {
	return (&ItemConversion{}).Restore(msgs)
}

// restore is Restore, and for each message of msgs the index in the result
// of the first item it became.
func (c *ItemConversion) restore(msgs []compact.Message) ([]Item, []int, error) {
	if err := align.BothContents(msgs); err != nil {
		return nil, nil, fmt.Errorf("openaigo: %w", err)
	}
	var out []Item
	if len(c.views) == 0 {
		for _, u := range c.hist {
			out = append(out, copyItem(u)) // items that stand for no message
		}
	}
	o := align.NewOrigins(c.views, msgs, nil)
	r := &restorer{c: c, o: o, callTypes: c.callTypes()}
	starts := make([]int, 0, len(msgs))
	var run assistantRun
	for i, m := range msgs {
		starts = append(starts, len(out))
		if len(c.views) == 0 && m.Role == compact.RoleAssistant && !compact.IsSummary(m) {
			// No items behind the history (ItemsFromMessages): a run of
			// assistant messages is one turn of model items.
			if run.open {
				m, starts[i] = joinAssistant(run.m, m), run.start
			}
			items, err := r.newItems(m)
			if err != nil {
				return nil, nil, fmt.Errorf("openaigo: message %d: %w: %w", i, compact.ErrInvalidHistory, err)
			}
			out = append(out[:starts[i]], items...)
			run = assistantRun{m: m, start: starts[i], open: true}
			continue
		}
		run.open = false
		if j := o.Match[i]; j >= 0 {
			out = append(out, c.original(j)...)
			continue
		}
		if j, lead, had, ok := align.Shared(c.views, m, o.Used); ok && c.sorted.kinds[c.firstItem(c.spans[j])] == kindUser {
			o.Used[j] = true
			items, err := c.sharedUser(j, lead, had)
			if err != nil {
				return nil, nil, fmt.Errorf("openaigo: message %d: %w", i, err)
			}
			out = append(out, items...)
			continue
		}
		cand := o.Sub[i]
		if cand < 0 && i == 0 && len(c.views) > 0 {
			cand = 0 // a first message that may extend the first input message
		}
		items, err := r.changed(i, m, cand)
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

// assistantRun is the assistant messages of a history with no items behind
// it read so far in a row, as one message, and where its items start.
type assistantRun struct {
	m     compact.Message
	start int
	open  bool // the message before is one of the run
}

// joinAssistant is assistant messages a and b as one: their texts (a
// refusal after its message's text) joined by a newline, then the calls of
// both. A run of model items is one turn to ConvertItems, which reads their
// texts so, so the items of the joined message convert back to it.
func joinAssistant(a, b compact.Message) compact.Message {
	text := assistantText(a)
	if t := assistantText(b); text == "" || t == "" {
		text += t
	} else {
		text += "\n" + t
	}
	return compact.Message{Role: compact.RoleAssistant, Content: text, FunctionCall: b.FunctionCall,
		ToolCalls: append(slices.Clip(a.ToolCalls), b.ToolCalls...)}
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
	o         *align.Origins    // the input messages behind the output, and those given back already
	callTypes map[string]string // call id to item type, for new outputs
}

// replaced reports whether cand is an input message of kind k no other
// message took.
func (r *restorer) replaced(cand int, k kind) bool {
	c := r.c
	return cand >= 0 && !r.o.Used[cand] && c.sorted.kinds[c.firstItem(c.spans[cand])] == k
}

// changed converts message i of the engine's output, which the engine
// changed or wrote. cand is the input message it took the place of, or -1.
// An output or a run of model items whose call id names an input message
// no other message reproduced (by position when several have the id: see
// align.Origins) keeps that message's items with what changed written in; an assistant
// message with the reasoning of the turn it replaced is that turn; a user
// message keeps the parts it kept; a system or developer message that
// extends the one it replaced keeps its fields and parts. Anything else is
// a new item. A summary is always new.
func (r *restorer) changed(i int, m compact.Message, cand int) ([]Item, error) {
	c := r.c
	switch m.Role {
	case compact.RoleTool:
		if j, ok := r.o.Result(i, m.ToolCallID); ok {
			return c.changedOutput(j, m)
		}
	case compact.RoleAssistant:
		for _, tc := range m.ToolCalls {
			if j, ok := r.o.Call(i, tc.ID); ok {
				return r.changedGroup(j, m)
			}
		}
		if len(m.ToolCalls) == 0 && !compact.IsSummary(m) && r.replaced(cand, kindModel) &&
			m.ReasoningContent != "" && m.ReasoningContent == c.views[cand].ReasoningContent {
			r.o.Used[cand] = true
			return r.changedGroup(cand, m)
		}
	case compact.RoleUser:
		if !compact.IsSummary(m) && r.replaced(cand, kindUser) {
			if items, ok, err := c.changedUser(cand, m); err != nil || ok {
				r.o.Used[cand] = true
				return items, err
			}
		}
	case compact.RoleSystem, roleDeveloper:
		if r.replaced(cand, kindInstruction) && c.views[cand].Role == m.Role {
			if items, ok, err := c.extended(cand, m); err != nil || ok {
				r.o.Used[cand] = true
				return items, err
			}
		}
	}
	return r.newItems(m)
}
