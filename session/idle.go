package session

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/models"
)

// defaultIdleAfter is how long a session must have been quiet before
// CompressIfIdle compacts it, when neither WithIdleAfter nor the model's
// prompt cache says: five minutes, the lifetime of Anthropic's and
// OpenAI's default prompt caches (package models).
const defaultIdleAfter = 5 * time.Minute

// idleMark is the smallest request, as a fraction of the engine's
// threshold, that CompressIfIdle compacts: below it the Compressor's tail
// (a fifth of the threshold) and its head would be most of what is left,
// and the summary would fold little.
const idleMark = 0.4

// WithIdleAfter sets how long the session must have been quiet (no request
// handed out by Messages, no usage reported by UpdateUsage) before
// CompressIfIdle compacts it. Zero, the default, is the lifetime of the
// model's prompt cache as package models knows it (the engine's
// Status().Model), or five minutes when it does not: past it the provider
// has dropped the cached prefix, so a compaction rewrites nothing the next
// request would have read from the cache. A negative duration is invalid:
// the default is kept, and Status().Adjusted says so.
func WithIdleAfter(d time.Duration) Option {
	return func(c *config) {
		if d < 0 {
			c.reject("WithIdleAfter", d, "the model's cache lifetime")
			return
		}
		c.idleAfter = d
	}
}

// CompressIfIdle compacts the live history now if the session has been
// quiet for the idle time (see WithIdleAfter) and the request has reached
// four tenths of the engine's threshold (its size as Status().RequestTokens
// measures it, with what usage reports showed the count misses), below
// where automatic compaction would start: while the user is away the provider's prompt cache has gone
// cold, so a compaction costs nothing extra in cache writes, and the next
// request is smaller. A host calls it from its own timer; it never waits:
// with a compaction of the session running, or its lease held by another
// process, it does nothing.
//
// It runs as Compress does (under the lease, committed to the store,
// messages appended meanwhile kept after it) on the caller's goroutine,
// with the engine's rules (compact.Early: the cheap tier
// when it is enough, the pause and the backoff), and counts in
// Status().IdleCompactions. When it does nothing the Result's Skipped says
// why and its Messages is the next request. A closed session returns an
// error wrapping ErrClosed; otherwise errors are Compress's.
func (s *Session) CompressIfIdle(ctx context.Context, opts ...compact.CompressOption) (*compact.Result, error) {
	o := compact.ApplyCompressOptions(opts...)
	s.setTools(o.Tools)
	st := s.engine.Status()
	s.setLimits(st)
	now := s.now()
	after := s.idleTime(st.Model)
	s.mu.Lock()
	closed, quiet, n, th := s.closed, now.Sub(s.req.lastActive), s.requestSizeLocked(nil), s.req.threshold
	s.mu.Unlock()
	switch {
	case closed:
		return nil, s.errorf("compact if idle", ErrClosed)
	case quiet < after:
		return s.unchanged(fmt.Sprintf("active %v ago, idle after %v", quiet.Round(time.Second), after)), nil
	case th > 0 && float64(n) < idleMark*float64(th):
		return s.unchanged(fmt.Sprintf("%d tokens, under the idle mark of %d", n, int(idleMark*float64(th)))), nil
	}
	select {
	case s.slot <- struct{}{}:
	default:
		return s.unchanged("a compaction of this session is running"), nil
	}
	defer s.release()
	res, _, err := s.compressHeld(ctx, kindIdle, s.engine.Compress, append(opts[:len(opts):len(opts)], compact.Early()))
	if errors.Is(err, ErrBusy) {
		return s.unchanged("another process holds the session's lease"), nil
	}
	return res, err
}

// idleTime is how long the session must be quiet before CompressIfIdle
// compacts it, for the engine's model.
func (s *Session) idleTime(model string) time.Duration {
	if s.idleAfter > 0 {
		return s.idleAfter
	}
	if m, ok := models.Lookup(model); ok && m.Pricing.CacheLifetime > 0 {
		return m.Pricing.CacheLifetime
	}
	return defaultIdleAfter
}
