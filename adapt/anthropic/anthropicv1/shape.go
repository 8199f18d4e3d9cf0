package anthropicv1

import (
	"slices"

	sdk "github.com/anthropics/anthropic-sdk-go"
)

// continuationText opens a restored history whose first turn would
// otherwise be the assistant's: the API wants a user turn first.
const continuationText = "(continued from earlier turns)"

// turnOut is one turn of a restored history while it is assembled.
type turnOut struct {
	role   sdk.MessageParamRole
	blocks []sdk.ContentBlockParamUnion
	// first and from locate its first block in the input (first is -1 for
	// a new turn); last and to locate the end of its last block.
	first, from, last, to int
	exact                 bool // all blocks are one input turn's, unchanged
}

// shape assembles segments into turns: segments that were neighbours in
// one input turn join again, an input turn that came through whole is the
// original value, and turns of the same role that compaction put side by
// side merge. A history that would open on a non-user turn it did not open
// on before (the Compressor's summary is an assistant turn when a user turn
// follows it) opens on a short user turn that says earlier turns were
// compacted; the turns after it stay as they are.
func (c *Conversion) shape(segs []segment) []sdk.MessageParam {
	var turns []turnOut
	for _, s := range segs {
		if n := len(turns); n > 0 && s.origin != nil {
			t := &turns[n-1]
			if t.last == s.origin.turn && t.to == s.origin.from && t.role == s.role {
				t.blocks = append(t.blocks, s.blocks...)
				t.to = s.origin.to
				t.exact = t.exact && s.exact
				continue
			}
		}
		t := turnOut{role: s.role, blocks: s.blocks, first: -1, last: -1}
		if s.origin != nil {
			t.first, t.from, t.last, t.to, t.exact = s.origin.turn, s.origin.from, s.origin.turn, s.origin.to, s.exact
		}
		if len(t.blocks) == 0 && !t.exact {
			continue // a message with nothing the API can carry
		}
		turns = append(turns, t)
	}

	var out []turnOut
	for _, t := range turns {
		if n := len(out); n > 0 && out[n-1].role == t.role && !c.inputSeam(out[n-1], t) {
			merge(&out[n-1], t)
			continue
		}
		out = append(out, t)
	}

	if len(out) > 0 && out[0].role != sdk.MessageParamRoleUser && !(out[0].first == 0 && out[0].from == 0) {
		lead := turnOut{role: sdk.MessageParamRoleUser, first: -1, last: -1,
			blocks: []sdk.ContentBlockParamUnion{sdk.NewTextBlock(continuationText)}}
		out = append([]turnOut{lead}, out...)
	}

	msgs := make([]sdk.MessageParam, 0, len(out))
	for _, t := range out {
		msgs = append(msgs, c.emit(t))
	}
	return msgs
}

// inputSeam reports whether b follows a in the input: a ends where an input
// turn ends and b starts the next one. Such neighbours stay apart even when
// their roles match, so a history converts back to itself.
func (c *Conversion) inputSeam(a, b turnOut) bool {
	return a.last >= 0 && b.first == a.last+1 && b.from == 0 &&
		a.to == len(c.hist.Messages[a.last].Content)
}

// merge appends b's blocks to a. In an assistant turn the tool_use
// blocks of both then follow all their other blocks, in their order: a turn
// converts to one message, its text before its calls, so a turn whose text
// followed a call would come back reordered.
func merge(a *turnOut, b turnOut) {
	a.blocks = append(slices.Clip(a.blocks), b.blocks...)
	if a.role == sdk.MessageParamRoleAssistant {
		a.blocks = callsLast(a.blocks)
	}
	a.exact = false
	if b.last >= 0 {
		a.last, a.to = b.last, b.to
	} else {
		a.last, a.to = -1, 0
	}
}

// emit is a turn as a MessageParam: the input turn itself when the turn is
// all of it, unchanged; otherwise the input turn it starts in (keeping any
// fields set on it) with the turn's blocks; otherwise a new MessageParam.
func (c *Conversion) emit(t turnOut) sdk.MessageParam {
	if t.first < 0 {
		return sdk.MessageParam{Role: t.role, Content: t.blocks}
	}
	m := c.hist.Messages[t.first]
	if t.exact && t.from == 0 && t.last == t.first && t.to == len(m.Content) {
		m.Content = slices.Clone(m.Content)
		return m
	}
	m.Role, m.Content = t.role, t.blocks
	return m
}

// callsLast returns blocks with the tool_use blocks after the others, each
// kind in its order.
func callsLast(blocks []sdk.ContentBlockParamUnion) []sdk.ContentBlockParamUnion {
	out := make([]sdk.ContentBlockParamUnion, 0, len(blocks))
	for _, b := range blocks {
		if b.OfToolUse == nil {
			out = append(out, b)
		}
	}
	for _, b := range blocks {
		if b.OfToolUse != nil {
			out = append(out, b)
		}
	}
	return out
}
