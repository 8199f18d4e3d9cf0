package genai

import (
	"slices"
	"sort"

	sdk "google.golang.org/genai"
)

// continuationText opens a restored history whose first content would
// otherwise be the model's: the API wants a user content first, and a
// function call right after a user content.
const continuationText = "(continued from earlier turns)"

// turnOut is one content of a restored history while it is assembled.
type turnOut struct {
	role  string
	parts []*sdk.Part
	idx   []int
	// first and last are the input contents its first and last segments
	// come from (-1 for a new one); starts says its first segment is the
	// first message of its content, ends that its last is the last.
	first, last  int
	starts, ends bool
	exact        bool // all parts are unchanged input parts
}

// userRole is role as the API reads it: empty is the user's.
func userRole(role string) string {
	if role == "" {
		return sdk.RoleUser
	}
	return role
}

// shape assembles segments into contents: segments that came from one
// input content join again, an input content that came through whole is
// the original *Content, and contents of the same role that compaction
// put side by side merge. A history that would open on a model content it
// did not open on before (the Compressor's summary is the assistant's when
// a user message follows it) opens on a short user content that says
// earlier turns were compacted.
func (c *Conversion) shape(segs []segment) []*sdk.Content {
	var turns []turnOut
	for _, s := range segs {
		if n := len(turns); n > 0 && s.origin != nil {
			t := &turns[n-1]
			if t.last == s.origin.content && t.first == t.last && userRole(t.role) == userRole(s.role) {
				t.parts, t.idx = append(t.parts, s.parts...), append(t.idx, s.idx...)
				t.ends = s.origin.last
				t.exact = t.exact && s.exact
				continue
			}
		}
		t := turnOut{role: s.role, parts: s.parts, idx: s.idx, first: -1, last: -1}
		if s.origin != nil {
			t.first, t.last, t.starts, t.ends, t.exact = s.origin.content, s.origin.content, s.origin.first, s.origin.last, s.exact
		}
		if len(t.parts) == 0 && !t.exact {
			continue // a message with nothing the API can carry
		}
		turns = append(turns, t)
	}

	var out []turnOut
	for _, t := range turns {
		if n := len(out); n > 0 && userRole(out[n-1].role) == userRole(t.role) && !inputSeam(out[n-1], t) {
			merge(&out[n-1], t)
			continue
		}
		out = append(out, t)
	}

	if len(out) > 0 && userRole(out[0].role) != sdk.RoleUser && !(out[0].first == 0 && out[0].starts) {
		lead := turnOut{role: sdk.RoleUser, first: -1, last: -1, parts: []*sdk.Part{{Text: continuationText}}}
		out = append([]turnOut{lead}, out...)
	}

	contents := make([]*sdk.Content, 0, len(out))
	for _, t := range out {
		contents = append(contents, c.emit(t))
	}
	return contents
}

// inputSeam reports whether b follows a in the input: a ends where an
// input content ends and b starts the next one. Such neighbours stay apart
// even when their roles match, so a history converts back to itself.
func inputSeam(a, b turnOut) bool {
	return a.last >= 0 && a.ends && b.first == a.last+1 && b.starts
}

// merge appends b's parts to a.
func merge(a *turnOut, b turnOut) {
	a.parts, a.idx = append(a.parts, b.parts...), append(a.idx, b.idx...)
	a.exact = false
	a.last, a.ends = b.last, b.ends
	if a.first != a.last {
		a.idx = nil // part indexes of different contents do not compare
	}
}

// emit is a turn as a content: the input content itself when the turn is
// all of it, unchanged; otherwise a new content with the role of the input
// content it starts in (or its own), holding its parts in the input's
// order where they all come from one input content.
func (c *Conversion) emit(t turnOut) *sdk.Content {
	if t.first < 0 {
		return &sdk.Content{Role: t.role, Parts: t.parts}
	}
	orig := c.hist.Contents[t.first]
	if t.exact && t.first == t.last && t.starts && t.ends && len(t.parts) == len(c.parts[t.first]) {
		return orig
	}
	parts := t.parts
	if t.first == t.last && len(t.idx) == len(parts) && !slices.ContainsFunc(t.idx, func(i int) bool { return i < 0 }) {
		order := make([]int, len(parts))
		for i := range order {
			order[i] = i
		}
		sort.SliceStable(order, func(a, b int) bool { return t.idx[order[a]] < t.idx[order[b]] })
		parts = make([]*sdk.Part, len(order))
		for i, o := range order {
			parts[i] = t.parts[o]
		}
	}
	return &sdk.Content{Role: orig.Role, Parts: parts}
}
