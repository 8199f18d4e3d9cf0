package compact

import (
	"strings"

	"github.com/contextkit/compact/internal/msg"
)

// plan is where a compaction cuts a history: msgs[:sysEnd] are the leading
// system messages, msgs[sysEnd:headEnd] the protected head, msgs[cut:] the
// protected tail, and msgs[headEnd:cut] the middle that is summarised.
type plan struct {
	msgs    []Message
	counts  []int // tokens of each message
	sysEnd  int
	headEnd int
	cut     int
	// lift is the index of the latest real user message when it lies in the
	// middle, too far back for the tail to reach: it is kept verbatim and
	// placed at the head of the tail. -1 when nothing is lifted.
	lift int
	// hasSummary: the history already holds a summary, so the head has
	// decayed to the system prompt.
	hasSummary bool
}

// hasContent reports whether the middle holds anything to fold: a message
// that is neither an earlier summary nor the lifted user message.
func (p plan) hasContent() bool {
	for i := p.headEnd; i < p.cut; i++ {
		if i == p.lift {
			continue
		}
		if !msg.IsStandaloneSummary(p.msgs[i]) {
			return true
		}
	}
	return false
}

// foldedTokens is what the summarised range takes, less a lifted message
// (it comes back whole).
func (p plan) foldedTokens() int {
	n := 0
	for i := p.headEnd; i < p.cut; i++ {
		if i != p.lift {
			n += p.counts[i]
		}
	}
	return n
}

// plan decides the cut for msgs under the thresholds th, with incoming the
// message the host is about to send, if any. msgs must be valid (counts: see newPlan).
func (c *Compressor) plan(msgs []Message, counts []int, th thresholds, incoming *Message) plan {
	p := c.newPlan(msgs, counts)
	p.headEnd = p.sysEnd
	if !p.hasSummary && c.cfg.headMessages > 0 {
		p.headEnd = c.headEnd(msgs, p.counts, p.sysEnd, th.head)
	}
	// The latest real user message is never kept in the head: the head ends
	// before it, and the tail reaches for it or it is lifted to follow the
	// summary. Kept in place, it would sit before the summary, which a model
	// reads as the thing to respond to next, and the next compaction (the
	// head decayed) would move it anyway.
	if u := msg.LastIndex(msgs[:p.headEnd], p.sysEnd, IsRealUser); u >= 0 && msg.LastIndex(msgs, u+1, IsRealUser) < 0 {
		p.headEnd = u
	}
	p.cut = c.tailStart(&p, th)
	p.settle(incoming)
	c.fitWindow(&p, th, incoming)
	return p
}

// newPlan counts msgs (unless counts, their counts, is given) and finds
// their leading system messages; the cut is left to the caller.
func (c *Compressor) newPlan(msgs []Message, counts []int) plan {
	n := len(msgs)
	p := plan{msgs: msgs, counts: counts, lift: -1}
	if counts == nil {
		p.counts = make([]int, n)
		for i, m := range msgs {
			p.counts[i] = c.tc.CountMessage(m)
		}
	}
	for p.sysEnd < n && msg.IsSystem(msgs[p.sysEnd]) {
		p.sysEnd++
	}
	for _, m := range msgs {
		if msg.IsSummary(m) {
			p.hasSummary = true
			break
		}
	}
	return p
}

// settle fits the summary between the head and what follows it. The
// summary takes a role that neither neighbour has. Where the head's last
// turn and the next turn already alternate no role fits, so the head gives
// up turns to the summarised range until one does (with no head left one
// always does). A tail message is never rewritten. The latest real user
// message, if the head gave it up, is lifted.
func (p *plan) settle(incoming *Message) {
	if p.lift >= 0 && !p.canLift(incoming) {
		p.lift = -1
	}
	if !p.hasContent() {
		return // no summary to place, so nothing to make room for
	}
	for {
		p.liftLatestUser(incoming)
		if p.headEnd == p.sysEnd || summaryRole(&p.msgs[p.headEnd-1], p.next(incoming)) != "" {
			return
		}
		p.headEnd--
	}
}

// liftLatestUser lifts the latest real user message when it lies in the
// middle and nothing is lifted yet.
func (p *plan) liftLatestUser(incoming *Message) {
	if u := msg.LastIndex(p.msgs, p.headEnd, IsRealUser); u >= 0 && u < p.cut && p.lift < 0 && p.canLift(incoming) {
		p.lift = u
	}
}

