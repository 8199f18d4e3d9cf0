package genai

import (
	"fmt"
	"slices"

	sdk "google.golang.org/genai"

	"github.com/contextkit/compact"
)

// History is a conversation as the Gemini API takes it: the system
// instruction (GenerateContentConfig.SystemInstruction; nil for none) and
// the contents (the contents argument of Models.GenerateContent, Chat's
// history, an ADK model.LLMRequest's Contents).
type History struct {
	System   *sdk.Content
	Contents []*sdk.Content
}

// Conversion is a History converted to compact's messages, with what
// Restore needs to give back the original contents and parts of every
// message an engine keeps.
type Conversion struct {
	// Messages is the history as compact reads it: the system instruction
	// first (when it has parts), then each model content as one assistant
	// message, and each user content as one tool message for each of its
	// function responses followed by one user message holding its other
	// parts. The caller may modify or hand over this slice; Restore does
	// not read it.
	Messages []compact.Message

	hist   History           // the input, its Contents slice copied
	parts  [][]*sdk.Part     // each content's parts as Convert saw them
	views  []compact.Message // a private copy of Messages
	pieces []piece           // where each message came from
	// callIDs maps a call id this package made up (for a function call
	// the model sent without one) to the id the call has: "".
	callIDs map[string]string
}

// piece records which parts of the input one converted message stands for:
// the parts idx of content Contents[content], or, when content is
// systemContent, the whole system instruction. first and last say whether
// it is the first or the last message of its content.
type piece struct {
	content     int
	idx         []int
	first, last bool
}

// systemContent marks the piece that stands for the system instruction.
const systemContent = -1

// Convert converts h to compact's messages. It does not modify h, and keeps
// a copy of its Contents slice and of each content's parts slice (not of
// the parts) for Restore.
//
// It fails only on what no message can express: a nil content or part (or
// a nil part of a function response), a role other than user or model (an empty role is the user's, as the API
// reads it), or function call arguments or a function response that do not
// encode as JSON. The error names the content and wraps
// compact.ErrInvalidHistory. Parts in places the API does not allow (a
// function call in a user content, say) convert as text, so the engine can
// still read them; Validate reports them.
func Convert(h History) (*Conversion, error) {
	c := &Conversion{hist: History{System: h.System, Contents: slices.Clone(h.Contents)}, callIDs: map[string]string{}}
	if h.System != nil && len(h.System.Parts) > 0 {
		v, err := systemView(h.System.Parts)
		if err != nil {
			return nil, fmt.Errorf("genai: system instruction: %w: %w", compact.ErrInvalidHistory, err)
		}
		c.add(v, piece{content: systemContent, first: true, last: true})
	}
	c.parts = make([][]*sdk.Part, len(h.Contents))
	ids := newCallIDs(h.Contents)
	var open calls
	for k, content := range h.Contents {
		if content == nil {
			return nil, fmt.Errorf("genai: content %d: %w: nil content", k, compact.ErrInvalidHistory)
		}
		c.parts[k] = slices.Clone(content.Parts)
		var err error
		if open, err = c.addContent(k, content, open, ids); err != nil {
			return nil, fmt.Errorf("genai: content %d: %w: %w", k, compact.ErrInvalidHistory, err)
		}
	}
	c.Messages = compact.Clone(c.views)
	return c, nil
}

func (c *Conversion) add(m compact.Message, p piece) {
	c.views = append(c.views, m)
	c.pieces = append(c.pieces, p)
}

// addContent converts content k, whose function responses answer open
// (the calls of the content before it). It returns the calls content k
// leaves open for the next.
func (c *Conversion) addContent(k int, content *sdk.Content, open calls, ids *callIDs) (calls, error) {
	parts := content.Parts
	for i, p := range parts {
		if p == nil {
			return nil, fmt.Errorf("part %d: nil part", i)
		}
		if err := nilResponsePart(p); err != nil {
			return nil, fmt.Errorf("part %d: %w", i, err)
		}
	}
	switch content.Role {
	case sdk.RoleModel:
		made := open[:0:0]
		for i, p := range parts {
			if fc := p.FunctionCall; fc != nil {
				id := ids.forCall(fc.ID, k, i)
				if fc.ID == "" {
					c.callIDs[id] = ""
				}
				made = append(made, call{name: fc.Name, id: fc.ID, view: id})
			}
		}
		v, err := modelView(parts, made)
		if err != nil {
			return nil, err
		}
		c.add(v, piece{content: k, idx: allParts(len(parts)), first: true, last: true})
		return made, nil
	case sdk.RoleUser, "":
		var rest []int
		var msgs []compact.Message
		var idx [][]int
		for i, p := range parts {
			fr := p.FunctionResponse
			if fr == nil {
				rest = append(rest, i)
				continue
			}
			id := ids.forResponse(open.answer(fr.ID, fr.Name), fr.ID, k, i)
			v, err := responseView(fr, id)
			if err != nil {
				return nil, fmt.Errorf("part %d: %w", i, err)
			}
			msgs, idx = append(msgs, v), append(idx, []int{i})
		}
		if len(rest) > 0 || len(msgs) == 0 {
			msgs, idx = append(msgs, userView(compact.RoleUser, pick(parts, rest))), append(idx, rest)
		}
		for n, m := range msgs {
			c.add(m, piece{content: k, idx: idx[n], first: n == 0, last: n == len(msgs)-1})
		}
		return nil, nil
	}
	return nil, fmt.Errorf("role %q", content.Role)
}

// allParts is 0, 1, ..., n-1.
func allParts(n int) []int {
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	return idx
}

// pick is parts[i] for each i of idx.
func pick(parts []*sdk.Part, idx []int) []*sdk.Part {
	out := make([]*sdk.Part, len(idx))
	for n, i := range idx {
		out[n] = parts[i]
	}
	return out
}

// contentOf returns the index in the input history of the content behind
// converted message i, or -1 for the system instruction. Compress uses it
// to name the content behind an engine's validation error.
func (c *Conversion) contentOf(i int) int {
	if i < 0 || i >= len(c.pieces) {
		return -1
	}
	return c.pieces[i].content
}

// nilResponsePart reports a nil part of p's function response: it encodes
// as null.
func nilResponsePart(p *sdk.Part) error {
	if fr := p.FunctionResponse; fr != nil {
		for k, rp := range fr.Parts {
			if rp == nil {
				return fmt.Errorf("function response %q: part %d is nil", fr.Name, k)
			}
		}
	}
	return nil
}
