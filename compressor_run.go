package compact

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Result reports what a compaction did.
type Result struct {
	// Messages is the compacted history, ready to send. It shares nothing
	// with the input.
	Messages []Message

	MessagesBefore, MessagesAfter int
	TokensBefore, TokensAfter     int

	// SummarizedFrom and SummarizedTo are the input indexes, inclusive, of
	// the messages folded into the summary; both -1 when nothing was.
	SummarizedFrom, SummarizedTo int
	// SummaryIndex is the summary's index in Messages, or -1.
	SummaryIndex int
	// Summary is the summary's body, without prefix or carried messages.
	Summary string
	// Carried is how many real user messages from the summarised range ride
	// along verbatim inside the summary message.
	Carried int
	// Lifted is the input index of the latest real user message when it lay
	// inside the summarised range and was placed, verbatim, right after the
	// summary; -1 otherwise.
	Lifted int

	// Summarizer names the summarizer whose summary was used; "" when
	// pruning alone was enough.
	Summarizer string
	// Fallback is set when the configured summarizer failed (or was backing
	// off) and the fallback summary was used; FallbackReason says why.
	Fallback       bool
	FallbackReason string

	// Repairs lists the changes made to a broken input (see WithRepair).
	Repairs []Repair

	// Pruned lists the messages pruning changed (see WithPruning), by
	// their index in the input, each with what was done and what it saved:
	// on a compaction that pruning alone achieved (SummaryIndex -1), every
	// change; otherwise the results the pressure pass demoted in the tail.
	Pruned []PruneChange

	// Handoff reports the packet an automatic handoff wrote after this
	// compaction (see WithHandoff); nil when there was none. Messages is the
	// ordinary compaction either way: in fresh-session mode the host
	// chooses between it and Handoff.Continuation.
	Handoff *Handoff

	Duration time.Duration
}

// BackoffError reports that automatic compaction is waiting after summarizer
// failures. It unwraps to ErrBackoff.
type BackoffError struct {
	Until    time.Time
	Failures int
}

// Error says how long the wait is.
func (e *BackoffError) Error() string {
	return fmt.Sprintf("compact: backing off after %d summarizer failures until %s",
		e.Failures, e.Until.Format(time.RFC3339))
}

// Unwrap returns ErrBackoff.
func (e *BackoffError) Unwrap() error { return ErrBackoff }

// Compress folds the middle of msgs into one summary and returns the new
// history. See ContextEngine for the contracts it keeps. A history over the
// threshold is not required: Compress compacts whatever it is given unless
// automatic compaction is paused or backing off (Force bypasses both).
//
// It prunes first (see WithPruning): when pruning old tool output brings
// the history under the threshold, and the compaction is not forced, the
// pruned history is the result and no summarizer is called.
//
// Errors: the input's first problem (wrapping ErrInvalidHistory) unless
// WithRepair is set; ErrNothingToCompress when everything is protected and
// pruning finds nothing to reclaim;
// ErrPaused; a *BackoffError; ErrSummarizer (wrapping the summarizer's own
// error, and ErrSummarizerAuth or ErrSummarizerQuota when those are the
// cause); ErrNoSavings when the result would not be smaller. The caller's
// messages are never modified, so on any error it keeps them.
func (c *Compressor) Compress(ctx context.Context, msgs []Message, opts ...CompressOption) (*Result, error) {
	return c.compress(ctx, msgs, nil, opts)
}

