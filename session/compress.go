package session

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/tokens"
)

// Compress compacts the live history with the session's engine and installs
// the result. It runs in four steps:
//
//  1. It takes the session's slot: a compaction of this session already
//     running is waited for (until ctx is done), or with WithWait(false)
//     refused with an error wrapping ErrBusy. With a Leaser store it then
//     takes the session's lease the same way, so that no other process or
//     host compacts the session meanwhile, and renews it while it runs.
//  2. It takes the history as it stands (with a store, as the store has
//     it) and runs the engine on a copy, outside any lock, with the tools
//     the request carries (compact.WithTools: those opts name, else those
//     last named, and the recall tools) and WithSessionID(s.ID()) added to
//     opts (last, so a caller cannot name another session). Append goes on
//     meanwhile.
//  3. With a store, it commits the compaction there under the lease. If
//     the store refuses (the lease was lost, say) the compaction is
//     abandoned and the live history is unchanged.
//  4. It replaces the live history with the compacted one followed by every
//     message appended since step 2, verbatim and in the order they were
//     appended, and recounts Tokens. With a store, it reads from the store
//     only the messages other processes appended meanwhile, if any.
//
// Messages appended during the compaction are never merged or edited, so if
// the compacted history ends with a user turn and the host appended another
// user turn, the two stand side by side as the host sent them.
//
// When the engine had nothing to do (Result.Skipped is set: the history is
// under its threshold and the call was not forced) nothing is committed,
// the live history becomes the one the store gave (which may hold what
// other processes appended), and a WithIncoming message is appended as it
// is.
//
// The returned Result is the caller's own: a copy of the engine's, with
// or without a store, sharing nothing with the engine's Result or the
// live history, so the caller may keep or change it. Its Messages are the
// compacted history as the session installed it (with WithRecall, its
// summary ends with the recall line) without the messages appended during
// the compaction, which Messages includes. A WithIncoming message comes back inside the compacted
// history, so it is part of the live history afterwards and must not be
// appended again.
//
// On error the live history is unchanged (messages appended meanwhile are
// kept), and the error is the engine's (see its Compress), the store's
// wrapped (ErrLeaseLost, ErrStaleFence, ErrConflict...), an error wrapping
// ErrBusy or ErrClosed, or ctx's. One error is different: once the store
// has committed the compaction, Compress returns its Result even if ctx
// ends or the store fails while it reads what other processes appended
// meanwhile; the error then wraps ErrStale, the view holds the compacted
// history without those messages until the next Append or Sync, and the
// compaction must not be repeated.
//
// A call that blocked counts in Status().Waits: it waited for a compaction
// running or for another process's lease, or its own compaction called
// the summarizer. One that pruning alone achieved took moments and does
// not. With background compaction on (WithBackground),
// a Compress that is not forced compacts only a request over the hard
// limit, and may prune that request or wait for the background compaction
// instead; see WithBackground. It returns the Result of the compaction it
// waited for, or one whose Skipped says what it did.
func (s *Session) Compress(ctx context.Context, opts ...compact.CompressOption) (*compact.Result, error) {
	o := compact.ApplyCompressOptions(opts...)
	s.setTools(o.Tools)
	if s.bgOn && !o.Force {
		return s.compressAtLimit(ctx, o, opts)
	}
	return s.compress(ctx, s.engine.Compress, opts)
}

// engineFunc is a way to compact a history with the session's engine:
// its Compress, or a partial compaction (see CompressHere).
type engineFunc func(ctx context.Context, msgs []compact.Message, opts ...compact.CompressOption) (*compact.Result, error)

