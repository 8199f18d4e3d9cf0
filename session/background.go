package session

import (
	"context"
	"errors"
	"time"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/redact"
)

// WithBackground sets whether the Session compacts off the request path.
// Off by default.
//
// With it on, once the next request passes the soft mark (see
// WithSoftMark), Append or ShouldCompress starts the compaction on the
// session's own goroutine, under its lease like any other, and returns at
// once. Until it commits, Messages returns the live history as it is; once
// it commits, the next request is the compacted history and everything
// appended since, verbatim and in order. The host's loop does not change:
// Append, ShouldCompress, Compress when told, Messages.
//
// A request's size, against the soft mark and the hard limit, is the
// session's count of it (the history and the tool definitions it counts)
// and what the provider's usage reports showed that count misses (tool
// definitions the host did not name, images, the provider's framing), as
// a Compressor judges it (see UpdateUsage; Status().RequestTokens): a
// provider that counts more than the library starts the compaction, and
// holds requests under the hard limit, by its own measure. What was
// appended since the last report is counted as the session counts it.
// In the background the host's loop no longer has the engine count each
// request, so Messages does (ShouldCompress with the count of the request
// it hands out), and a report reaches the engine with the time its
// request was handed out (see UpdateUsage): a report that arrives after a
// compaction committed is compared with the request it describes, not
// with the compacted one, and when that request was out while the
// compaction committed, it judges no compaction (no anti-thrash strike
// from the history the compaction replaced).
//
// A compaction keeps the last message verbatim, so one that starts while
// the last message alone is over half the engine's threshold (an answer
// pasting a data table, say) could not fold it and would leave the
// request about as large: the background compaction starts with the next
// message instead, and folds it.
//
// The hard limit is the engine's usable window (compact.Status.Usable): no
// request handed out goes over it, by that size. ShouldCompress reports
// true only for a request over it, and Compress then brings it under (a
// request pruned to fit leaves room for what the count misses). While a
// compaction runs, Compress first prunes the request when that alone makes
// it fit: old tool output replaced by stand-ins and, when that is not
// enough, the largest earlier messages of any role (not the system prompt,
// a summary, the latest user message or the last two messages) cut to their
// start and end (prune.WithFit), for this request only: the live history
// and the store keep every message whole, and the Result's Pruned says what
// was done to each. At the next request over the limit, while the history
// has only grown, the request is the one pruned before followed by what was
// appended since, as long as that fits, so what the provider cached of it
// stays the prefix; it is pruned again when that does not fit. Otherwise
// Compress waits for the compaction, as long as its ctx allows; when none
// runs, or the one it waited for leaves the request over, it compacts on
// the request path.
// Status().AtLimit counts which of these happened, and Status().Waits the
// request paths that blocked.
//
// A background compaction that fails loses nothing: the history stays as
// it was, and requests go out uncompacted while they fit. The engine's
// failure policy and backoff apply (none starts while the engine backs off
// or is paused), and after a failure none starts for a while (a second,
// doubling with each failure in a row up to a minute; Status().RetryAt),
// so a failing summarizer or store is never retried in a loop. The
// session's own lease is never waited for: when another process holds it,
// the background compaction gives up and tries again later, so a process
// killed in the middle of one holds the session up for at most the lease's
// TTL. Close and Reset cancel a background compaction.
//
// The engine compacts early with compact.Early; an
// engine that reports no threshold in its Status starts the background
// compaction when its own ShouldCompress says so.
func WithBackground(on bool) Option {
	return func(c *config) { c.background = on }
}

// WithSoftMark sets the soft mark, the request size (with what usage
// reports showed the count misses, see WithBackground) at which a
// background compaction starts, as a fraction of the engine's threshold:
// 0.8 starts it at 80% of the threshold. Zero, the default, adapts the mark
// to what the session has seen (Status().Pace): from the tokens a request
// adds, the time between requests and the time a compaction takes, the mark
// leaves room for the requests sent while the compaction runs, with a
// margin, and is never below half the threshold. A fraction below 0 or
// above 1 is invalid: the adaptive mark is kept, and Status().Adjusted says
// so.
func WithSoftMark(fraction float64) Option {
	return func(c *config) {
		if !(fraction >= 0 && fraction <= 1) {
			c.reject("WithSoftMark", fraction, "the adaptive mark")
			return
		}
		c.softMark = fraction
	}
}