// canLift reports whether a lifted message may stand right before the tail:
// not when the tail (or, with no tail, the incoming message) starts with a
// user turn, which would make two user turns in a row. That turn is then
// the latest real user message itself (an incoming one) or an earlier
// summary; the message that is not lifted is carried inside the summary.
func (p *plan) canLift(incoming *Message) bool {
	switch {
	case p.cut < len(p.msgs):
		return p.msgs[p.cut].Role != RoleUser
	case incoming != nil:
		return incoming.Role != RoleUser
	}
	return true
}

// next returns what follows the summary in the compacted history: the
// lifted user message, the tail, and the incoming message.
func (p plan) next(incoming *Message) []Message {
	var next []Message
	if p.lift >= 0 {
		_, lifted, _ := msg.SplitMerged(p.msgs[p.lift])
		next = append(next, lifted)
	}
	next = append(next, p.msgs[p.cut:]...)
	if incoming != nil {
		next = append(next, *incoming)
	}
	return next
}

// headEnd returns the end of the protected head: the first headMessages
// non-system messages, extended through the results of any calls among
// them, then trimmed back while the head is over its token budget.
func (c *Compressor) headEnd(msgs []Message, counts []int, sysEnd, budget int) int {
	n := len(msgs)
	end := min(sysEnd+c.cfg.headMessages, n)
	for end < n && msgs[end].Role == RoleTool {
		end++
	}
	tokens := 0
	for i := sysEnd; i < end; i++ {
		tokens += counts[i]
	}
	for end > sysEnd && tokens > budget {
		end--
		tokens -= counts[end]
		// Never keep calls in the head whose results went to the middle.
		for end > sysEnd && end < n && msgs[end].Role == RoleTool {
			end--
			tokens -= counts[end]
		}
	}
	return end
}

// tailStart returns the first index of the protected tail. The tail takes
// messages from the end while they fit its budget (and at least the minimum
// count), never starts on a tool result, reaches back to the latest real
// user message and the last assistant message with visible text when it can
// do so within half the threshold, and never keeps an earlier summary. A
// latest user message out of reach is lifted instead (p.lift).
func (c *Compressor) tailStart(p *plan, th thresholds) int {
	msgs, counts, lo := p.msgs, p.counts, p.headEnd
	n := len(msgs)
	cut, tokens, kept := n, 0, 0
	for i := n - 1; i >= lo; i-- {
		// The budget may be exceeded to keep the minimum count, but a huge
		// user or assistant turn past half the threshold ends the tail: it
		// must not pin every compaction over the threshold. (Tool results
		// may stay: the pressure pass of pruning demotes them.) The last
		// message always stays.
		if tokens >= th.minVerbatim && (kept >= c.cfg.tailMin && tokens+counts[i] > th.tail ||
			kept >= 1 && tokens+counts[i] > th.threshold/2 && msgs[i].Role != RoleTool && len(msgs[i].ToolCalls) == 0) {
			break
		}
		tokens += counts[i]
		kept++
		cut = i
	}
	cut = msg.AlignCut(msgs, cut, lo)

	suffix := make([]int, n+1) // suffix[i] = tokens of msgs[i:]
	for i := n - 1; i >= 0; i-- {
		suffix[i] = suffix[i+1] + counts[i]
	}
	reach := func(i int) (int, bool) {
		j := msg.AlignCut(msgs, i, lo)
		return j, suffix[j] <= th.reach
	}

	if u := msg.LastIndex(msgs, lo, IsRealUser); u >= 0 && u < cut {
		if j, ok := reach(u); ok {
			cut = j
		} else {
			p.lift = u
		}
	}
	if a := msg.LastIndex(msgs, lo, hasVisibleAssistantText); a >= 0 && a < cut {
		if j, ok := reach(a); ok {
			cut = j
		}
	}
	// An earlier summary belongs in the middle, where it is folded into the
	// new one; the tail starts after the last of them. (A summary merged
	// into another message takes that message along: its own content is
	// summarised, or lifted if it is the latest user message.)
	if s := msg.LastIndex(msgs, lo, IsSummary); s >= cut {
		cut = s + 1
		for cut < n && msgs[cut].Role == RoleTool { // results of calls it carried
			cut++
		}
	}
	if p.lift >= cut {
		p.lift = -1
	}
	return cut
}

func hasVisibleAssistantText(m Message) bool {
	return m.Role == RoleAssistant && !msg.IsSummary(m) && strings.TrimSpace(msg.Text(m)) != ""
}
