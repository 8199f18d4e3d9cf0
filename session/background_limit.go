package session

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/prune"
	"github.com/contextkit/compact/tokens"
)

// This file is the hard limit of background compaction: no request handed
// out goes over the engine's usable window. A request path that finds the
// request over it prunes the request when that alone fits, waits for the
// running compaction otherwise, and compacts itself when none runs or the
// one it waited for was not enough.

// prunedRequest is a request pruned to fit the hard limit: msgs, taking
// tokens (tools included), for the live history at version, whose first
// length messages it stands for, as changes says; installs is the
// history's then.
type prunedRequest struct {
	version, installs uint64
	length            int
	msgs              []compact.Message
	tokens, tools     int // tools: the tool definitions' share of tokens
	changes           []prune.Change
}

// What a request path did at the hard limit, in AtLimit.Last.
const (
	limitPruned    = "pruned"
	limitWaited    = "waited"
	limitCompacted = "compacted"
)

// overLimit reports whether the next request, with incoming when it is not
// nil, is over the hard limit (false when the engine gives none, or the
// session is closed).
func (s *Session) overLimit(incoming *compact.Message) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed || s.req.usable <= 0 {
		return false
	}
	n := s.requestTokensLocked(incoming)
	if incoming == nil {
		n = s.nextTokensLocked()
	}
	return s.sizeLocked(n) > s.req.usable
}

// compressAtLimit is an unforced Compress with background compaction on:
// a request under the hard limit is left as it is (a background compaction
// starts when one is due); one over it is pruned when that alone fits,
// else waits for the running compaction, else is compacted here. o is
// opts applied.
func (s *Session) compressAtLimit(ctx context.Context, o compact.CompressOptions, opts []compact.CompressOption) (*compact.Result, error) {
	s.mu.Lock()
	closed := s.closed
	s.mu.Unlock()
	if closed {
		return nil, s.errorf("compress", ErrClosed)
	}
	if s.store != nil {
		// The request is the store's live history: what other processes
		// appended or compacted counts.
		if err := s.refresh(ctx); err != nil {
			return nil, err
		}
	}
	if o.Incoming != nil {
		// The incoming message joins the history first: it is what the
		// request must fit with, and a compaction keeps the latest user
		// message verbatim anyway.
		if err := s.Append(ctx, *o.Incoming); err != nil {
			return nil, err
		}
		opts = append(opts[:len(opts):len(opts)], func(o *compact.CompressOptions) { o.Incoming = nil })
	}
	s.refreshLimits()
	start := s.now()
	var awaited *bgRun
	for {
		if !s.overLimit(nil) {
			s.trigger()
			if awaited == nil {
				return s.unchanged("under the hard limit"), nil
			}
			s.atLimit(limitWaited, start, true)
			if awaited.res != nil {
				// Each request path that waited for it gets a copy of its
				// own.
				return ownResult(awaited.res), nil
			}
			return s.unchanged("under the hard limit after the running compaction ended"), nil
		}
		if res := s.pruneToFit(); res != nil {
			s.trigger()
			return res, nil
		}
		run := s.running()
		if run == nil || awaited != nil {
			return s.compactAtLimit(ctx, opts, start, awaited != nil)
		}
		if s.noWait {
			return nil, s.errorf("compress", ErrBusy)
		}
		if err := s.await(ctx, run); err != nil {
			s.countWait(start)
			return nil, err
		}
		awaited = run
	}
}

// await waits for run to end, or for ctx.
func (s *Session) await(ctx context.Context, run *bgRun) error {
	if s.onWait != nil {
		s.onWait()
	}
	defer s.blocked()()
	select {
	case <-run.done:
		return nil
	case <-ctx.Done():
		return s.errorf("waiting for the background compaction", ctx.Err())
	}
}

// compactAtLimit compacts on the request path a request over the hard
// limit, which no compaction running will bring under: as Compress does
// without background compaction, and forced when the engine would refuse
// for a pause or a backoff, since the request cannot be sent as it is.
// start is when the request path began; awaited reports that it waited
// for a background compaction first.
func (s *Session) compactAtLimit(ctx context.Context, opts []compact.CompressOption, start time.Time, awaited bool) (*compact.Result, error) {
	waited, err := s.acquireWaited(ctx, s.noWait)
	if err != nil {
		if waited || awaited {
			s.countWait(start)
		}
		return nil, err
	}
	defer s.release()
	res, blocked, err := s.compressHeld(ctx, kindForeground, s.engine.Compress, opts)
	if errors.Is(err, compact.ErrPaused) || errors.Is(err, compact.ErrBackoff) {
		var again bool
		res, again, err = s.compressHeld(ctx, kindForeground, s.engine.Compress, append(opts[:len(opts):len(opts)], compact.Force()))
		blocked = blocked || again
	}
	s.atLimit(limitCompacted, start, waited || awaited || blocked)
	return res, err
}

// atLimit counts what a request path that began at start did at the hard
// limit, and its wait when it blocked (see Status.Waits).
func (s *Session) atLimit(what string, start time.Time, blocked bool) {
	d := s.now().Sub(start)
	s.mu.Lock()
	defer s.mu.Unlock()
	if blocked {
		s.figures.waited(d)
	}
	switch what {
	case limitWaited:
		s.figures.atLimit.Waited++
	case limitCompacted:
		s.figures.atLimit.Compacted++
	}
	s.figures.atLimit.Last = what
}