// compress is Compress with fn in the engine's place, on the request path:
// it takes the slot (waiting for a running compaction, unless the session
// does not wait), compacts, and counts the wait when there was one.
func (s *Session) compress(ctx context.Context, fn engineFunc, opts []compact.CompressOption) (*compact.Result, error) {
	start := s.now()
	waited, err := s.acquireWaited(ctx, s.noWait)
	if err != nil {
		if waited {
			s.countWait(start)
		}
		return nil, err
	}
	defer s.release()
	res, blocked, err := s.compressHeld(ctx, kindForeground, fn, opts)
	if waited || blocked {
		s.countWait(start)
	}
	return res, err
}

// countWait counts a request path that waited for a compaction since start.
func (s *Session) countWait(start time.Time) {
	d := s.now().Sub(start)
	s.mu.Lock()
	s.figures.waited(d)
	s.mu.Unlock()
}

// compressHeld compacts with fn, a compaction of kind k; the caller holds
// the slot. blocked reports whether the compaction held its caller up
// (see blocking).
func (s *Session) compressHeld(ctx context.Context, k kind, fn engineFunc, opts []compact.CompressOption) (res *compact.Result, blocked bool, err error) {
	s.mu.Lock()
	closed := s.closed
	if !closed {
		s.compacting = true
	}
	s.mu.Unlock()
	if closed {
		return nil, false, s.errorf("compress", ErrClosed)
	}
	defer func() {
		s.mu.Lock()
		s.compacting = false
		s.mu.Unlock()
	}()

	opts = s.engineOptions(opts)
	run := func(ctx context.Context, msgs []compact.Message) (*compact.Result, error) {
		res, err := fn(ctx, msgs, opts...)
		if err == nil && res == nil {
			err = s.errorf("compress", fmt.Errorf("engine %s returned neither a result nor an error: %w",
				s.engine.Name(), compact.ErrInvalidHistory))
		}
		return res, err
	}
	leaseWaited := false
	if s.store != nil {
		res, leaseWaited, err = s.compactStored(ctx, "compress", k, run)
	} else {
		res, err = s.compactMemory(ctx, k, run)
	}
	blocked = leaseWaited || blocking(res, err)
	if err == nil && res.Skipped != "" {
		// Nothing was compacted; an incoming message still joins the
		// history, as it would have inside a compacted one.
		if in := compact.ApplyCompressOptions(opts...).Incoming; in != nil {
			err = s.append(ctx, []compact.Message{*in})
		}
	}
	return res, blocked, err
}

// blocking reports whether a compaction that ended with res and err held
// up the request path that ran it: it called a summarizer (a model, as a
// rule: seconds), or it failed after it began its work (a summarizer that
// failed or timed out, say). A compaction that pruning alone achieved
// (Result.Summarizer empty) takes moments and is no wait; neither is one
// that found nothing to do or was refused at once.
func blocking(res *compact.Result, err error) bool {
	if res != nil { // with an error wrapping ErrStale, the committed compaction's
		return res.Skipped == "" && res.Summarizer != ""
	}
	return err != nil && !refused(err)
}

// refused reports an error with which a compaction ended before any work:
// nothing to fold, a pause or a backoff, a busy lease.
func refused(err error) bool {
	return errors.Is(err, compact.ErrNothingToCompress) || errors.Is(err, compact.ErrPaused) ||
		errors.Is(err, compact.ErrBackoff) || errors.Is(err, ErrBusy) || errors.Is(err, ErrClosed)
}

// ownResult returns a copy of res for the caller of a compaction, sharing
// no slice, message or report with it: whatever the caller does with it
// touches neither the engine's Result nor the live history.
func ownResult(res *compact.Result) *compact.Result {
	out := *res
	out.Messages = compact.Clone(res.Messages)
	out.CarriedFrom = slices.Clone(res.CarriedFrom)
	out.Repairs = slices.Clone(res.Repairs)
	out.Pruned = slices.Clone(res.Pruned)
	out.Account = slices.Clone(res.Account)
	if res.Handoff != nil {
		h := *res.Handoff
		h.Continuation = compact.Clone(h.Continuation)
		out.Handoff = &h
	}
	return &out
}

