package genai

import (
	"fmt"
	"slices"

	sdk "google.golang.org/genai"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/internal/align"
)

// segment is one message of an engine's output as parts, with the input
// parts it stands for when there are any.
type segment struct {
	role  string
	parts []*sdk.Part
	// idx holds, for each part, its index in the origin's content, or -1
	// for a part the input did not have.
	idx    []int
	sys    *sdk.Content // the system instruction, when top and known
	top    bool         // it belongs in History.System
	origin *piece       // the input parts it stands for, or nil
	exact  bool         // parts are origin's, unchanged
}

// Restore converts msgs, an engine's output for c.Messages, back to a
// History. Every message the engine kept unchanged comes back as the
// original parts, and a content all of whose messages it kept as the
// original *genai.Content itself; messages the engine changed or wrote are
// converted as the package doc describes, and the result has the Gemini
// API's shape wherever compaction created a seam. It does not modify msgs.
//
// The restored history shares contents and parts with the history c was
// made from; neither is modified here, so a host that changes them in
// place should copy them first.
//
// A message of msgs with both Content and MultiContent is an error
// (compact.Validate's, naming it), since converting it would keep one and
// drop the other.
func (c *Conversion) Restore(msgs []compact.Message) (History, error) {
	if err := align.BothContents(msgs); err != nil {
		return History{}, fmt.Errorf("genai: %w", err)
	}
	o := align.NewOrigins(c.views, msgs, func(j int) bool { return c.pieces[j].content == systemContent })
	names := map[string]string{}
	var h History
	var segs []segment
	for i, m := range msgs {
		for _, tc := range m.ToolCalls {
			if m.Role == compact.RoleAssistant { // only a model's calls become function calls
				names[tc.ID] = tc.Function.Name
			}
		}
		var s segment
		if j := o.Match[i]; j >= 0 {
			s = c.exactSegment(j)
		} else {
			var ok bool
			if s, ok = c.changedSegment(m, i, len(segs) == 0, o, names); !ok {
				return History{}, fmt.Errorf("genai: message %d: %w: role %q has no place in a Gemini history",
					i, compact.ErrInvalidHistory, m.Role)
			}
		}
		if s.top {
			h.System = joinSystem(h.System, s)
			continue
		}
		segs = append(segs, s)
	}
	h.Contents = c.shape(segs)
	if h.System == nil && c.hist.System != nil && len(c.hist.System.Parts) == 0 {
		h.System = c.hist.System
	}
	if len(h.Contents) == 0 && len(c.hist.Contents) == 0 {
		h.Contents = c.hist.Contents
	}
	return h, nil
}

// joinSystem is the system instruction sys followed by segment s.
func joinSystem(sys *sdk.Content, s segment) *sdk.Content {
	parts := s.parts
	if s.sys != nil {
		if sys == nil {
			return s.sys
		}
		parts = s.sys.Parts
	}
	if len(parts) == 0 {
		return sys
	}
	if sys == nil {
		return &sdk.Content{Parts: parts}
	}
	out := *sys
	out.Parts = append(slices.Clone(sys.Parts), parts...)
	return &out
}
