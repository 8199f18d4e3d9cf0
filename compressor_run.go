package compact

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/contextkit/compact/internal/english"
	"github.com/contextkit/compact/internal/meter"
	"github.com/contextkit/compact/internal/msg"
	"github.com/contextkit/compact/internal/textcut"
	"github.com/contextkit/compact/models"
	"github.com/contextkit/compact/prune"
	"github.com/contextkit/compact/tokens"
)

// BackoffError reports that automatic compaction is waiting after summarizer
// failures. It unwraps to ErrBackoff.
type BackoffError struct {
	Until    time.Time
	Failures int
}

// Error says how long the wait is.
func (e *BackoffError) Error() string {
	return fmt.Sprintf("compact: backing off after %d summarizer %s until %s",
		e.Failures, english.Noun(e.Failures, "failure"), e.Until.Format(time.RFC3339))
}

// Unwrap returns ErrBackoff.
func (e *BackoffError) Unwrap() error { return ErrBackoff }

// Compress folds the middle of msgs into one summary and returns the new
// history. See ContextEngine for the contracts it keeps. It is meant to be
// called before every request: a history under the threshold (counting the
// incoming message and tools the options name) comes back unchanged, with
// Result.Skipped saying so, at the cost of a memoised count and no copy
// (one WithRepair had to repair comes back repaired, not skipped).
// Force compacts anyway (a person's "/compress"), and also bypasses a pause
// or a backoff; CompressOptions.Early compacts anyway and keeps them.
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
// cause); ErrNoSavings when the result would not be smaller, or with
// prices known would not pay back its cache rewrite (see WithPricing). The caller's
// messages are never modified, so on any error it keeps them.
func (c *Compressor) Compress(ctx context.Context, msgs []Message, opts ...CompressOption) (*Result, error) {
	return c.compress(ctx, msgs, nil, opts)
}

// compaction is one run of Compress or CompressRange: what it was asked
// and what it learns on the way. Its methods are the steps of the run.
type compaction struct {
	c     *Compressor
	log   *slog.Logger // with the session attribute, fixed once for every line
	o     CompressOptions
	rng   *foldRange // the range a person chose; nil: the plan chooses the cut
	start time.Time
	msgs  []Message // the caller's history
	in    int       // messages the caller passed

	work    []Message // the history compacted: the caller's, or its repair
	repairs []Repair
	th      thresholds // the Compressor's, less what the tool definitions and what counting misses take
	tools   int        // what the tool definitions take
	over    bool       // the request is over the usable window
	p       plan
	counts  []int         // tokens of each message of work
	before  int           // tokens of work and the incoming message
	early   string        // why an automatic compaction under the threshold is due ("" at it)
	sum     models.Tokens // the summarizer's call, when a model was called
	shared  bool          // the summary was merged in front of the turn after it

	handoff *handoffJob // due after the run, written once the lock is released
}

// compress runs a compaction: the checks that need no lock (the context,
// the input, an unforced history under the threshold), then, holding the
// run lock, the cheap tier alone or a summary and its assembly, and last,
// with the lock released, an automatic handoff that is due. rng, when set,
// is the range a person chose (see CompressRange); otherwise the plan
// chooses the cut.
func (c *Compressor) compress(ctx context.Context, msgs []Message, rng *foldRange, opts []CompressOption) (*Result, error) {
	r := &compaction{c: c, log: c.cfg.logger, o: ApplyCompressOptions(opts...), rng: rng, start: c.cfg.now(), msgs: msgs, in: len(msgs)}
	if r.o.SessionID != "" {
		r.log = r.log.With("session", r.o.SessionID)
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("compact: %w", err)
	}
	c.tc.Round()
	var err error
	if r.work, r.repairs, err = c.takeIn(msgs, rng != nil); err != nil {
		return nil, err
	}
	if rng == nil && !r.o.Force && !r.o.Early {
		res, early := c.unneeded(r.work, r.o)
		if res != nil && r.repairs != nil {
			// Not skipped: the caller gets the repair, and its account.
			res.Skipped, res.Repairs = "", r.repairs
			res.TokensBefore = tokens.CountMessages(c.tc, msgs) + c.extraTokens(r.o)
			c.account(msgs, r.work, nil, res, false)
		}
		if res != nil {
			return r.finish(res), nil
		}
		r.early = early
	}
	if err := c.lockRun(ctx); err != nil {
		return nil, fmt.Errorf("compact: %w", err)
	}
	res, err := r.run(ctx)
	c.unlockRun()
	if err != nil {
		return nil, err
	}
	if r.handoff != nil {
		res.Handoff = c.finishHandoff(ctx, r.log, r.handoff)
	}
	return r.finish(res), nil
}

