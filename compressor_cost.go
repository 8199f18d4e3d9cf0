package compact

import (
	"github.com/contextkit/compact/internal/economy"
	"github.com/contextkit/compact/internal/msg"
	"github.com/contextkit/compact/models"
	"github.com/contextkit/compact/tokens"
)

// This file is the Compressor's cost model (DESIGN.md, Cost): what it
// learns of the bill from usage reports, when a compaction is due for
// the bill's sake, and what a compaction is expected to cost.

// The fixed points of economy mode.
const (
	// economyVerbatimTokens is how much of the end of the conversation
	// every request keeps verbatim in economy mode (issue 24's goal), at
	// most the default tail's budget (a fifth of the threshold, 18,000
	// tokens at a 128,000-token window).
	economyVerbatimTokens = 8_000
	// economySummaryTokens bounds an economy summary's target, and
	// economyVerbatimTokens what a summary dense in facts may grow to
	// (only to economySummaryTokens when the session's archive recalls
	// what is folded): the bounds a threshold of 24,000 tokens sets (a
	// tenth and a third), where the joined replay kept every fact kind
	// (issue 24, phase 1).
	economySummaryTokens = 2_400
)

// pricingLocked returns the prices in force: WithPricing's, or else the
// model table's.
func (c *Compressor) pricingLocked() models.Pricing {
	if c.cfg.pricingSet {
		return c.cfg.pricing
	}
	return c.setup.pricing
}

// retuneLocked derives the token figures from the window and the mode.
func (c *Compressor) retuneLocked() {
	th := computeThresholds(c.cfg, c.win)
	th.priced = c.pricingLocked().Known()
	if c.cfg.economy && th.priced {
		th.economy = true
		// Never a longer tail than the default's: on a small window the
		// verbatim end gives way, so economy mode never costs more.
		th.minVerbatim = min(economyVerbatimTokens, th.tail)
		th.tail, th.reach = th.minVerbatim, th.minVerbatim
		th.head = min(th.head, th.tail)
		th.carry = 0
		th.summary = min(th.summary, economySummaryTokens)
		th.factsCap = min(th.factsCap, economyVerbatimTokens)
		if c.st.recall {
			th.factsCap = th.summary
		}
	} else if th.priced && !isModel(c.cfg.summarizer) && !c.cfg.carrySet {
		// A cycle costs more the more a compaction keeps (every kept token
		// is read on each request and written again at the next
		// compaction; see economy.CycleCost), so with prices known
		// the default keeps what its contracts need and no copies: the
		// extractive summary holds the user's asks and their facts (its
		// task, requests and facts index), so verbatim copies of earlier
		// user messages are not carried, unless the host set a budget. A
		// model's summary may lose them: its carry stays.
		th.carry = 0
	}
	c.th = th
}

// triggerLocked returns the prompt size at which a compaction is due with
// the cache warm: the threshold, or in economy mode earlier when the cost
// per request is lower (see economy.Spacing).
func (c *Compressor) triggerLocked() int {
	if !c.th.economy {
		return c.th.threshold
	}
	// The size a compaction leaves: the last one's, or before the first
	// what the tail, the head and the carried messages may keep.
	after := c.st.cost.After(c.th.tail + c.th.head + c.th.carry)
	fixed := c.st.cost.SummarizerCost(isModel(c.cfg.summarizer), float64(after))
	return c.st.cost.Trigger(c.pricingLocked(), c.th.threshold, after, fixed)
}

// dueLocked reports whether a prompt of n tokens is due for compaction,
// and why when it is under the threshold: "" at the threshold, or the
// kind of an early one (economy mode, or a cold cache).
func (c *Compressor) dueLocked(n int) (bool, string) {
	if !c.th.priced {
		return n >= c.th.threshold, ""
	}
	p := c.pricingLocked()
	return c.st.cost.Due(n, c.th.threshold, c.triggerLocked(), c.st.cost.Cold(p, c.cfg.now()))
}

