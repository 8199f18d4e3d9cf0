package anthropic

import (
	"encoding/json"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"

	"github.com/contextkit/compact"
)

// This file reads Anthropic's own compaction blocks. Under threshold
// compaction (the compact_20260112 edit) a response opens with a block of
// type "compaction" holding the provider's summary of the whole request,
// and the API ignores every content block before the newest such block on
// later requests. SDK v2 has no request type for the block outside its beta
// package: a response turn converted with Message.ToParam holds it as raw
// JSON (param.Override), which is how this package reads it.

// typeCompaction is the type of the provider's compaction block.
const typeCompaction = "compaction"

// compactionBlock is what a compaction block carries that this package
// reads: the summary, nil when the provider's summarising failed (the API
// treats such a block as doing nothing).
type compactionBlock struct {
	Type    string  `json:"type"`
	Content *string `json:"content"`
}

// readCompaction reads b as a compaction block. ok is false for any other
// block; a compaction block without a summary reads with summary "".
func readCompaction(b sdk.ContentBlockParamUnion) (summary string, ok bool) {
	if b.GetType() != nil {
		return "", false // a block the SDK holds typed is never one
	}
	v, overridden := b.Overrides()
	if !overridden {
		return "", false
	}
	data, err := json.Marshal(v)
	if err != nil {
		return "", false
	}
	var c compactionBlock
	if json.Unmarshal(data, &c) != nil || c.Type != typeCompaction {
		return "", false
	}
	if c.Content == nil {
		return "", true
	}
	return *c.Content, true
}

// isSummaryBlock reports whether b is a compaction block with a summary:
// the only kind the API treats as standing for what came before it.
func isSummaryBlock(b sdk.ContentBlockParamUnion) bool {
	s, ok := readCompaction(b)
	return ok && s != ""
}

// compactionLead introduces the provider's summary inside compact's summary
// prefix, so a reader (and compact's summarizer, which updates a previous
// summary) knows whose summary it is.
const compactionLead = "[Anthropic compacted the earlier turns of this conversation; its summary follows.]\n\n"

// compactionView is the message a compaction block with a summary reads
// as: a summary, by compact's own prefix, so that compact counts it and,
// when it compacts again, folds it into its one summary instead of keeping
// it beside a new one. Its role is user's, as compact's summaries before an
// assistant turn are; converting back gives the block itself.
func compactionView(summary string) compact.Message {
	return compact.Message{Role: compact.RoleUser, Content: compact.PrefixSummary(compactionLead + summary)}
}

// failedCompactionText is what a compaction block without a summary reads
// as inside its turn.
const failedCompactionText = "[compaction block without a summary]"

// newestCompaction is the index of the newest message that is a compaction
// block with a summary, or -1.
func (c *Conversion) newestCompaction() int {
	for j := len(c.pieces) - 1; j >= 0; j-- {
		if c.compaction(j) {
			return j
		}
	}
	return -1
}

// compaction reports whether message j stands for a compaction block with
// a summary.
func (c *Conversion) compaction(j int) bool {
	p := c.pieces[j]
	return p.turn != systemTurn && p.to == p.from+1 && isSummaryBlock(c.blocks[p.turn][p.from])
}

// live returns the conversion of what the API reads of c: the system
// prompt and the newest compaction block with everything after it (the
// API ignores what comes before that block), and the span of messages it
// leaves out, [from, to), empty when there is no such block. The result
// shares c's history; it is c itself when nothing is left out.
func (c *Conversion) live() (*Conversion, span) {
	k, lead := c.newestCompaction(), c.leadEnd()
	if k <= lead {
		return c, span{}
	}
	sel := make([]int, 0, lead+len(c.pieces)-k)
	for j := 0; j < lead; j++ {
		sel = append(sel, j)
	}
	for j := k; j < len(c.pieces); j++ {
		sel = append(sel, j)
	}
	return c.pick(sel), span{from: lead, to: k}
}

// span is the messages [from, to) of a conversion.
type span struct{ from, to int }

// pick returns the conversion of c's messages sel names, in order, sharing
// c's history; origin maps its messages back to c's.
func (c *Conversion) pick(sel []int) *Conversion {
	p := &Conversion{hist: c.hist, blocks: c.blocks, origin: sel}
	for _, j := range sel {
		p.views = append(p.views, c.views[j])
		p.pieces = append(p.pieces, c.pieces[j])
	}
	p.Messages = compact.Clone(p.views)
	return p
}

// originOf is the index in the conversion c was picked from of c's message
// i (i itself when c was not picked, or i is out of range).
func (c *Conversion) originOf(i int) int {
	if c.origin == nil || i < 0 || i >= len(c.origin) {
		return i
	}
	return c.origin[i]
}

// opensOnCompaction reports whether a turn's first block is a compaction
// block with a summary: the API takes such a turn first in a history,
// whatever its role.
func opensOnCompaction(blocks []sdk.ContentBlockParamUnion) bool {
	return len(blocks) > 0 && isSummaryBlock(blocks[0])
}

// leadEnd is the number of leading messages that stand for the system
// prompt: 1 when there is one, else 0.
func (c *Conversion) leadEnd() int {
	if len(c.pieces) > 0 && c.pieces[0].turn == systemTurn {
		return 1
	}
	return 0
}