// lockRun takes the run lock, which a compaction holds from its plan to
// its assembly, or returns ctx's error once ctx is done: a caller with a
// deadline never waits behind a slow summarizer past it.
func (c *Compressor) lockRun(ctx context.Context) error {
	select {
	case c.run <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	if err := ctx.Err(); err != nil {
		c.unlockRun()
		return err
	}
	return nil
}

// unlockRun releases the run lock.
func (c *Compressor) unlockRun() { <-c.run }

// run plans the compaction and runs it: the cheap tier alone when that is
// enough, otherwise a summary. It is called with the run lock held.
func (r *compaction) run(ctx context.Context) (*Result, error) {
	c := r.c
	r.tools = tokens.CountTools(c.cfg.counter, r.o.Tools)
	r.counts = make([]int, len(r.work)) // counted once: the plan and the account take them
	for i, m := range r.work {
		r.counts[i] = c.tc.CountMessage(m)
	}
	r.before = min(len(r.counts), 1)*tokens.ReplyPrimingTokens + sum(r.counts)
	if r.o.Incoming != nil {
		r.before += c.tc.CountMessage(*r.o.Incoming)
	}
	c.mu.Lock()
	th, room := c.th, c.st.size.Room(r.before+r.tools)
	c.mu.Unlock()
	// Tool definitions ride along with every request, and so does what
	// the provider counts and the Compressor cannot see (see UpdateUsage):
	// the messages get what they leave of the threshold.
	th.threshold = max(th.threshold-r.tools-room.Unseen, 1)
	r.over = room.Size > th.usable
	// No pause lets a request over the usable window go out as it is.
	if room.Paused && !r.o.Force && !r.over {
		return nil, fmt.Errorf("%w: %s", ErrPaused, room.Reason)
	}
	r.th = th
	if r.rng != nil {
		r.p = c.rangePlan(r.work, r.counts, *r.rng, r.o.Incoming)
	} else {
		r.p = c.plan(r.work, r.counts, th, r.o.Incoming)
	}
	var res *Result
	var err error
	if r.rng == nil {
		res, err = r.pruneAlone()
	}
	if res == nil && err == nil {
		res, err = r.fold(ctx)
	}
	if err != nil {
		return nil, err
	}
	res.MessagesBefore, res.Repairs = r.in, r.repairs
	c.fit(res, th)
	c.trimOversized(res, th)
	c.account(r.msgs, r.work, r.counts, res, r.shared)
	res.Cost = c.editCost(r.work, res, r.sum)
	return res, nil
}

// finish fills in what every result reports of the run: the caller's
// message count, the repairs and the time taken.
func (r *compaction) finish(res *Result) *Result {
	res.MessagesBefore, res.Repairs, res.Duration = r.in, r.repairs, r.c.cfg.now().Sub(r.start)
	return res
}

// trimOversized shortens the latest user message of a result that does
// not fit because of it, when WithTrimOversized asks for that.
func (c *Compressor) trimOversized(res *Result, th thresholds) {
	if !c.cfg.trimOversized || res.Fits || res.TooLarge < 0 || !msg.IsRealUser(res.Messages[res.TooLarge]) {
		return
	}
	i := res.TooLarge
	if i != msg.LastIndex(res.Messages, 0, IsRealUser) {
		return
	}
	m := res.Messages[i]
	summary, own, shared := msg.SplitMerged(m) // the summary stays whole
	// A margin of a hundredth of the window absorbs the counting of the
	// marker the cut leaves.
	want := c.tc.CountMessage(own) - res.Overflow - th.usable/100
	if want <= 0 {
		return
	}
	short := msg.ReplaceText(own, textcut.ToTokens(msg.Text(own), want, c.tc.CountText))
	if shared {
		short = msg.MergeSummary(short, summary)
	}
	out := msg.Clone(res.Messages)
	out[i] = short
	res.Messages = out
	res.TokensAfter += c.tc.CountMessage(short) - c.tc.CountMessage(m)
	c.fit(res, th)
	res.Shortened = i
}

// unneeded returns the Result of a compaction that has nothing to do: an
// unforced request under the threshold, and under any earlier point the
// prices make due (see WithPricing), counting what the last usage report
// showed counting misses (see UpdateUsage); the count is the one the next
// report is compared with. It costs a count (memoised per message) and no
// copy: Messages is msgs itself, with the incoming message
// appended when there is one. It returns nil when the history must
// shrink, and why when that is under the threshold.
func (c *Compressor) unneeded(msgs []Message, o CompressOptions) (*Result, string) {
	counted := tokens.CountMessages(c.tc, msgs) + c.extraTokens(o)
	c.mu.Lock()
	th := c.th
	n := c.st.size.Counts(counted)
	due, early := c.dueLocked(n)
	c.mu.Unlock()
	if due {
		return nil, early
	}
	out := msgs
	if o.Incoming != nil {
		out = make([]Message, len(msgs), len(msgs)+1)
		copy(out, msgs)
		out = append(out, *o.Incoming)
	}
	res := &Result{
		Messages: out, MessagesBefore: len(msgs), MessagesAfter: len(out),
		TokensBefore: counted, TokensAfter: counted,
		SummarizedFrom: -1, SummarizedTo: -1, SummaryIndex: -1, Lifted: -1,
		Skipped: fmt.Sprintf("under the threshold (%d of %d tokens)", n, th.threshold),
	}
	c.fit(res, th)
	return res, ""
}

// extraTokens are the tokens a request carries besides its messages: the
// incoming message, and the tool definitions sent with it.
func (c *Compressor) extraTokens(o CompressOptions) int {
	n := tokens.CountTools(c.cfg.counter, o.Tools)
	if o.Incoming != nil {
		n += c.tc.CountMessage(*o.Incoming)
	}
	return n
}

// fit fills in whether res fits the usable window and, when it does not,
// by how much and which message compaction could not shrink.
func (c *Compressor) fit(res *Result, th thresholds) {
	res.Usable, res.TooLarge, res.Shortened, res.Overflow = th.usable, -1, -1, 0
	res.Fits = res.TokensAfter <= th.usable
	if res.Fits {
		return
	}
	res.Overflow = res.TokensAfter - th.usable
	largest := 0
	for i, m := range res.Messages {
		if i == res.SummaryIndex {
			_, m, _ = msg.SplitMerged(m) // what shares the summary's message may shrink
		}
		if msg.IsSystem(m) || msg.IsBlank(m) {
			continue
		}
		if n := c.tc.CountMessage(m); n > largest {
			largest, res.TooLarge = n, i
		}
	}
}

// takeIn checks the input: a valid history is taken as it is; a broken one
// is repaired when WithRepair allows it and no range was chosen (a repair
// would move the messages a chosen range names), and refused otherwise.
func (c *Compressor) takeIn(msgs []Message, ranged bool) ([]Message, []Repair, error) {
	err := Validate(msgs)
	if err == nil {
		return msgs, nil, nil
	}
	if !c.cfg.repair || ranged {
		return nil, nil, fmt.Errorf("compact: input %w", err)
	}
	work, repairs := RepairToolPairs(msgs)
	if err := Validate(work); err != nil {
		return nil, nil, fmt.Errorf("compact: input after repair %w", err)
	}
	return work, repairs, nil
}

// pruneAlone is the cheap tier: when pruning alone is enough, no summarizer
// runs. Enough means room to spare: a prune that lands just under the
// threshold would be followed by another compaction a turn or two later,
// each one breaking the provider's prompt cache. It returns nil, nil when
// the turns must be summarised.
func (r *compaction) pruneAlone() (*Result, error) {
	if r.o.Force && r.p.hasContent() {
		return nil, nil // a forced compaction summarises whatever pruning finds
	}
	pr := r.c.prune(r.work, r.p, r.th)
	if !pr.Committed {
		return nil, nil
	}
	after, first := pr.TokensAfter+r.before-pr.TokensBefore, len(r.work)
	for _, ch := range pr.Changes {
		first = min(first, ch.Index)
	}
	if r.p.hasContent() && (r.o.Force || after >= r.th.threshold-r.th.tail ||
		!r.c.pruneWorth(r.p, r.th, after, after-sum(r.p.counts[:first]))) {
		return nil, nil
	}
	return r.pruneOnly(pr)
}

// fold folds the turns the plan names into a summary and assembles the
// compacted history around it. A range the caller chose is summarised as
// asked, and what follows it stays as it is.
func (r *compaction) fold(ctx context.Context) (*Result, error) {
	c, p, th, o, before := r.c, &r.p, r.th, r.o, r.before
	if !p.hasContent() {
		return nil, ErrNothingToCompress
	}
	// A summary is at least its prefix: turns that take fewer tokens than
	// that cannot be folded into less, so no summarizer is asked to try.
	if folded, least := p.foldedTokens(), c.tc.CountMessage(Message{Role: RoleUser, Content: SummaryPrefix}); folded <= least {
		return nil, fmt.Errorf("%w: the turns to summarise take %d tokens, a summary at least %d", ErrNoSavings, folded, least)
	}
	var pruned []prune.Change
	if r.rng == nil {
		pruned = c.pruneTail(p, th)
	}

	prev, turns := p.split(c.cfg.note)
	candidates, at := carriedCandidates(*p)
	// Carried messages give way to a summary of twice its target where the
	// window is tight.
	carry := min(th.carry, max(th.usable-c.assembledTokens(*p, th, c.summaryText(th, "", nil), o.Incoming)-2*summaryTarget(*p, th), 0))
	chosen, dropped := msg.ChooseCarried(append(prev.carried, candidates...), carry, c.tc)
	req := SummaryRequest{
		Turns:           append(userTurns(dropped, len(prev.carried)), turns...),
		PreviousSummary: msg.WithOpenTasks(prev.previousSummary(), nil),
		Focus:           o.Focus,
		Prompt:          c.cfg.summaryPrompt,
	}
	req.TargetTokens = c.factsTarget(ctx, req, summaryTarget(*p, th), th.factsCap, p.foldedTokens())
	// The summary gets the room the request has once the rest is in, and
	// is cut at twice its target and at that room (a range compaction's
	// at twice its target alone).
	cut := 2 * req.TargetTokens
	if r.rng == nil {
		room := max(th.usable-c.assembledTokens(*p, th, c.summaryText(th, "", chosen), o.Incoming), minSummaryTokens)
		req.TargetTokens = min(req.TargetTokens, room)
		cut = min(2*req.TargetTokens, room)
	}
	if r.rng == nil && !o.Force && !c.foldWorth(*p, th, before, req.TargetTokens) {
		return nil, fmt.Errorf("%w: the summary would not pay back writing the cached history again", ErrNoSavings)
	}
	r.log.Info("compaction started", "messages", len(r.work), "tokens", before,
		"summarise_from", p.headEnd, "summarise_to", p.cut-1, "force", o.Force)

	cached := 0
	if th.priced {
		cached = c.share(&req, r)
	}
	body, name, fallback, err := c.runSummarizer(ctx, req, o.Force, r.over)
	if err != nil {
		r.log.Warn("compaction failed", "err", c.errText(err))
		return nil, err
	}
	if ran := c.cfg.summarizer; fallback != "" {
		req.History, ran = nil, c.cfg.fallback
		if isModel(ran) {
			r.sum = c.summaryTokens(req, body, 0)
		}
	} else if isModel(ran) {
		r.sum = c.summaryTokens(req, body, cached)
	}
	body = textcut.ToTokens(strings.TrimSpace(msg.StripSummaryPrefix(body)), cut, c.tc.CountText)
	body = msg.WithOpenTasks(body, o.OpenTasks)

	summary := c.summaryText(th, body, chosen)
	out, summaryAt, shared := c.assemble(*p, summary, o.Incoming, !th.priced)
	r.shared = shared
	if err := Validate(out); err != nil {
		// A bug, never the caller's fault; the caller keeps its messages.
		return nil, fmt.Errorf("compact: internal error, compacted history is invalid: %w", err)
	}
	after := c.assembledTokens(*p, th, summary, o.Incoming)
	if after >= before {
		return nil, fmt.Errorf("%w: %d tokens before, %d after", ErrNoSavings, before, after)
	}
	kind := meter.Summary
	if fallback != "" {
		kind = meter.Fallback
	}
	c.record(r, after, kind, r.sum)

	res := &Result{
		Messages: out, MessagesAfter: len(out),
		TokensBefore: before, TokensAfter: after,
		SummarizedFrom: p.headEnd, SummarizedTo: p.cut - 1, SummaryIndex: summaryAt,
		Summary: body, Carried: len(chosen), CarriedFrom: carriedFrom(at, len(chosen)), Lifted: p.lift,
		Summarizer: name, Fallback: fallback != "", FallbackReason: fallback,
		Pruned: pruned,
	}
	r.handoff = c.dueHandoff(r.log, r.work, o, res)
	r.log.Info("compaction done", "messages_before", len(r.work), "messages_after", len(out),
		"tokens_before", before, "tokens_after", after, "summarizer", name, "fallback", res.Fallback,
		"pruned", len(pruned))
	return res, nil
}

// record notes a finished compaction that left after tokens of messages:
// with the tools and what counting misses, a request still over the
// threshold is a strike at once; otherwise the next usage report judges
// it. That request's count is the one the next report is compared with.
func (c *Compressor) record(r *compaction, after int, kind string, sum models.Tokens) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.st.cost.Compacted(kind, r.early, after, sum, c.pricingLocked())
	c.st.compressions++
	c.st.size.Compacted(after+r.tools, c.cfg.now(), c.limitsLocked())
}