// compress runs a compaction. rng, when set, is the range a person chose
// (see CompressRange); otherwise the plan chooses the cut.
func (c *Compressor) compress(ctx context.Context, msgs []Message, rng *foldRange, opts []CompressOption) (*Result, error) {
	o := ApplyCompressOptions(opts...)
	// The session attribute is fixed here, once, for every line this
	// compaction logs.
	log := c.cfg.logger
	if o.SessionID != "" {
		log = log.With("session", o.SessionID)
	}
	c.run.Lock()
	defer c.run.Unlock()
	start := c.cfg.now()
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("compact: %w", err)
	}

	work := msgs
	var repairs []Repair
	if err := Validate(msgs); err != nil {
		// A repair would move the messages a chosen range names.
		if !c.cfg.repair || rng != nil {
			return nil, fmt.Errorf("compact: input %w", err)
		}
		work, repairs = RepairToolPairs(msgs)
		if err := Validate(work); err != nil {
			return nil, fmt.Errorf("compact: input after repair %w", err)
		}
	}

	c.mu.Lock()
	th, paused, why := c.th, c.st.paused, c.st.pauseReason
	c.mu.Unlock()
	if paused && !o.Force {
		return nil, fmt.Errorf("%w: %s", ErrPaused, why)
	}

	var p plan
	if rng != nil {
		p = c.rangePlan(work, *rng, o.Incoming)
	} else {
		p = c.plan(work, th, o.Incoming)
	}
	before := CountMessages(c.cfg.counter, work)
	if o.Incoming != nil {
		before += c.cfg.counter.CountMessage(*o.Incoming)
	}
	// The cheap tier first: when pruning alone is enough, no summarizer runs.
	// Enough means room to spare: a prune that lands just under the
	// threshold would be followed by another compaction a turn or two later,
	// each one breaking the provider's prompt cache.
	// A range the caller chose is summarised as asked, and what follows it
	// stays as it is.
	if rng == nil {
		if pr := c.prune(work, p, th); pr.Committed &&
			(!p.hasContent() || (!o.Force && pr.TokensAfter+before-pr.TokensBefore < th.threshold-th.tail)) {
			res, err := c.pruneOnly(log, len(msgs), pr, o.Incoming, before, th.threshold)
			if res != nil {
				res.Repairs, res.Duration = repairs, c.cfg.now().Sub(start)
			}
			return res, err
		}
	}
	if !p.hasContent() {
		return nil, ErrNothingToCompress
	}
	// A summary is at least its prefix: turns that take fewer tokens than
	// that cannot be folded into less, so no summarizer is asked to try.
	if folded, least := p.foldedTokens(), c.cfg.counter.CountMessage(Message{Role: RoleUser, Content: SummaryPrefix}); folded <= least {
		return nil, fmt.Errorf("%w: the turns to summarise take %d tokens, a summary at least %d", ErrNoSavings, folded, least)
	}
	var pruned []PruneChange
	if rng == nil {
		pruned = c.pruneTail(&p, th)
	}

	prev, turns := p.split()
	chosen, dropped := chooseCarried(append(prev.carried, carriedCandidates(p)...), th.carry, c.cfg.counter)
	req := SummaryRequest{
		Turns:           append(userTurns(dropped, len(prev.carried)), turns...),
		PreviousSummary: prev.previousSummary(),
		Focus:           o.Focus,
		TargetTokens:    summaryTarget(p, th),
	}
	log.Info("compaction started", "messages", len(msgs), "tokens", before,
		"summarise_from", p.headEnd, "summarise_to", p.cut-1, "force", o.Force)

	body, name, fallback, err := c.runSummarizer(ctx, req, o.Force)
	if err != nil {
		log.Warn("compaction failed", "err", errText(err))
		return nil, err
	}
	body = shortenToTokens(strings.TrimSpace(StripSummaryPrefix(body)), 2*req.TargetTokens, c.cfg.counter)

	out, summaryAt := c.assemble(p, summaryText(body, chosen), o.Incoming)
	if err := Validate(out); err != nil {
		// A bug, never the caller's fault; the caller keeps its messages.
		return nil, fmt.Errorf("compact: internal error, compacted history is invalid: %w", err)
	}
	after := CountMessages(c.cfg.counter, out)
	if after >= before {
		return nil, fmt.Errorf("%w: %d tokens before, %d after", ErrNoSavings, before, after)
	}
	c.record(after, th.threshold)

	res := &Result{
		Messages: out, MessagesBefore: len(msgs), MessagesAfter: len(out),
		TokensBefore: before, TokensAfter: after,
		SummarizedFrom: p.headEnd, SummarizedTo: p.cut - 1, SummaryIndex: summaryAt,
		Summary: body, Carried: len(chosen), Lifted: p.lift,
		Summarizer: name, Fallback: fallback != "", FallbackReason: fallback,
		Repairs: repairs, Pruned: pruned, Duration: c.cfg.now().Sub(start),
	}
	res.Handoff = c.maybeHandoff(ctx, log, work, o, res)
	log.Info("compaction done", "messages_before", len(msgs), "messages_after", len(out),
		"tokens_before", before, "tokens_after", after, "summarizer", name, "fallback", res.Fallback,
		"pruned", len(pruned))
	return res, nil
}

// record notes a finished compaction: a result still over the threshold is a
// strike at once; otherwise the next usage report judges it.
func (c *Compressor) record(after, threshold int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.st.compressions++
	c.st.lastPrompt = after
	if after >= threshold {
		c.strikeLocked("compaction left usage over the threshold")
		c.st.checkNext = false
		return
	}
	c.st.checkNext = true
}

// runSummarizer produces the summary body. It returns the summarizer's
// name, and why the fallback was used ("" when it was not).
func (c *Compressor) runSummarizer(ctx context.Context, req SummaryRequest, force bool) (body, name, fallback string, err error) {
	primary := c.cfg.summarizer
	c.mu.Lock()
	backingOff, until, failures := c.backingOffLocked(), c.st.backoffUntil, c.st.failures
	c.mu.Unlock()

	if backingOff && !force {
		if c.cfg.policy != FallbackExtractive {
			return "", "", "", &BackoffError{Until: until, Failures: failures}
		}
		fallback = "summarizer backing off after failures until " + until.Format(time.RFC3339)
	} else {
		body, err = c.summarize(ctx, primary, req)
		if err == nil && strings.TrimSpace(StripSummaryPrefix(body)) == "" {
			err = errors.New("empty summary")
		}
		if err == nil {
			c.mu.Lock()
			c.st.failures, c.st.backoffUntil, c.st.lastError = 0, time.Time{}, ""
			c.mu.Unlock()
			return body, summarizerName(primary), "", nil
		}
		if ctx.Err() != nil {
			return "", "", "", fmt.Errorf("%w: %w", ErrSummarizer, err)
		}
		c.fail(err)
		if c.cfg.policy != FallbackExtractive || errors.Is(err, ErrSummarizerAuth) || errors.Is(err, ErrSummarizerQuota) {
			return "", "", "", wrapSummarizerErr(err)
		}
		fallback = "summarizer failed: " + errText(err)
	}
	body, err = c.summarize(ctx, c.cfg.fallback, req)
	if err == nil && strings.TrimSpace(body) == "" {
		err = errors.New("empty summary")
	}
	if err != nil {
		return "", "", "", wrapSummarizerErr(fmt.Errorf("fallback: %w", err))
	}
	return body, summarizerName(c.cfg.fallback), fallback, nil
}