// billLocked adds a usage report to the conversation's bill.
func (c *Compressor) billLocked(u Usage) {
	read, write := max(u.CachedTokens, 0), max(u.CacheWriteTokens, 0)
	at := u.At
	if at.IsZero() {
		at = c.cfg.now()
	}
	c.st.cost.Report(models.Tokens{CacheRead: read, CacheWrite: write,
		Uncached: max(u.PromptTokens-read-write, 0), Output: max(u.CompletionTokens, 0)}, u.PromptTokens, at)
}

// isModel reports whether s is taken to call a model (and so to cost
// what the conversation's tokens cost): every summarizer but the
// extractive one.
func isModel(s Summarizer) bool {
	_, free := s.(*extractiveSummarizer)
	return !free
}

// editCost returns what the compaction that turned work into res is
// expected to cost: the tokens from the first message it changed on, the
// tokens it cleared and its summarizer call, priced.
func (c *Compressor) editCost(work []Message, res *Result, sum models.Tokens) models.Edit {
	first := 0
	for first < len(work) && first < len(res.Messages) && msg.EqualMessage(work[first], res.Messages[first]) {
		first++
	}
	rewritten := 0
	for _, m := range res.Messages[first:] {
		rewritten += c.tc.CountMessage(m)
	}
	c.mu.Lock()
	p := c.pricingLocked()
	c.mu.Unlock()
	return p.PriceEdit(models.Edit{Rewritten: rewritten, Cleared: max(res.TokensBefore-res.TokensAfter, 0), Summarizer: sum})
}

// pruneWorth reports whether pruning alone, leaving prunedAfter tokens of
// which rewritten follow its first change, costs no more per request than
// the summary p plans would; always true without prices. The summary is
// estimated: what the plan keeps, the carried messages and the summary's
// target, rewritten from the summary on, and its summarizer. Each cycle
// runs to the threshold, or in economy mode to the trigger it would set.
func (c *Compressor) pruneWorth(p plan, th thresholds, prunedAfter, rewritten int) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	pr, g := c.pricingLocked(), c.st.cost.Growth()
	if !pr.Known() {
		return true
	}
	fixed := c.st.cost.SummarizerCost(isModel(c.cfg.summarizer), 0)
	kept, after := plannedAfter(p, th)
	if isModel(c.cfg.summarizer) {
		fixed = max(fixed, float64(p.foldedTokens()))
	}
	// The cost per request of a cycle after each: pruning, then the summary.
	var cost [2]float64
	for i, cy := range [2]struct {
		after, rewritten int
		fixed            float64
	}{{prunedAfter, rewritten, 0}, {after, after - kept, fixed}} {
		until := th.threshold
		if th.economy {
			until = c.st.cost.Trigger(pr, th.threshold, cy.after, cy.fixed)
		}
		var err error
		if cost[i], err = economy.CycleCost(pr, cy.after, until, g, cy.rewritten, cy.fixed); err != nil {
			return true
		}
	}
	return cost[0] <= cost[1]
}

// plannedAfter estimates the history the summary p plans leaves: what
// the head keeps (kept), and with it the tail, the lifted user message,
// the carried messages and the summary's target (after).
func plannedAfter(p plan, th thresholds) (kept, after int) {
	kept = sum(p.counts[:p.headEnd])
	after = kept + sum(p.counts[p.cut:]) + min(th.carry, p.carriedTokens()) + summaryTarget(p, th)
	if p.lift >= 0 {
		after += p.counts[p.lift]
	}
	return kept, after
}

