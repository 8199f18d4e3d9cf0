package anthropicv1

import (
	"fmt"
	"slices"

	sdk "github.com/anthropics/anthropic-sdk-go"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/internal/align"
)

// History is a conversation as the Messages API takes it: the top-level
// system prompt (sdk.MessageNewParams.System; a plain string prompt is one
// block) and the turns (sdk.MessageNewParams.Messages).
type History struct {
	System   []sdk.TextBlockParam
	Messages []sdk.MessageParam
}

// Conversion is a History converted to compact's messages, with what
// Restore needs to give back the original blocks of every message an engine
// keeps.
type Conversion struct {
	// Messages is the history as compact reads it: the system prompt first
	// (when there is one), then each turn as one message, except that each
	// tool_result block of a user turn is a tool message of its own, and
	// the rest of that turn a user message after them. The caller may
	// modify or hand over this slice; Restore does not read it.
	Messages []compact.Message

	hist   History           // the input, slices copied
	views  []compact.Message // a private copy of Messages
	pieces []piece           // where each message came from
}

// piece records which blocks of the input one converted message stands
// for: blocks [from, to) of turn Messages[turn], or, when turn is
// systemTurn, the whole system prompt.
type piece struct {
	turn, from, to int
}

// systemTurn marks the piece that stands for the top-level system prompt.
const systemTurn = -1

// Convert converts h to compact's messages. It does not modify h, and keeps
// a copy of its slices (not of its blocks) for Restore.
//
// It fails only on what no message can express: a turn with a role other
// than user, assistant or system, a block (or a block of a tool_result's
// content) with no variant, which encodes as null, or a tool_use input that
// does not encode as JSON. The error names the turn (and the block) and
// wraps compact.ErrInvalidHistory.
// Blocks in places the API does not allow (a tool_use in a user turn, say)
// convert as text, so the engine can still read them; Validate reports them.
func Convert(h History) (*Conversion, error) {
	c := &Conversion{hist: History{System: slices.Clone(h.System), Messages: slices.Clone(h.Messages)}}
	for k := range c.hist.Messages {
		c.hist.Messages[k].Content = slices.Clone(c.hist.Messages[k].Content)
	}
	if len(h.System) > 0 {
		c.add(systemView(h.System), piece{turn: systemTurn, to: len(h.System)})
	}
	for k, m := range h.Messages {
		if b, i, found := nullBlock(m.Content); found {
			return nil, fmt.Errorf("anthropic: message %d, block %d: %w: %s", k, b, compact.ErrInvalidHistory, nullText(i))
		}
		if err := c.addTurn(k, m); err != nil {
			return nil, fmt.Errorf("anthropic: message %d: %w: %w", k, compact.ErrInvalidHistory, err)
		}
	}
	c.Messages = compact.Clone(c.views)
	return c, nil
}

func (c *Conversion) add(m compact.Message, p piece) {
	c.views = append(c.views, m)
	c.pieces = append(c.pieces, p)
}

// addTurn converts turn k.
func (c *Conversion) addTurn(k int, m sdk.MessageParam) error {
	blocks := m.Content
	switch m.Role {
	case sdk.MessageParamRoleAssistant:
		v, err := assistantView(blocks)
		if err != nil {
			return err
		}
		c.add(v, piece{turn: k, to: len(blocks)})
	case sdk.MessageParamRoleSystem:
		c.add(userView(compact.RoleSystem, blocks), piece{turn: k, to: len(blocks)})
	case sdk.MessageParamRoleUser:
		if len(blocks) == 0 {
			c.add(compact.Message{Role: compact.RoleUser}, piece{turn: k})
		}
		for i := 0; i < len(blocks); {
			if r := blocks[i].OfToolResult; r != nil {
				c.add(toolResultView(r), piece{turn: k, from: i, to: i + 1})
				i++
				continue
			}
			j := i + 1
			for j < len(blocks) && blocks[j].OfToolResult == nil {
				j++
			}
			c.add(userView(compact.RoleUser, blocks[i:j]), piece{turn: k, from: i, to: j})
			i = j
		}
	default:
		return fmt.Errorf("role %q", m.Role)
	}
	return nil
}

// turnOf returns the index in the input history of the turn behind
// converted message i, or -1 for the system prompt. Compress uses it to name
// the turn behind an engine's validation error.
func (c *Conversion) turnOf(i int) int {
	if i < 0 || i >= len(c.pieces) {
		return -1
	}
	return c.pieces[i].turn
}

// nullBlock finds the first of blocks that holds no variant (content is
// -1), or whose tool_result content holds a block with none (content is
// its index there): the SDK encodes such a union as null, which the API
// refuses and no message can say.
func nullBlock(blocks []sdk.ContentBlockParamUnion) (block, content int, found bool) {
	for b, u := range blocks {
		if u.GetType() == nil && align.EncodesNull(u) {
			return b, -1, true
		}
		if r := u.OfToolResult; r != nil {
			for i, c := range r.Content {
				if c.GetType() == nil && align.EncodesNull(c) {
					return b, i, true
				}
			}
		}
	}
	return 0, 0, false
}

// nullText says what nullBlock found.
func nullText(content int) string {
	if content < 0 {
		return "the block has no variant (it encodes as null)"
	}
	return fmt.Sprintf("tool_result content block %d has no variant (it encodes as null)", content)
}