func wrapSummarizerErr(err error) error {
	if errors.Is(err, ErrSummarizer) {
		return err
	}
	return fmt.Errorf("%w: %w", ErrSummarizer, err)
}

// fail records a summarizer failure and starts or lengthens the backoff.
func (c *Compressor) fail(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.st.failures++
	c.st.lastError = errText(err)
	if n := len(c.cfg.backoff); n > 0 {
		c.st.backoffUntil = c.cfg.now().Add(c.cfg.backoff[min(c.st.failures, n)-1])
	}
}

// split gathers what the middle's earlier summaries hold and the turns to
// summarise: the middle without those summaries (a summary merged into a
// real message leaves that message behind).
func (p plan) split() (earlier, []Message) {
	var e earlier
	var turns []Message
	for i := p.headEnd; i < p.cut; i++ {
		m := p.msgs[i]
		summary, rest, ok := splitMerged(m)
		if !ok {
			turns = append(turns, m)
			continue
		}
		body, carried := splitCarried(summary)
		if body != "" {
			e.bodies = append(e.bodies, body)
		}
		e.carried = append(e.carried, carried...)
		if !isBlank(rest) || len(rest.ToolCalls) > 0 {
			turns = append(turns, rest)
		}
	}
	return e, turns
}

// carriedCandidates are the texts of the real user messages in the middle,
// oldest first, except a lifted one (it comes back whole on its own).
func carriedCandidates(p plan) []string {
	var out []string
	for i := p.headEnd; i < p.cut; i++ {
		if i == p.lift || !IsRealUser(p.msgs[i]) {
			continue
		}
		_, rest, _ := splitMerged(p.msgs[i])
		if t := Text(rest); strings.TrimSpace(t) != "" {
			out = append(out, t)
		}
	}
	return out
}

// userTurns turns carried texts that no longer fit back into user turns for
// the summarizer; only those that came from an earlier summary (the first
// fromEarlier candidates) are not among the turns already.
func userTurns(dropped []string, fromEarlier int) []Message {
	var out []Message
	for _, t := range dropped[:min(len(dropped), fromEarlier)] {
		out = append(out, Message{Role: RoleUser, Content: t})
	}
	return out
}

// summaryTarget is the summary's target length: a fifth of what is being
// summarised, within [minSummaryTokens, th.summary].
func summaryTarget(p plan, th thresholds) int {
	return max(min(sum(p.counts[p.headEnd:p.cut])/5, th.summary), minSummaryTokens)
}

// assemble builds the compacted history: the system messages (the first
// with the compaction note), the head, the summary message, the lifted user
// message, the tail, and the incoming message. It returns the history and
// the summary's index in it.
func (c *Compressor) assemble(p plan, summary string, incoming *Message) ([]Message, int) {
	sysMsgs := Clone(p.msgs[:p.sysEnd])
	if c.cfg.note != "" && len(sysMsgs) > 0 && !strings.Contains(Text(sysMsgs[0]), c.cfg.note) {
		sysMsgs[0] = appendNote(sysMsgs[0], c.cfg.note)
	}
	head := p.msgs[p.sysEnd:p.headEnd]
	next := p.next(incoming)
	var prev *Message
	if len(head) > 0 {
		prev = &head[len(head)-1]
	}
	out := make([]Message, 0, len(sysMsgs)+len(head)+len(next)+1)
	out = append(out, sysMsgs...)
	out = append(out, Clone(head)...)
	at := len(out)
	out = append(out, Message{Role: summaryRole(prev, next), Content: summary})
	out = append(out, Clone(next)...)
	return out, at
}

// appendNote returns a system message with note appended once.
func appendNote(m Message, note string) Message {
	if len(m.MultiContent) > 0 {
		out := CloneMessage(m)
		joinContent(&out, m, Message{Content: note}, compactionNoteSep)
		return out
	}
	return WithText(m, m.Content+compactionNoteSep+note)
}

// summaryRole picks the summary message's role: user, or assistant where a
// user turn would meet another user turn. "" when neither fits.
func summaryRole(prev *Message, next []Message) string {
	for _, role := range [...]string{RoleUser, RoleAssistant} {
		s := Message{Role: role}
		if prev != nil && clashes(*prev, s) {
			continue
		}
		if len(next) > 0 && clashes(s, next[0]) {
			continue
		}
		return role
	}
	return ""
}

func sum(xs []int) int {
	t := 0
	for _, x := range xs {
		t += x
	}
	return t
}