// WithClock sets the clock the Session reads: when requests come and
// compactions start and end, how long request paths wait, when a session
// is idle and when a failed background compaction may be retried. The
// default is time.Now; a host replaying a conversation on simulated time,
// or a test, gives its own. nil is invalid: time.Now is kept, and
// Status().Adjusted says so.
func WithClock(now func() time.Time) Option {
	return func(c *config) {
		if now == nil {
			c.reject("WithClock", "nil", "time.Now")
			return
		}
		c.now = now
	}
}

// kind is where a compaction runs, for its log lines and Status.
type kind int

const (
	kindReset      kind = iota // not a compaction: a Reset, neither logged nor counted
	kindForeground             // on a request path: Compress and its kin
	kindBackground             // on the session's own goroutine
	kindIdle                   // by CompressIfIdle
	kindRecorded               // done elsewhere (a provider's), committed by RecordCompaction
)

func (k kind) String() string {
	switch k {
	case kindForeground:
		return "foreground"
	case kindBackground:
		return "background"
	case kindIdle:
		return "idle"
	case kindRecorded:
		return "recorded"
	}
	return "reset"
}

// figures are the counts Status reports of the session's compactions and
// waits. Session.mu guards them.
type figures struct {
	foreground, background, idle, recorded int
	waits                                  Waits
	atLimit                                AtLimit
	// bgFailed counts failed background compactions, bgInRow those since
	// the last success; bgErr is the last failure, retryAt the time before
	// which none starts.
	bgFailed, bgInRow int
	bgErr             string
	retryAt           time.Time
	// bgStarted counts the background compactions started.
	bgStarted int
}

// counted counts a compaction of kind k that committed.
func (f *figures) counted(k kind) {
	switch k {
	case kindForeground:
		f.foreground++
	case kindBackground:
		f.background++
	case kindIdle:
		f.idle++
	case kindRecorded:
		f.recorded++
	}
}

// waited counts a request path that waited d.
func (f *figures) waited(d time.Duration) {
	d = max(d, 0)
	f.waits.Count++
	f.waits.Total += d
	f.waits.Longest = max(f.waits.Longest, d)
}

// bgRun is a background compaction running.
type bgRun struct {
	cancel context.CancelFunc
	done   chan struct{} // closed when it has ended and its outcome is recorded
	// res is the engine's Result when the compaction committed; set
	// before done is closed.
	res *compact.Result
}

// retryFirst and retryLongest bound the wait after a failed background
// compaction before another starts: the first, doubling with each failure
// in a row, up to the longest. Short beside the engine's own backoff
// (a minute and more after a summarizer failure), since most failures a
// session sees on its own are a store or a lease that answers the next
// time; long enough that a session appending many times a second does not
// start a compaction per append.
const (
	retryFirst   = time.Second
	retryLongest = time.Minute
)

// retryWait is the wait after the n-th failure in a row.
func retryWait(n int) time.Duration {
	d := retryFirst
	for i := 1; i < n && d < retryLongest; i++ {
		d *= 2
	}
	return min(d, retryLongest)
}

// softMarkLocked is the soft mark in force; 0 with background compaction
// off or an engine that reports no threshold.
func (s *Session) softMarkLocked() int {
	switch {
	case !s.bgOn || s.req.threshold <= 0:
		return 0
	case s.softMark > 0:
		return int(s.softMark * float64(s.req.threshold))
	}
	return s.req.pace.softMark(s.req.threshold)
}

// startableLocked reports whether a background compaction may start now.
func (s *Session) startableLocked(now time.Time) bool {
	return s.bgOn && !s.closed && s.quiesce == 0 && s.bg == nil && !s.compacting && !now.Before(s.figures.retryAt)
}

