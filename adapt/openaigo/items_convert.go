package openaigo

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/contextkit/compact"
)

// ItemConversion is a Responses API history (its input items) converted to
// compact's messages, with what Restore needs to give back the original of
// every item an engine keeps.
type ItemConversion struct {
	// Messages is the history as compact reads it: one message for each
	// system, developer or user message, each call's output and each
	// compaction item, and one assistant message for each run of items the
	// model wrote. The caller may modify or hand over this slice; Restore
	// does not read it.
	Messages []compact.Message

	hist   []Item // the input, slice copied
	wires  []wire // each item as the API reads it
	sorted sorted
	spans  []span            // the items each message stands for
	views  []compact.Message // a private copy of Messages
	origin []int             // for a conversion picked from another, each item's index there
}

// ConvertItems converts items to compact's messages. It does not modify
// items, and keeps a copy of the slice (not of the items) for Restore.
//
// It fails only on an item the SDK cannot encode, one with neither a type
// nor a role, or one whose content or output holds a part with no variant
// (it encodes as null); the error names the item and wraps
// compact.ErrInvalidHistory. An item compact does not accept (an output
// that answers no call) converts; the engine reports it.
func ConvertItems(items []Item) (*ItemConversion, error) {
	c := &ItemConversion{hist: slices.Clone(items), wires: make([]wire, len(items))}
	data := make([][]byte, len(items))
	for i, u := range items {
		w, raw, err := readWire(u)
		if err != nil {
			return nil, fmt.Errorf("openaigo: item %d: %w: it cannot be encoded: %w", i, compact.ErrInvalidHistory, err)
		}
		if w.Type == "" && w.Role == "" {
			return nil, fmt.Errorf("openaigo: item %d: %w: an item with no type and no role", i, compact.ErrInvalidHistory)
		}
		for _, f := range []struct {
			name string
			raw  json.RawMessage
		}{{"content", w.Content}, {"output", w.Output}} {
			if k, found := nullElement(f.raw); found {
				return nil, fmt.Errorf("openaigo: item %d: %w: %s part %d has no variant (it encodes as null)",
					i, compact.ErrInvalidHistory, f.name, k)
			}
		}
		c.wires[i], data[i] = w, raw
	}
	c.sorted = sortItems(c.wires)
	c.spans = c.groupSpans()
	c.views = make([]compact.Message, 0, len(c.spans))
	for _, s := range c.spans {
		c.views = append(c.views, c.view(s, data))
	}
	c.Messages = compact.Clone(c.views)
	return c, nil
}

// Items returns the index range [from, to) of the items message i of
// Messages stands for.
func (c *ItemConversion) Items(i int) (from, to int) {
	return c.spans[i].from, c.spans[i].to
}

// ItemError reports an item that breaks a rule of the Responses API: where
// it is and what is wrong. It unwraps to compact.ErrInvalidHistory.
type ItemError struct {
	Index  int    // index of the offending item in the slice checked
	Type   string // the item's type ("message" for a message without one)
	Detail string // what exactly is wrong, for a person to read
}

// Error returns a line such as
// `item 7 (function_call_output): tool result "call_3" answers no earlier unanswered call`.
func (e *ItemError) Error() string {
	return fmt.Sprintf("item %d (%s): %s", e.Index, e.Type, e.Detail)
}

// Unwrap returns compact.ErrInvalidHistory.
func (e *ItemError) Unwrap() error { return compact.ErrInvalidHistory }

// ValidateItems reports whether items is a valid Responses API request by
// compact's rules (see compact.Validate) and the API's own: every output
// (of a function call, a custom tool call, a computer, shell or patch call)
// follows the call it answers, every such call is answered except those of
// the last turn, and every reasoning item is followed, in its turn, by an
// item the model wrote (a message or a call), which is what the API pairs
// it with. It returns nil, ConvertItems' error, or the first problem as an
// *ItemError whose Index is the item's index in items.
func ValidateItems(items []Item) error {
	c, err := ConvertItems(items)
	if err != nil {
		return err
	}
	var first *ItemError
	keep := func(e *ItemError) {
		if first == nil || e.Index < first.Index {
			first = e
		}
	}
	if ps := compact.Problems(c.views); len(ps) > 0 {
		keep(c.itemError(ps[0]))
	}
	if e := c.reasoningProblem(); e != nil {
		keep(e)
	}
	if first == nil {
		return nil
	}
	return first
}

// itemError is p, found in message p.Index, as the item it concerns: the
// call it names, or the first item of the message.
func (c *ItemConversion) itemError(p *compact.ValidationError) *ItemError {
	s := c.spans[p.Index]
	at := c.firstItem(s)
	for i := s.from; i < s.to; i++ {
		if c.sorted.calls[i] && strings.Contains(p.Detail, strconv.Quote(callID(c.wires[i]))) {
			at = i
			break
		}
	}
	return &ItemError{Index: at, Type: c.itemType(at), Detail: p.Detail}
}

// firstItem is the first item of s that is not glue (or s's first).
func (c *ItemConversion) firstItem(s span) int {
	for i := s.from; i < s.to; i++ {
		if c.sorted.kinds[i] != kindGlue {
			return i
		}
	}
	return s.from
}

func (c *ItemConversion) itemType(i int) string {
	return firstOf(c.wires[i].Type, typeMessage)
}

// reasoningProblem finds the first reasoning item that nothing the model
// wrote follows in its turn.
func (c *ItemConversion) reasoningProblem() *ItemError {
	for _, s := range c.spans {
		for i := s.from; i < s.to; i++ {
			if c.wires[i].Type != typeReasoning || c.sorted.kinds[i] != kindModel {
				continue
			}
			followed := false
			for j := i + 1; j < s.to && !followed; j++ {
				k, t := c.sorted.kinds[j], c.wires[j].Type
				followed = k == kindModel && t != typeReasoning
			}
			if !followed {
				return &ItemError{Index: i, Type: typeReasoning,
					Detail: fmt.Sprintf("reasoning item %q is followed by no message or call of its turn", c.wires[i].ID)}
			}
		}
	}
	return nil
}

// nullElement finds the first element of raw, when it is a JSON array,
// that is null: a part the SDK holds with no variant.
func nullElement(raw json.RawMessage) (int, bool) {
	var elems []json.RawMessage
	if len(raw) == 0 || raw[0] != '[' || json.Unmarshal(raw, &elems) != nil {
		return 0, false
	}
	for k, e := range elems {
		if string(e) == "null" {
			return k, true
		}
	}
	return 0, false
}
