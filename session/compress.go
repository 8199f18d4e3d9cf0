package session

import (
	"context"
	"fmt"
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
//     it) and runs the engine on a copy, outside any lock, with
//     WithSessionID(s.ID()) added to opts (last, so a caller cannot name
//     another session). Append goes on meanwhile.
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
// The returned Result is the engine's: its Messages are the compacted
// history without the messages appended during the compaction, which
// Messages includes. A WithIncoming message comes back inside the compacted
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
func (s *Session) Compress(ctx context.Context, opts ...compact.CompressOption) (*compact.Result, error) {
	return s.compress(ctx, s.engine.Compress, opts)
}

// engineFunc is a way to compact a history with the session's engine:
// its Compress, or a partial compaction (see CompressHere).
type engineFunc func(ctx context.Context, msgs []compact.Message, opts ...compact.CompressOption) (*compact.Result, error)

// compress is Compress with fn in the engine's place.
func (s *Session) compress(ctx context.Context, fn engineFunc, opts []compact.CompressOption) (*compact.Result, error) {
	if err := s.acquire(ctx, s.noWait); err != nil {
		return nil, err
	}
	defer s.release()

	s.mu.Lock()
	closed := s.closed
	if !closed {
		s.compacting = true
	}
	s.mu.Unlock()
	if closed {
		return nil, s.errorf("compress", ErrClosed)
	}
	defer func() {
		s.mu.Lock()
		s.compacting = false
		s.mu.Unlock()
	}()

	opts = append(opts[:len(opts):len(opts)], compact.WithSessionID(s.id))
	run := func(ctx context.Context, msgs []compact.Message) (*compact.Result, error) {
		res, err := fn(ctx, msgs, opts...)
		if err == nil && res == nil {
			err = s.errorf("compress", fmt.Errorf("engine %s returned neither a result nor an error: %w",
				s.engine.Name(), compact.ErrInvalidHistory))
		}
		return res, err
	}
	var res *compact.Result
	var err error
	if s.store != nil {
		res, err = s.compactStored(ctx, "compress", true, run)
	} else {
		res, err = s.compactMemory(ctx, run)
	}
	if err == nil && res.Skipped != "" {
		// Nothing was compacted; an incoming message still joins the
		// history, as it would have inside a compacted one.
		if in := compact.ApplyCompressOptions(opts...).Incoming; in != nil {
			err = s.Append(ctx, *in)
		}
	}
	return res, err
}

// compaction is what one compaction did, for the log line that ends it.
type compaction struct {
	start                        time.Time
	messagesBefore, tokensBefore int
	snapshot                     string
	res                          *compact.Result
}

// begin logs the start of a compaction of msgs and returns its record.
func (s *Session) begin(msgs []compact.Message) *compaction {
	c := &compaction{start: time.Now(), messagesBefore: len(msgs), tokensBefore: s.countAll(msgs)}
	s.log.Info("compaction started", "messages", c.messagesBefore, "tokens", c.tokensBefore, "engine", s.engine.Name())
	return c
}

func (s *Session) fail(c *compaction, err error) error {
	if c != nil {
		s.log.Warn("compaction failed", "messages", c.messagesBefore, "tokens", c.tokensBefore, errAttr(err))
	} else {
		s.log.Warn("compaction failed", errAttr(err))
	}
	return err
}

// done logs the end of compaction c and counts it.
func (s *Session) done(c *compaction, arrived int) {
	s.mu.Lock()
	s.compactions++
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
		"duration", time.Since(c.start))
}

// compactMemory compacts a session without a store: the history is only
// here.
func (s *Session) compactMemory(ctx context.Context, run func(context.Context, []compact.Message) (*compact.Result, error)) (*compact.Result, error) {
	s.mu.Lock()
	// The messages up to n are never modified or moved out from under this
	// prefix; only compaction and Reset replace the history, and they hold
	// the slot we hold.
	n := len(s.history)
	snap := s.history[:n:n]
	sumBefore := s.tokens
	s.mu.Unlock()

	c := s.begin(snap)
	res, err := run(ctx, compact.Clone(snap))
	if err != nil {
		return nil, s.fail(c, err)
	}
	if res.Skipped != "" {
		s.log.Debug("compaction skipped", "why", res.Skipped)
		return res, nil
	}
	c.res = res
	// A private copy: the caller may do what it likes with res.
	compacted := compact.Clone(res.Messages)
	sumCompacted := s.sum(compacted)

	s.mu.Lock()
	arrived := len(s.history) - n
	s.history = concat(compacted, s.history[n:])
	s.tokens = sumCompacted + (s.tokens - sumBefore)
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
