package compact

import "github.com/contextkit/compact/tokens"

// fitWindow folds more into the summary while what the plan keeps, with a
// summary of twice its target and the carried messages, would not fit the
// usable window, or while the history does not fit and the plan has
// nothing to fold: the tail gives up its oldest turns (a call with its
// results; never the last message or a pending call group), then a
// first compaction's head. So no automatic compaction hands out a request
// over the window that a deeper one could have kept under it; what no
// compaction can shrink (the system prompt, the latest user message, a
// huge last message) still may not fit, and Result says so. Where the
// Compressor prunes, the pressure pass shrinks the tail instead (see
// WithPruning), and the plan is left as it is.
func (c *Compressor) fitWindow(p *plan, th thresholds, incoming *Message) {
	if c.cfg.pruning && !th.economy {
		return
	}
	extra := c.summaryOverhead() + th.carry
	if incoming != nil {
		extra += c.tc.CountMessage(*incoming)
	}
	whole := sum(p.counts) + extra
	for p.keptTokens()+2*summaryTarget(*p, th)+extra > th.usable || !p.hasContent() && whole > th.usable {
		next := p.cut + 1
		for next < len(p.msgs) && p.msgs[next].Role == RoleTool {
			next++
		}
		switch {
		case next < len(p.msgs):
			p.cut = next
		case p.headEnd > p.sysEnd:
			p.headEnd = p.sysEnd
		default:
			return
		}
		if p.lift >= p.cut {
			p.lift = -1
		}
		p.settle(incoming)
	}
}

// summaryOverhead is what a compacted request carries besides the kept
// messages, the summary's body and the carried messages: the summary's
// prefix and note, and the reply priming.
func (c *Compressor) summaryOverhead() int {
	return c.tc.CountMessage(Message{Role: RoleUser, Content: SummaryPrefix + "\n\n" + c.cfg.note}) +
		tokens.ReplyPrimingTokens
}

// roomLeft is what the usable window leaves a summary's body once the
// rest of the compacted request is in: p's kept messages (the tail as the
// cheap tier left it), the summary message with its prefix, note and
// carried messages, the incoming message and the reply priming.
func (c *Compressor) roomLeft(p plan, th thresholds, carried []string, incoming *Message) int {
	rest, _, _ := c.assembleSummary(p, th, "", carried, incoming)
	return th.usable - tokens.CountMessages(c.tc, rest)
}

// keptTokens is what the plan keeps verbatim: the system messages and the
// head, the lifted message and the tail.
func (p plan) keptTokens() int {
	n := sum(p.counts[:p.headEnd]) + sum(p.counts[p.cut:])
	if p.lift >= 0 {
		n += p.counts[p.lift]
	}
	return n
}