// pruneAttempts bounds how often pruneToFit prunes again when the history
// changed while it pruned: appends racing a request path are rare, and a
// path that loses the race waits instead.
const pruneAttempts = 3

// pruneToFit prunes the live history for the next request, when that alone
// brings it under the hard limit, and makes the pruned request the one
// Messages hands out until the history changes. It returns what it did as
// a Result whose Skipped says the live history was left as it is, or nil
// when pruning does not make the request fit.
//
// When the history has only grown since the last request it pruned, and
// that request followed by the messages appended since fits, that is the
// request: nothing is pruned again, so what the provider cached of the
// last request stays its prefix, and a session at the limit for many
// requests prunes once in a while rather than at every one.
func (s *Session) pruneToFit() *compact.Result {
	if res := s.extendPruned(); res != nil {
		return res
	}
	for range pruneAttempts {
		s.mu.Lock()
		h, version, installs, tools, limit, threshold := s.history, s.version, s.installs, s.req.toolTokens, s.req.usable, s.req.threshold
		unseen := s.req.measure.Unseen()
		s.mu.Unlock()
		// The pressure pass demotes the largest results of the last few
		// messages, with the budget a Compressor gives it; when the request
		// is over the limit all the same, the fit pass trims its largest
		// earlier messages, of any role, for this request only (the live
		// history and the archive keep them whole). Any saving that makes
		// the request fit is worth its cache rewrite: the other way is a
		// wait.
		// The messages get what the tools and what counting misses leave
		// of the limit.
		pr := prune.Apply(h, prune.WithTokenCounter(s.counter), prune.WithPressure(max(threshold/2, 0)),
			prune.WithFit(max(limit-tools-unseen, 1)), prune.WithClearAtLeast(0))
		if !pr.Committed {
			return nil
		}
		n := tokens.CountMessages(s.counter, pr.Messages) + tools
		s.mu.Lock()
		if s.sizeLocked(n) > limit {
			s.mu.Unlock()
			return nil
		}
		if s.version != version {
			s.mu.Unlock()
			continue
		}
		p := &prunedRequest{version: version, installs: installs, length: len(h), msgs: pr.Messages, tokens: n, tools: tools,
			changes: pr.Changes}
		return s.handOutPrunedLocked(p)
	}
	return nil
}

// extendPruned returns the last request pruned followed by the messages
// appended since, as the next request, when the history has only grown
// since and that fits the hard limit; nil otherwise.
func (s *Session) extendPruned() *compact.Result {
	s.mu.Lock()
	p, h, version, limit := s.req.pruned, s.history, s.version, s.req.usable
	current := p != nil && p.installs == s.installs && p.length <= len(h) && p.tools == s.req.toolTokens
	s.mu.Unlock()
	if !current {
		return nil
	}
	added := h[p.length:]
	n := p.tokens + s.sum(added)
	s.mu.Lock()
	if s.sizeLocked(n) > limit || s.version != version || s.installs != p.installs || s.req.toolTokens != p.tools {
		s.mu.Unlock()
		return nil
	}
	next := *p
	next.version, next.length, next.msgs, next.tokens = version, len(h), concat(p.msgs, added), n
	return s.handOutPrunedLocked(&next)
}

// handOutPrunedLocked makes p the next request and reports it; s.mu is
// held, and released.
func (s *Session) handOutPrunedLocked(p *prunedRequest) *compact.Result {
	s.req.pruned = p
	s.figures.atLimit.Pruned++
	s.figures.atLimit.Last = limitPruned
	before := s.requestTokensLocked(nil)
	s.mu.Unlock()
	res := s.result(compact.Clone(p.msgs), before, p.tokens, "over the hard limit while a compaction runs: "+
		"this request is pruned, the live history is unchanged")
	res.MessagesBefore, res.Pruned = p.length, slices.Clone(p.changes)
	return res
}

// unchanged reports a Compress that left the next request as it is, for
// why.
func (s *Session) unchanged(why string) *compact.Result {
	s.mu.Lock()
	msgs, n := compact.Clone(s.requestLocked()), s.nextTokensLocked()
	s.mu.Unlock()
	return s.result(msgs, n, n, why)
}

// result is the Result of a Compress that compacted nothing: msgs is the
// next request, before and after its size before and after, why the
// reason.
func (s *Session) result(msgs []compact.Message, before, after int, why string) *compact.Result {
	s.mu.Lock()
	usable := s.req.usable
	s.mu.Unlock()
	res := &compact.Result{
		Messages: msgs, MessagesBefore: len(msgs), MessagesAfter: len(msgs), TokensBefore: before, TokensAfter: after,
		SummarizedFrom: -1, SummarizedTo: -1, SummaryIndex: -1, Lifted: -1, TooLarge: -1, Shortened: -1,
		Skipped: why, Usable: usable, Fits: usable <= 0 || after <= usable,
	}
	if !res.Fits {
		res.Overflow = after - usable
	}
	return res
}