// runSummarizer produces the summary body. It returns the summarizer's
// name, and why the fallback was used ("" when it was not). During a
// backoff only a forced compaction calls the summarizer; an automatic one
// goes to the fallback, or under AbortOnFailure returns a *BackoffError,
// unless the request is over the usable window: the summarizer is then
// the only way to make it fit.
func (c *Compressor) runSummarizer(ctx context.Context, req SummaryRequest, force, overWindow bool) (body, name, fallback string, err error) {
	primary := c.cfg.summarizer
	c.mu.Lock()
	backingOff, until, failures := c.backingOffLocked(), c.st.backoffUntil, c.st.failures
	c.mu.Unlock()

	if backingOff && !force && (c.cfg.policy == FallbackExtractive || !overWindow) {
		if c.cfg.policy != FallbackExtractive {
			return "", "", "", &BackoffError{Until: until, Failures: failures}
		}
		fallback = "summarizer backing off after failures until " + until.Format(time.RFC3339)
	} else {
		body, err = c.callSummarizer(ctx, primary, req)
		if err == nil && strings.TrimSpace(msg.StripSummaryPrefix(body)) == "" {
			err = errors.New("empty summary")
		}
		if err == nil {
			c.mu.Lock()
			c.st.failures, c.st.backoffUntil, c.st.lastError = 0, time.Time{}, ""
			c.mu.Unlock()
			return body, summarizerName(primary), "", nil
		}
		if ctx.Err() != nil {
			// Not a summarizer failure: the caller gave up. The error wraps
			// ctx.Err() whatever the summarizer returned.
			return "", "", "", fmt.Errorf("compact: %w: summarizer: %w", ctx.Err(), err)
		}
		c.fail(err)
		if c.cfg.policy != FallbackExtractive || errors.Is(err, ErrSummarizerAuth) || errors.Is(err, ErrSummarizerQuota) {
			return "", "", "", wrapSummarizerErr(err)
		}
		fallback = "summarizer failed: " + c.errText(err)
	}
	body, err = c.callSummarizer(ctx, c.cfg.fallback, req)
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
	c.st.lastError = c.errText(err)
	if n := len(c.cfg.backoff); n > 0 {
		c.st.backoffUntil = c.cfg.now().Add(c.cfg.backoff[min(c.st.failures, n)-1])
	}
}

