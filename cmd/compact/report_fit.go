package main

import (
	"fmt"
	"strconv"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/tokens"
)

// fit says whether the history written fits the usable window (the window
// less the reserve for the reply), as the library's Result does.
type fit struct {
	Fits     bool `json:"fits"`
	Usable   int  `json:"usable"`
	Overflow int  `json:"overflow"` // tokens over the usable window; 0 when it fits
	// TooLarge is the largest message compaction had to keep verbatim, when
	// the history does not fit; nil otherwise.
	TooLarge *tooLarge `json:"too_large,omitempty"`
}

// tooLarge names the message that keeps a history over the window.
type tooLarge struct {
	Output int    `json:"output"` // its index in the history written
	Input  int    `json:"input"`  // its index in the input (after repair); -1 when it has none
	Role   string `json:"role"`
	Tokens int    `json:"tokens"`
}

// fitOf is oc's fit: the library's word when it compacted, otherwise the
// same rule applied to the history written unchanged or pruned.
func fitOf(oc *outcome, c *compact.Compressor) fit {
	f := fit{Usable: c.Preflight(nil).Usable}
	big := -1
	if res := oc.res; res != nil {
		f = fit{Fits: res.Fits, Usable: res.Usable, Overflow: res.Overflow}
		big = res.TooLarge
	} else {
		f.Fits = oc.after <= f.Usable
		if !f.Fits {
			f.Overflow = oc.after - f.Usable
			big = largestKept(oc.out, oc.tc)
		}
	}
	if f.Fits || big < 0 || big >= len(oc.out) {
		return f
	}
	f.TooLarge = &tooLarge{Output: big, Input: -1, Role: oc.out[big].Role, Tokens: oc.tc.CountMessage(oc.out[big])}
	for _, a := range oc.account {
		if a.Output == big && a.Fate != "folded" && a.Fate != "carried" {
			f.TooLarge.Input = a.Index
			break
		}
	}
	return f
}

// largestKept is the index of the largest message that is not a system
// message, as the library names it; -1 when there is none.
func largestKept(msgs []compact.Message, tc tokens.Counter) int {
	at, most := -1, 0
	for i, m := range msgs {
		if m.Role == compact.RoleSystem || m.Role == "developer" {
			continue
		}
		if n := tc.CountMessage(m); n > most {
			at, most = i, n
		}
	}
	return at
}

// text is the fit as -report writes it.
func (f fit) text() string {
	if f.Fits {
		return fmt.Sprintf("yes: within the %s usable tokens", thousands(f.Usable))
	}
	s := fmt.Sprintf("NO: %s over the %s usable", plural(f.Overflow, "token"), thousands(f.Usable))
	if t := f.TooLarge; t != nil {
		s += fmt.Sprintf("; the largest message kept verbatim is output message %d (%s, %s", t.Output, t.Role, plural(t.Tokens, "token"))
		if t.Input >= 0 {
			s += ", input " + strconv.Itoa(t.Input)
		}
		s += ")"
	}
	return s
}

// pageSetting is one setting a compaction ran with, for the HTML view.
type pageSetting struct {
	Name, Value string
}

// settings lists what oc ran with: the flags that shape a compaction and
// what the library made of them.
func (e *engine) settings(oc *outcome, st compact.Status) []pageSetting {
	o := e.o
	model := oc.model
	if model == "" {
		model = "(none)"
	}
	s := []pageSetting{
		{"model", model},
		{"encoding", oc.encoding},
		{"window", thousands(st.Window)},
		{"threshold", fmt.Sprintf("%s (%g of the usable window)", plural(st.Threshold, "token"), o.threshold)},
		{"summarizer", e.name},
		{"force", strconv.FormatBool(o.force)},
	}
	if o.set["reserve"] {
		s = append(s, pageSetting{"reserve", thousands(o.reserve)})
	}
	if o.keep > 0 {
		s = append(s, pageSetting{"keep", strconv.Itoa(o.keep) + " exchanges"})
	}
	if o.pruneOnly {
		s = append(s, pageSetting{"prune-only", "true"})
	}
	if o.focus != "" {
		s = append(s, pageSetting{"focus", o.focus})
	}
	if st.ModelNote != "" {
		s = append(s, pageSetting{"model note", st.ModelNote})
	}
	for _, a := range st.Adjusted {
		s = append(s, pageSetting{"adjusted", a})
	}
	return s
}