// foldWorth reports whether the summary p plans, on a history of before
// tokens and with a summary of about target tokens, is worth making. A
// summary that leaves the history a tail's budget or more under the
// trigger (room to spare, as pruning alone must leave) is what the
// threshold, or economy mode, asks for: it is made. One that cannot (a
// tail held near or over the threshold by one huge message) is made only
// when it pays back before the history, growing as a typical request
// makes it grow (the median step, so that one huge message does not make
// every history look short-lived), must shrink anyway to fit the usable
// window. The cost is the summarizer's and the premium of writing again,
// from the first message it changes, what the provider's cache holds of
// the last request (nothing when the cache has gone cold); the saving is
// the tokens cleared, read on every later request (see
// economy.BreakEven). It is always true without prices, over the
// usable window, or with nothing cached.
func (c *Compressor) foldWorth(p plan, th thresholds, before, target int) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	pr, g, cached := c.pricingLocked(), max(c.st.cost.TypicalGrowth(), 1), c.st.cost.Cached()
	if !pr.Known() || before > th.usable || cached <= 0 || c.st.cost.Cold(pr, c.cfg.now()) {
		return true
	}
	kept, after := plannedAfter(p, th)
	after += target - summaryTarget(p, th)
	cleared := before - after
	if after < min(th.threshold, c.triggerLocked())-th.tail || cleared <= 0 || pr.CacheRead <= 0 {
		return true // as the trigger asks; the assembled result decides (ErrNoSavings); reads are free
	}
	payback, err := economy.BreakEven(pr, max(min(cached, before)-kept, 0), cleared)
	if err != nil {
		return true
	}
	fixed := c.st.cost.SummarizerCost(isModel(c.cfg.summarizer), float64(p.foldedTokens()))
	payback += fixed * pr.Input / (pr.CacheRead * float64(cleared))
	return payback*float64(g) <= float64(th.usable-after)
}

// carriedTokens is what the real user messages of the middle take.
func (p plan) carriedTokens() int {
	n := 0
	for i := p.headEnd; i < p.cut; i++ {
		if i != p.lift && msg.IsRealUser(p.msgs[i]) {
			n += p.counts[i]
		}
	}
	return n
}

// summaryTokens estimates what a model-backed summarizer is billed for
// req and its reply body: History read from the cache as far as the
// provider stored it (cached tokens) and written after that, or the
// prompt SummaryPrompt renders in full, estimated without rendering it
// from the messages' counts (see promptsize.Prompt; within a few percent
// on the shared transcripts).
func (c *Compressor) summaryTokens(req SummaryRequest, body string, cached int) models.Tokens {
	out := models.Tokens{Output: c.tc.CountText(body)}
	if req.History != nil {
		n := tokens.CountMessages(c.tc, req.History) + c.instructionTokens(req)
		out.CacheRead = min(cached, n)
		out.CacheWrite = n - out.CacheRead
		return out
	}
	out.Uncached = c.prompts.promptTokens(c.tc, req)
	return out
}

// instructionTokens estimates the instruction message a summarizer sends
// after a shared History: the instructions and a few lines about the
// range.
func (c *Compressor) instructionTokens(req SummaryRequest) int {
	prompt := req.Prompt
	if prompt == "" {
		prompt = DefaultSummaryInstructions
	}
	return c.tc.CountMessage(Message{Role: RoleUser, Content: prompt}) + sharedRangeTokens
}

// sharedRangeTokens is a generous count of the lines a summarizer adds to
// its instructions to name the range of a shared History.
const sharedRangeTokens = 100

// share offers req the agent's history when the summarizer can send it
// and reading it from the cache costs less than the rendered prompt. It
// returns the tokens expected from the cache, 0 when History is not set.
func (c *Compressor) share(req *SummaryRequest, r *compaction) int {
	s, ok := c.cfg.summarizer.(PrefixSharer)
	if !ok || len(r.work) == 0 || len(r.work[len(r.work)-1].ToolCalls) > 0 {
		return 0 // a pending call group cannot be followed by an instruction
	}
	c.mu.Lock()
	model, p, cached := c.model, c.pricingLocked(), c.st.cost.Cached()
	cold := c.st.cost.Cold(p, c.cfg.now())
	c.mu.Unlock()
	if !p.Known() || cold || cached <= 0 || !s.SharesPrefix(model) {
		return 0
	}
	shared := *req
	shared.History, shared.Kept, shared.Tools, shared.Model = r.work, len(r.work)-r.p.cut, r.o.Tools, model
	withShare, err1 := p.Equivalent(c.summaryTokens(shared, "", cached))
	rendered, err2 := p.Equivalent(c.summaryTokens(*req, "", 0))
	if err1 != nil || err2 != nil || withShare >= rendered {
		return 0
	}
	*req = shared
	return cached
}