// split gathers what the middle's earlier summaries hold and the turns to
// summarise: the middle without those summaries (a summary merged into a
// real message leaves that message behind). A summary's body loses the
// note it opens with (see WithPricing).
func (p plan) split(note string) (earlier, []Message) {
	var e earlier
	var turns []Message
	for i := p.headEnd; i < p.cut; i++ {
		m := p.msgs[i]
		summary, rest, ok := msg.SplitMerged(m)
		if !ok {
			turns = append(turns, m)
			continue
		}
		body, carried := msg.SplitCarried(summary)
		if note != "" {
			body = strings.TrimSpace(strings.TrimPrefix(body, note))
		}
		if body != "" {
			e.bodies = append(e.bodies, body)
		}
		e.carried = append(e.carried, carried...)
		if !msg.IsBlank(rest) || len(rest.ToolCalls) > 0 {
			turns = append(turns, rest)
		}
	}
	return e, turns
}

// carriedCandidates are the texts of the real user messages in the middle,
// oldest first, except a lifted one (it comes back whole on its own), with
// their indexes.
func carriedCandidates(p plan) (texts []string, at []int) {
	for i := p.headEnd; i < p.cut; i++ {
		if i == p.lift || !msg.IsRealUser(p.msgs[i]) {
			continue
		}
		_, rest, _ := msg.SplitMerged(p.msgs[i])
		if t := msg.Text(rest); strings.TrimSpace(t) != "" {
			texts, at = append(texts, t), append(at, i)
		}
	}
	return texts, at
}

