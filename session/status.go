package session

import (
	"time"

	"github.com/contextkit/compact"
)

// Status is a session's view of itself and its engine's view of the
// window. Its Cost is the engine's plus what the session had been billed
// before this Session opened it, as its latest compaction in the store
// recorded (see Spender): a Session keeps the bill across restarts, up to
// the last compaction before one. Processes serving one session at once
// each count the requests they saw.
type Status struct {
	compact.Status // the engine's; Adjusted also names the Session's own options given an invalid value

	ID       string // the session's id
	Messages int    // messages in the live history
	Tokens   int    // tokens of the live history, by the session's counter
	// RequestTokens is what the next request takes: Tokens, the tool
	// definitions the session counts (the host's, as last named to
	// ShouldCompress or Compress, and its own recall tools), and Unseen;
	// at least the last usage report when no request was handed out
	// between it and the one before, until a compaction (see UpdateUsage).
	// The soft mark, the hard limit and the idle mark judge this size.
	RequestTokens int
	// Unseen is what the last usage report passed to UpdateUsage found
	// beyond the session's count of the request it describes: what the
	// count misses (tool definitions the host did not name, images, the
	// provider's framing). 0 before a report, after a Reset, and when the
	// engine's model changes.
	Unseen     int
	Compacting bool // a compaction is running
	// InBackground reports that the running compaction runs off the
	// request path, on the session's own goroutine.
	InBackground bool
	Closed       bool
	Compactions  int    // compactions this Session completed
	LastSnapshot string // id of the last snapshot saved, "" if none

	// ForegroundCompactions, BackgroundCompactions, IdleCompactions and
	// RecordedCompactions split Compactions by where each ran: on a
	// request path (Compress and its kin, which the caller waited for), on
	// the session's own goroutine (WithBackground), by CompressIfIdle, or
	// elsewhere (a provider's, committed by RecordCompaction).
	ForegroundCompactions, BackgroundCompactions, IdleCompactions, RecordedCompactions int
	// Waits counts the request paths that blocked on a compaction, and
	// for how long: a Compress (or its kin) that waited for a compaction
	// running or for the lease another process held, or whose own
	// compaction called the summarizer (or failed trying). A compaction
	// that pruning alone achieved (Result.Summarizer empty) takes moments
	// and is no wait, though ForegroundCompactions counts it.
	Waits Waits

	// SoftMark is the request size, in tokens, as RequestTokens measures
	// it, at which a background compaction starts: the host's
	// (WithSoftMark) or the one the session adapted from its Pace.
	// HardLimit is the size, so measured, no request handed out may
	// exceed: the engine's usable window (Status.Usable, else Window).
	// Both are 0 when background compaction is off, and SoftMark when the
	// engine reports no threshold (the engine's ShouldCompress decides).
	SoftMark, HardLimit int
	// AtLimit says what request paths did when the request was over the
	// hard limit.
	AtLimit AtLimit
	// Pace is what the session has seen of its requests and compactions,
	// which the adaptive soft mark is derived from.
	Pace Pace
	// BackgroundFailures counts the background compactions that failed
	// (the store, the lease, the engine); after one, no background
	// compaction starts before RetryAt. BackgroundError is the last
	// failure, redacted; "" after a success.
	BackgroundFailures int
	BackgroundError    string
	RetryAt            time.Time
}

// Waits is how many request paths blocked on a compaction (see
// Status.Waits), and how long.
type Waits struct {
	Count   int           // request paths that blocked
	Total   time.Duration // their waits added up
	Longest time.Duration // the longest
}

// AtLimit counts what request paths did, with background compaction on,
// when the request was over the hard limit.
type AtLimit struct {
	// Pruned counts requests handed out pruned (old tool output replaced by
	// stand-ins, the largest earlier messages cut to their start and end)
	// while a compaction ran: pruning alone made them fit, and the live
	// history was left as it was.
	Pruned int
	// Waited counts requests that waited for the running compaction.
	Waited int
	// Compacted counts requests compacted on the request path: no
	// compaction was running, or the one waited for left them over.
	Compacted int
	// Last is what the latest did: "pruned", "waited" or "compacted"; ""
	// before the first.
	Last string
}

// Pace is what a session has seen of its requests (the calls to Messages,
// each taken as a request sent; no other method counts) and of its
// compactions.
type Pace struct {
	Requests int           // calls of Messages
	Growth   int           // tokens a request adds, on average over the recent ones
	Interval time.Duration // the median time between recent requests
	// CompactionTime is the longest of the recent compactions that called a
	// summarizer, from start to commit; 0 before the first.
	CompactionTime time.Duration
}

// Status reports the session and its engine's Status.
func (s *Session) Status() Status {
	st := s.engine.Status()
	s.setLimits(st)
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.adjusted) > 0 {
		st.Adjusted = append(st.Adjusted, s.adjusted...)
	}
	st.Cost = s.spent.Add(st.Cost)
	out := Status{
		Status: st, ID: s.id, Messages: len(s.history), Tokens: s.totalLocked(),
		RequestTokens: s.requestSizeLocked(nil), Unseen: s.req.measure.Unseen(),
		Compacting: s.compacting, InBackground: s.bg != nil, Closed: s.closed, Compactions: s.compactions,
		LastSnapshot:          s.lastSnapshot,
		ForegroundCompactions: s.figures.foreground, BackgroundCompactions: s.figures.background,
		IdleCompactions: s.figures.idle, RecordedCompactions: s.figures.recorded, Waits: s.figures.waits, AtLimit: s.figures.atLimit,
		Pace: s.req.pace.figures(), BackgroundFailures: s.figures.bgFailed, BackgroundError: s.figures.bgErr,
	}
	if s.bgOn {
		out.SoftMark, out.HardLimit = s.softMarkLocked(), s.req.usable
		out.RetryAt = s.figures.retryAt
	}
	return out
}
