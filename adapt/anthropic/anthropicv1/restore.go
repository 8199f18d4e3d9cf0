package anthropicv1

import (
	"fmt"

	sdk "github.com/anthropics/anthropic-sdk-go"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/internal/align"
)

// segment is one message of an engine's output as blocks, with the input
// blocks it stands for when there are any.
type segment struct {
	role   sdk.MessageParamRole
	blocks []sdk.ContentBlockParamUnion
	sys    []sdk.TextBlockParam // the top-level system prompt, when top
	top    bool                 // it belongs in History.System
	origin *piece               // the input blocks it stands for, or nil
	exact  bool                 // blocks are origin's, unchanged
}

// Restore converts msgs, an engine's output for c.Messages, back to a
// History. Every message the engine kept unchanged comes back as the
// original blocks (the same values, byte for byte when encoded); messages
// the engine changed or wrote are converted as the package doc describes,
// and the result has the Messages API's shape wherever compaction created a
// seam. It does not modify msgs.
//
// The restored history shares block values with the history c was made
// from; neither is modified here, so a host that changes blocks in place
// should copy them first.
//
// A message of msgs with both Content and MultiContent is an error
// (compact.Validate's, naming it), since converting it would keep one and
// drop the other.
func (c *Conversion) Restore(msgs []compact.Message) (History, error) {
	if err := align.BothContents(msgs); err != nil {
		return History{}, fmt.Errorf("anthropic: %w", err)
	}
	o := align.NewOrigins(c.views, msgs, func(j int) bool { return c.pieces[j].turn == systemTurn })
	var h History
	var segs []segment
	for i, m := range msgs {
		var s segment
		if j := o.Match[i]; j >= 0 {
			s = c.exactSegment(j)
		} else {
			var ok bool
			if s, ok = c.changedSegment(m, i, len(segs) == 0, o); !ok {
				return History{}, fmt.Errorf("anthropic: message %d: %w: role %q has no place in a Messages API history",
					i, compact.ErrInvalidHistory, m.Role)
			}
		}
		if s.top {
			h.System = append(h.System, s.sys...)
			continue
		}
		segs = append(segs, s)
	}
	h.Messages = c.shape(segs)
	if len(h.System) == 0 && len(c.hist.System) == 0 {
		h.System = c.hist.System
	}
	if len(h.Messages) == 0 && len(c.hist.Messages) == 0 {
		h.Messages = c.hist.Messages
	}
	return h, nil
}