// carriedFrom returns the indexes of the candidates chooseCarried chose.
// It chooses the newest entries of its list (earlier summaries' carried
// messages, then the candidates at names), chosen of them, so a candidate
// is chosen when it is among the last chosen of the list.
func carriedFrom(at []int, chosen int) []int {
	if first := len(at) - chosen; first > 0 {
		at = at[first:]
	}
	return append([]int(nil), at...)
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

// summaryText is the summary assemble is given (with !th.priced): with
// prices known the compaction note goes into it, where the history changes
// anyway, so the system prompt's cache survives.
func (c *Compressor) summaryText(th thresholds, body string, carried []string) string {
	if th.priced && c.cfg.note != "" {
		body = c.cfg.note + "\n\n" + body
	}
	return msg.SummaryText(body, carried)
}

// assembledTokens is tokens.CountMessages of what assemble(p, summary,
// incoming, !th.priced) returns, without copying: p holds the counts of
// the messages it keeps as they are. With an empty body's summary, the
// usable window less it is the room the summary's body has.
func (c *Compressor) assembledTokens(p plan, th thresholds, summary string, incoming *Message) int {
	n := tokens.ReplyPrimingTokens + sum(p.counts[:p.headEnd])
	if !th.priced && c.cfg.note != "" && p.sysEnd > 0 && !strings.Contains(msg.Text(p.msgs[0]), c.cfg.note) {
		n += c.tc.CountMessage(msg.AppendNote(p.msgs[0], c.cfg.note)) - p.counts[0]
	}
	next := p.next(incoming) // the lifted message, the tail, the incoming one
	n += sum(p.counts[p.cut:])
	if p.lift >= 0 {
		n += c.tc.CountMessage(next[0])
	}
	if incoming != nil {
		n += c.tc.CountMessage(*incoming)
	}
	var prev *Message
	if p.headEnd > p.sysEnd {
		prev = &p.msgs[p.headEnd-1]
	}
	role := summaryRole(prev, next)
	if role == RoleAssistant && prev == nil && !c.cfg.assistantFirst {
		return n - c.tc.CountMessage(next[0]) + c.tc.CountMessage(msg.MergeSummary(next[0], summary))
	}
	return n + c.tc.CountMessage(Message{Role: role, Content: summary})
}

// assemble builds the compacted history: the system messages (the first
// with the compaction note, when note), the head, the summary message, the
// lifted user message, the tail, and the incoming message. A summary that
// would open the history as an assistant turn is merged in front of the
// user turn after it instead, unless WithUserFirst(false). It returns the
// history, the summary's index in it, and whether the summary shares its
// message.
func (c *Compressor) assemble(p plan, summary string, incoming *Message, note bool) ([]Message, int, bool) {
	sysMsgs := msg.Clone(p.msgs[:p.sysEnd])
	if note && c.cfg.note != "" && len(sysMsgs) > 0 && !strings.Contains(msg.Text(sysMsgs[0]), c.cfg.note) {
		sysMsgs[0] = msg.AppendNote(sysMsgs[0], c.cfg.note)
	}
	head := p.msgs[p.sysEnd:p.headEnd]
	next := p.next(incoming)
	var prev *Message
	if len(head) > 0 {
		prev = &head[len(head)-1]
	}
	out := make([]Message, 0, len(sysMsgs)+len(head)+len(next)+1)
	out = append(out, sysMsgs...)
	out = append(out, msg.Clone(head)...)
	at := len(out)
	role := summaryRole(prev, next)
	if role == RoleAssistant && prev == nil && !c.cfg.assistantFirst {
		// Only the user turn next opens on kept the summary from the role.
		return append(append(out, msg.MergeSummary(next[0], summary)), msg.Clone(next[1:])...), at, true
	}
	out = append(out, Message{Role: role, Content: summary})
	return append(out, msg.Clone(next)...), at, false
}

// summaryRole picks the summary message's role: user, or assistant where a
// user turn would meet another user turn. "" when neither fits.
func summaryRole(prev *Message, next []Message) string {
	for _, role := range [...]string{RoleUser, RoleAssistant} {
		s := Message{Role: role}
		if prev != nil && msg.Clashes(*prev, s) {
			continue
		}
		if len(next) > 0 && msg.Clashes(s, next[0]) {
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