// trigger starts a background compaction when one is due: background
// compaction is on, none is running, the request has passed the soft mark,
// and neither the engine (paused, backing off) nor a recent failure holds
// it back.
func (s *Session) trigger() {
	if !s.bgOn {
		return
	}
	now := s.now()
	s.mu.Lock()
	startable, tokens, size, mark := s.startableLocked(now), s.requestTokensLocked(nil), s.requestSizeLocked(nil), s.softMarkLocked()
	s.mu.Unlock()
	if !startable || (mark > 0 && size < mark) {
		return
	}
	if s.lastOversized() {
		s.log.Debug("background compaction deferred to the next message", "reason", "the last message is over half the threshold")
		return
	}
	st := s.engine.Status()
	s.setLimits(st)
	if st.Paused || !st.BackoffUntil.IsZero() || (mark == 0 && !s.engine.ShouldCompress(tokens)) {
		if st.Paused || !st.BackoffUntil.IsZero() {
			s.mu.Lock()
			s.figures.retryAt = now.Add(retryFirst) // look again then, not at every append
			s.mu.Unlock()
		}
		return
	}
	select {
	case s.slot <- struct{}{}:
	default:
		return // a compaction is running
	}
	s.mu.Lock()
	if !s.startableLocked(now) {
		s.mu.Unlock()
		s.release()
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	run := &bgRun{cancel: cancel, done: make(chan struct{})}
	s.bg, s.compacting = run, true
	s.figures.bgStarted++
	s.mu.Unlock()
	s.log.Debug("background compaction starting", "tokens", size, "counted", tokens, "soft_mark", mark)
	go s.background(ctx, run, mark > 0)
}

// lastOversized reports whether the last message of the live history takes
// more than half the engine's threshold. A compaction keeps the last
// message verbatim (it is the protected tail, or the latest user message),
// so one started now would leave that message, and the request, about as
// large as they are; once a message follows it, a Compressor folds a turn
// that large. So a background compaction waits for the next message
// rather than spend a summary on a fold that cannot make room.
func (s *Session) lastOversized() bool {
	s.mu.Lock()
	h, threshold := s.history, s.req.threshold
	s.mu.Unlock()
	return threshold > 0 && len(h) > 0 && s.counter.CountMessage(h[len(h)-1]) > threshold/2
}

// background runs a background compaction and records its outcome. It
// holds the slot trigger took, and gives it back before it closes run.done,
// so that a caller that saw it end can take the slot at once.
func (s *Session) background(ctx context.Context, run *bgRun, isEarly bool) {
	defer close(run.done)
	defer run.cancel()
	var opts []compact.CompressOption
	if isEarly {
		opts = append(opts, compact.Early())
	}
	res, _, err := s.compressHeld(ctx, kindBackground, s.engine.Compress, opts)
	s.release()
	now := s.now()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.bg = nil
	if err == nil && res.Skipped == "" || errors.Is(err, ErrStale) {
		run.res = res
	}
	switch {
	case err == nil && res.Skipped == "", errors.Is(err, ErrStale):
		s.figures.bgInRow, s.figures.bgErr, s.figures.retryAt = 0, "", time.Time{}
	case ctx.Err() != nil:
		// Close or Reset stopped it; nothing failed.
	default:
		// A failure, or an engine that would not compact yet (nothing to
		// fold, or a fold that would not pay back its cache rewrite): not
		// again for a while. Only a failure counts as one.
		s.figures.bgInRow++
		if err != nil && !errors.Is(err, compact.ErrNoSavings) {
			s.figures.bgFailed++
			s.figures.bgErr = redact.String(err.Error())
		}
		s.figures.retryAt = now.Add(retryWait(s.figures.bgInRow))
	}
}

// stopBackground cancels a background compaction running and keeps another
// from starting until the function it returns is called. It returns the
// compaction it cancelled, nil if none.
func (s *Session) stopBackground() (*bgRun, func()) {
	s.mu.Lock()
	s.quiesce++
	run := s.bg
	s.mu.Unlock()
	if run != nil {
		run.cancel()
	}
	return run, func() {
		s.mu.Lock()
		s.quiesce--
		s.mu.Unlock()
	}
}

// running returns the background compaction running, nil when none is.
func (s *Session) running() *bgRun {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.bg
}
