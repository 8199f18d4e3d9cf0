// Package memo remembers what is worked out from chat messages, so work
// done once per message is not done again when a grown history comes back,
// and keys it so a changed message is never served stale.
//
// It is the module's one place that tells messages apart: Hash, a hash of
// every field of a message for a memo that must not hold the message (the
// token counter's); and Table, a memo that holds a deep copy of each
// message it remembers and serves a value only to a message Equal to it,
// field by field, so nothing is served on a hash's word. Equal compares
// strings that share their bytes (as a host's history shares them from one
// call to the next, and a compacted history with its input) without
// reading them, so checking a remembered message costs a few comparisons,
// whatever its length; a message decoded afresh is compared byte for byte,
// which is still cheaper than the work a Table saves.
package memo

import (
	"encoding/binary"
	"hash/maphash"

	openai "github.com/sashabaranov/go-openai"
)

// Message is go-openai's chat message, as compact.Message aliases it.
type Message = openai.ChatCompletionMessage

// Hash returns a hash of every field of m under seed, each written with a
// tag and its length, so that moving text from one field to another, or
// across a field's boundary, changes it.
func Hash(seed maphash.Seed, m Message) uint64 {
	var h maphash.Hash
	h.SetSeed(seed)
	field := func(tag byte, s string) {
		var hdr [9]byte
		hdr[0] = tag
		binary.LittleEndian.PutUint64(hdr[1:], uint64(len(s)))
		_, _ = h.Write(hdr[:])
		_, _ = h.WriteString(s)
	}
	field('r', m.Role)
	field('n', m.Name)
	field('d', m.ToolCallID)
	field('c', m.Content)
	for _, p := range m.MultiContent {
		field('p', string(p.Type))
		field('t', p.Text)
		if u := p.ImageURL; u != nil {
			field('u', u.URL)
			field('l', string(u.Detail))
		}
	}
	field('x', m.Refusal)
	field('z', m.ReasoningContent)
	for _, c := range m.ToolCalls {
		if c.Index != nil {
			var idx [8]byte
			binary.LittleEndian.PutUint64(idx[:], uint64(*c.Index))
			field('#', string(idx[:]))
		}
		field('I', c.ID)
		field('y', string(c.Type))
		field('T', c.Function.Name)
		field('a', c.Function.Arguments)
	}
	if fc := m.FunctionCall; fc != nil {
		field('F', fc.Name)
		field('A', fc.Arguments)
	}
	field('/', "") // the end of a message
	return h.Sum64()
}

// Equal reports whether a and b are the same message, field by field
// (a tool call's Index by value).
func Equal(a, b Message) bool {
	if a.Role != b.Role || a.Content != b.Content || a.Refusal != b.Refusal ||
		a.Name != b.Name || a.ReasoningContent != b.ReasoningContent ||
		a.ToolCallID != b.ToolCallID || len(a.MultiContent) != len(b.MultiContent) ||
		len(a.ToolCalls) != len(b.ToolCalls) {
		return false
	}
	if (a.FunctionCall == nil) != (b.FunctionCall == nil) ||
		(a.FunctionCall != nil && *a.FunctionCall != *b.FunctionCall) {
		return false
	}
	for i, p := range a.MultiContent {
		q := b.MultiContent[i]
		if p.Type != q.Type || p.Text != q.Text || (p.ImageURL == nil) != (q.ImageURL == nil) ||
			(p.ImageURL != nil && *p.ImageURL != *q.ImageURL) {
			return false
		}
	}
	for i, c := range a.ToolCalls {
		d := b.ToolCalls[i]
		if c.ID != d.ID || c.Type != d.Type || c.Function != d.Function ||
			(c.Index == nil) != (d.Index == nil) || (c.Index != nil && *c.Index != *d.Index) {
			return false
		}
	}
	return true
}

// Clone returns a deep copy of m: nothing a caller may change in place
// (a slice's elements, a pointed-to struct) is shared; strings, which
// nothing changes, are. Nil and empty slices keep their nil-ness, so a
// clone compares equal to its original with reflect.DeepEqual.
func Clone(m Message) Message {
	out := m
	if m.MultiContent != nil {
		out.MultiContent = make([]openai.ChatMessagePart, len(m.MultiContent))
		for i, p := range m.MultiContent {
			if p.ImageURL != nil {
				u := *p.ImageURL
				p.ImageURL = &u
			}
			out.MultiContent[i] = p
		}
	}
	if m.FunctionCall != nil {
		fc := *m.FunctionCall
		out.FunctionCall = &fc
	}
	if m.ToolCalls != nil {
		out.ToolCalls = make([]openai.ToolCall, len(m.ToolCalls))
		for i, c := range m.ToolCalls {
			if c.Index != nil {
				idx := *c.Index
				c.Index = &idx
			}
			out.ToolCalls[i] = c
		}
	}
	return out
}
