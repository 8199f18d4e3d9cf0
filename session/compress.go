package session

import (
	"context"
	"fmt"
	"time"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/redact"
)

// Compress compacts the live history with the session's engine and installs
// the result. It runs in four steps:
//
//  1. It takes the session's slot: a compaction of this session already
//     running is waited for (until ctx is done), or with WithNoWait refused
//     with an error wrapping ErrBusy.
//  2. It takes the history as it stands and runs the engine on a copy,
//     outside any lock, with WithSessionID(s.ID()) added to opts (last, so a
//     caller cannot name another session). Append goes on meanwhile.
//  3. With a store, it saves the history it compacted as the next snapshot
//     (SnapshotID(id, seq)), then the new live history. If either write
//     fails the compaction is abandoned and the live history is unchanged.
//  4. It replaces the live history with the compacted one followed by every
//     message appended since step 2, verbatim and in arrival order, and
//     recounts Tokens.
//
// Messages appended during the compaction are never merged or edited, so if
// the compacted history ends with a user turn and the host appended another
// user turn, the two stand side by side as the host sent them.
//
// The returned Result is the engine's: its Messages are the compacted
// history without the messages appended during the compaction, which
// Messages includes. A WithIncoming message comes back inside the compacted
// history, so it is part of the live history afterwards and must not be
// appended again.
//
// On error the live history is unchanged (messages appended meanwhile are
// kept), and the error is the engine's (see its Compress), the store's
// wrapped, an error wrapping ErrBusy or ErrSessionClosed, or ctx's.
func (s *Session) Compress(ctx context.Context, opts ...compact.CompressOption) (*compact.Result, error) {
	if err := s.acquire(ctx, s.noWait); err != nil {
		return nil, err
	}
	defer s.release()

	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil, fmt.Errorf("compact: session %q: compress: %w", s.id, ErrClosed)
	}
	// The messages up to n are never modified or moved out from under this
	// prefix; only compaction and Reset replace the history, and they hold
	// the slot we hold.
	n := len(s.history)
	snap := s.history[:n:n]
	tokensBefore, sumBefore := s.totalLocked(), s.tokens
	s.compacting = true
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.compacting = false
		s.mu.Unlock()
	}()

	log := s.log
	start := time.Now()
	log.Info("compaction started", "messages", n, "tokens", tokensBefore, "engine", s.engine.Name())
	fail := func(err error) (*compact.Result, error) {
		// An engine's error can quote the conversation: the log line gets it
		// redacted, the caller gets it whole.
		log.Warn("compaction failed", "messages", n, "tokens", tokensBefore, "err", redact.String(err.Error()))
		return nil, err
	}

	opts = append(opts[:len(opts):len(opts)], compact.WithSessionID(s.id))
	res, err := s.engine.Compress(ctx, compact.Clone(snap), opts...)
	if err != nil {
		return fail(err)
	}
	if res == nil {
		return fail(fmt.Errorf("compact: session %q: engine %s returned neither a result nor an error: %w",
			s.id, s.engine.Name(), compact.ErrInvalidHistory))
	}
	// A private copy: the caller may do what it likes with res.
	compacted := compact.Clone(res.Messages)
	sumCompacted := 0
	for i := range compacted {
		sumCompacted += s.counter.CountMessage(compacted[i])
	}

	var snapID string
	s.persist.Lock()
	defer s.persist.Unlock()
	if s.store != nil {
		if snapID, err = s.store.SaveSnapshot(ctx, s.id, snap); err != nil {
			return fail(fmt.Errorf("compact: session %q: saving snapshot: %w", s.id, err))
		}
		s.mu.Lock()
		arrived := s.history[n:len(s.history):len(s.history)]
		s.mu.Unlock()
		if err := s.store.Save(ctx, s.id, concat(compacted, arrived)); err != nil {
			return fail(fmt.Errorf("compact: session %q: saving compacted history (snapshot %s kept): %w",
				s.id, snapID, err))
		}
	}

	s.mu.Lock()
	arrived := len(s.history) - n
	s.history = concat(compacted, s.history[n:])
	s.tokens = sumCompacted + (s.tokens - sumBefore)
	s.compactions++
	if snapID != "" {
		s.lastSnapshot = snapID
	}
	messagesAfter, tokensAfter := len(s.history), s.totalLocked()
	s.mu.Unlock()

	log.Info("compaction done",
		"messages_before", n, "messages_after", messagesAfter,
		"tokens_before", tokensBefore, "tokens_after", tokensAfter,
		"arrived_during", arrived, "snapshot", snapID,
		"summarizer", res.Summarizer, "fallback", res.Fallback,
		"duration", time.Since(start))
	return res, nil
}

// concat returns a new slice holding a then b.
func concat(a, b []compact.Message) []compact.Message {
	out := make([]compact.Message, 0, len(a)+len(b))
	return append(append(out, a...), b...)
}
