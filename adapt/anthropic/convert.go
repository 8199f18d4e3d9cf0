package anthropic

import (
	"errors"
	"fmt"
	"slices"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"

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
	// the rest of that turn a user message after them, and each compaction
	// block with a summary (Anthropic's own compaction) is a summary message
	// of its own, between the messages of the blocks around it. The caller
	// may modify or hand over this slice; Restore does not read it.
	Messages []compact.Message

	hist   History                        // the input, slices and turns copied
	blocks [][]sdk.ContentBlockParamUnion // each turn's blocks (turnBlocks)
	views  []compact.Message              // a private copy of Messages
	pieces []piece                        // where each message came from
	origin []int                          // for a picked conversion, each message's index in the whole (see pick)
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
// a copy of its slices and turns (not of its blocks) for Restore.
//
// It fails only on what no message can express: a turn that is none of
// user, assistant or system, a block (or a block of a tool_result's
// content) with no variant, which encodes as null, or a tool_use input that
// does not encode as JSON. The error names the turn (and the block) and
// wraps compact.ErrInvalidHistory.
// Blocks in places the API does not allow (a tool_use in a user turn, say)
// convert as text, so the engine can still read them; Validate reports them.
func Convert(h History) (*Conversion, error) {
	c := &Conversion{hist: History{System: slices.Clone(h.System), Messages: slices.Clone(h.Messages)}}
	c.blocks = make([][]sdk.ContentBlockParamUnion, len(c.hist.Messages))
	for k := range c.hist.Messages {
		c.hist.Messages[k] = copyTurn(c.hist.Messages[k])
		c.blocks[k] = turnBlocks(c.hist.Messages[k])
	}
	if len(h.System) > 0 {
		c.add(systemView(h.System), piece{turn: systemTurn, to: len(h.System)})
	}
	for k := range h.Messages {
		if b, i, found := nullBlock(c.blocks[k]); found {
			return nil, fmt.Errorf("anthropic: message %d, block %d: %w: %s", k, b, compact.ErrInvalidHistory, nullText(i))
		}
		if err := c.addTurn(k); err != nil {
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
func (c *Conversion) addTurn(k int) error {
	blocks := c.blocks[k]
	switch turnRole(c.hist.Messages[k]) {
	case roleAssistant:
		// A compaction block with a summary is a message of its own: the
		// summary. The blocks around it read as the turn's other messages.
		from := 0
		for i := 0; i <= len(blocks); i++ {
			if i < len(blocks) && !isSummaryBlock(blocks[i]) {
				continue
			}
			if i > from || i == len(blocks) && from == 0 {
				v, err := assistantView(blocks[from:i])
				if err != nil {
					return err
				}
				c.add(v, piece{turn: k, from: from, to: i})
			}
			if i < len(blocks) {
				s, _ := readCompaction(blocks[i])
				c.add(compactionView(s), piece{turn: k, from: i, to: i + 1})
			}
			from = i + 1
		}
	case roleSystem:
		c.add(userView(compact.RoleSystem, blocks), piece{turn: k, to: len(blocks)})
	case roleUser:
		if len(blocks) == 0 {
			c.add(compact.Message{Role: compact.RoleUser}, piece{turn: k})
		}
		for i := 0; i < len(blocks); {
			if r := blocks[i].OfToolResult; r != nil {
				c.add(toolResultView(r), piece{turn: k, from: i, to: i + 1})
				i++
				continue
			}
			if s, ok := readCompaction(blocks[i]); ok && s != "" {
				c.add(compactionView(s), piece{turn: k, from: i, to: i + 1})
				i++
				continue
			}
			j := i + 1
			for j < len(blocks) && blocks[j].OfToolResult == nil && !isSummaryBlock(blocks[j]) {
				j++
			}
			c.add(userView(compact.RoleUser, blocks[i:j]), piece{turn: k, from: i, to: j})
			i = j
		}
	default:
		return errors.New("a turn with no role")
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