// compaction is what one compaction did, for the log line that ends it.
type compaction struct {
	kind                         kind
	start                        time.Time
	messagesBefore, tokensBefore int
	snapshot                     string
	res                          *compact.Result
}

// begin logs the start of a compaction of kind k of msgs and returns its
// record.
func (s *Session) begin(k kind, msgs []compact.Message) *compaction {
	c := &compaction{kind: k, start: s.now(), messagesBefore: len(msgs), tokensBefore: s.countAll(msgs)}
	s.log.Info("compaction started", "messages", c.messagesBefore, "tokens", c.tokensBefore, "engine", s.engine.Name(),
		"in", k.String())
	return c
}

func (s *Session) fail(c *compaction, err error) error {
	if c != nil {
		s.log.Warn("compaction failed", "messages", c.messagesBefore, "tokens", c.tokensBefore, "in", c.kind.String(), errAttr(err))
	} else {
		s.log.Warn("compaction failed", errAttr(err))
	}
	return err
}

// done logs the end of compaction c and counts it.
func (s *Session) done(c *compaction, arrived int) {
	took := s.now().Sub(c.start)
	s.mu.Lock()
	s.compactions++
	s.figures.counted(c.kind)
	if c.res.Summarizer != "" && c.kind != kindRecorded {
		// A recorded compaction took the provider's time, not ours.
		s.req.pace.compacted(took)
	}
	if c.snapshot != "" {
		s.lastSnapshot = c.snapshot
	}
	messagesAfter, tokensAfter := len(s.history), s.totalLocked()
	s.mu.Unlock()
	s.log.Info("compaction done",
		"messages_before", c.messagesBefore, "messages_after", messagesAfter,
		"tokens_before", c.tokensBefore, "tokens_after", tokensAfter,
		"arrived_during", arrived, "snapshot", c.snapshot,
		"summarizer", c.res.Summarizer, "fallback", c.res.Fallback,
		"in", c.kind.String(), "duration", took)
}

// compactMemory compacts a session without a store: the history is only
// here. k is the kind of compaction.
func (s *Session) compactMemory(ctx context.Context, k kind, run func(context.Context, []compact.Message) (*compact.Result, error)) (*compact.Result, error) {
	s.mu.Lock()
	// The messages up to n are never modified or moved out from under this
	// prefix; only compaction and Reset replace the history, and they hold
	// the slot we hold.
	n := len(s.history)
	snap := s.history[:n:n]
	sumBefore := s.tokens
	s.mu.Unlock()

	c := s.begin(k, snap)
	res, err := run(ctx, compact.Clone(snap))
	if err != nil {
		return nil, s.fail(c, err)
	}
	if res.Skipped != "" {
		s.log.Debug("compaction skipped", "why", res.Skipped)
		return ownResult(res), nil
	}
	res = ownResult(res)
	c.res = res
	// A private copy: the caller may do what it likes with res.
	compacted := compact.Clone(res.Messages)
	sumCompacted := s.sum(compacted)

	s.mu.Lock()
	arrived := len(s.history) - n
	s.history = concat(compacted, s.history[n:])
	s.tokens = sumCompacted + (s.tokens - sumBefore)
	s.installedLocked()
	s.mu.Unlock()
	s.done(c, arrived)
	return res, nil
}

// sum adds up the counter's count of each message.
func (s *Session) sum(msgs []compact.Message) int {
	n := 0
	for i := range msgs {
		n += s.counter.CountMessage(msgs[i])
	}
	return n
}

// countAll is what msgs take as a request.
func (s *Session) countAll(msgs []compact.Message) int {
	if len(msgs) == 0 {
		return 0
	}
	return s.sum(msgs) + tokens.ReplyPrimingTokens
}

// concat returns a new slice holding a then b.
func concat(a, b []compact.Message) []compact.Message {
	out := make([]compact.Message, 0, len(a)+len(b))
	return append(append(out, a...), b...)
}
