package eino

import (
	"fmt"
	"slices"

	"github.com/cloudwego/eino/schema"

	"github.com/contextkit/compact"
)

// Conversion is an eino history converted to compact's messages, with what
// Restore needs to give back the original of every message an engine keeps.
type Conversion struct {
	// Messages is the history as compact reads it, one message for each
	// message of the input, in order. The caller may modify or hand over
	// this slice; Restore does not read it.
	Messages []compact.Message

	hist  []*schema.Message // the input, slice copied
	views []compact.Message // a private copy of Messages
	refs  [][]partRef       // where each view part came from
}

// Convert converts msgs to compact's messages. It does not modify msgs or
// the messages in it, and keeps a copy of the slice (not of the messages)
// for Restore.
//
// It fails only on a nil message; the error names its index and wraps
// compact.ErrInvalidHistory. A message compact does not accept (a tool
// result with no call, an unknown role) converts; the engine reports it.
func Convert(msgs []*schema.Message) (*Conversion, error) {
	c := &Conversion{hist: slices.Clone(msgs), views: make([]compact.Message, 0, len(msgs)),
		refs: make([][]partRef, 0, len(msgs))}
	for i, u := range msgs {
		if u == nil {
			return nil, fmt.Errorf("eino: message %d: %w: nil message", i, compact.ErrInvalidHistory)
		}
		v, refs := view(u)
		c.views = append(c.views, v)
		c.refs = append(c.refs, refs)
	}
	c.Messages = compact.Clone(c.views)
	return c, nil
}

// Validate reports whether msgs is a valid request by compact's rules (see
// compact.Validate), which are the Chat Completions rules eino's model
// components send: every tool result answers a call of the assistant turn
// before it, every call is answered except those of the last turn, no
// role is unknown. (An assistant turn with nothing compact can read, such
// as reasoning alone, reads as a placeholder and passes.) It returns nil,
// Convert's
// error, or the first problem as a *compact.ValidationError whose Index is
// the message's index in msgs.
func Validate(msgs []*schema.Message) error {
	c, err := Convert(msgs)
	if err != nil {
		return err
	}
	return compact.Validate(c.views)
}
