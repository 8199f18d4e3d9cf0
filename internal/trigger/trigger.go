// Package trigger follows one conversation's size for the Compressor: what
// it counts of each request, what the provider's usage reports say the
// request really took, and the anti-thrash strikes and pause (DESIGN.md,
// Defaults: anti-thrash). It knows nothing of messages: the Compressor
// counts them and hands it the figures. A Session judges its own marks
// (its soft mark, its hard limit) with the same Measure.
//
// A report is of the request that was sent, so the next request is at
// least that report plus what was appended since. When the request a
// report describes was counted, the difference (tool schemas the host did
// not name, images, the provider's framing) is what the count cannot see,
// and every later count is raised by it; when it was not, the report
// itself is the least the next request takes, until a compaction makes it
// stale.
//
// A report of a request sent before the last compaction committed (a
// request in flight while it ran) describes a history that is gone: it
// judges nothing, lifts nothing and is no least size. It still says what
// counting misses, when the Gauge holds the count of that same request:
// the last check before the compaction, made no later than the request
// was sent.
package trigger

import (
	"strconv"
	"time"

	"github.com/contextkit/compact/internal/english"
)

// Limits are the figures a Gauge judges sizes against.
type Limits struct {
	Threshold int // the prompt size at which compaction is due
	// Tail is how far past the size it paused at a history must grow to
	// lift a pause: by then the tail can let go of what held it up.
	Tail int
	// Strikes is how many compactions in a row may leave the request
	// over the threshold before automatic compaction pauses; 0 never
	// pauses.
	Strikes int
}

// Measure is what usage reports say of a conversation's requests beyond
// their counts: what counting misses, and the last report while no count
// of its request says more. It is the one formula for a request's size
// the Compressor and a Session share. The zero Measure knows nothing: a
// request is its count. It is not safe for concurrent use.
type Measure struct {
	counted int // the count of the request about to be sent, not yet reported; 0: none
	// countedAt is when a check made counted (Gauge.Check); zero when
	// Counts did, or a compaction.
	countedAt time.Time
	unseen    int // what the last report found beyond the count of its request
	floor     int // the last report, when its request was not counted here; 0 once stale
}

// Unseen is what the last usage report found beyond the count of the
// request it describes: what every count misses.
func (m *Measure) Unseen() int { return m.unseen }

// Estimate is the size of a request counted at n: the count and what
// counting misses, and at least the last report while it is not stale.
func (m *Measure) Estimate(n int) int { return max(n+m.unseen, m.floor) }

// Counts records n, the count of the request about to be sent, for the
// report that will describe it, and returns the request's Estimate.
func (m *Measure) Counts(n int) int {
	m.counted, m.countedAt = n, time.Time{}
	return m.Estimate(n)
}

// Counted returns the count Counts recorded for the request a report now
// describes (0 when none), and forgets it.
func (m *Measure) Counted() int {
	n := m.counted
	m.counted = 0
	return n
}

// Learn takes in a provider's report of reported prompt tokens for a
// request counted at counted (0 when it was not counted here): the
// difference is what counting misses from now on; a report of a request
// nobody counted is the least the next request takes, until Stale.
func (m *Measure) Learn(reported, counted int) {
	if counted > 0 {
		m.unseen, m.floor = max(reported-counted, 0), 0
	} else {
		m.floor = reported
	}
}

// Stale forgets the last report as a least size: a compaction made the
// request it described smaller. What counting misses is kept.
func (m *Measure) Stale() { m.floor = 0 }

// Gauge is what a conversation's checks, compactions and usage reports
// say of its size: its Measure, the anti-thrash strikes and the pause.
// The zero Gauge is ready. It is not safe for concurrent use: the
// Compressor guards it.
type Gauge struct {
	Measure
	last     int  // the last prompt size seen: reported, checked, or left by a compaction
	strikes  int  // compactions in a row that left the request over the threshold
	judge    bool // the next size seen judges the last compaction
	paused   bool
	pausedAt int // the request's size when the pause began
	reason   string
	// compactedAt is when the last compaction committed; prior and
	// priorAt the count pending then and when a check made it (zero:
	// not a check), for a report of a request sent before it.
	compactedAt time.Time
	prior       int
	priorAt     time.Time
}

// Last is the last prompt size seen: reported, checked or left by a
// compaction (with what counting cannot see).
func (g *Gauge) Last() int { return g.last }

// Strikes is how many compactions in a row left the request over the
// threshold.
func (g *Gauge) Strikes() int { return g.strikes }

// Paused reports whether automatic compaction is paused, and why.
func (g *Gauge) Paused() (bool, string) { return g.paused, g.reason }

// Room is what a compaction of a request counted at counted needs to
// know: the request's Estimate, what counting misses (Unseen), and the
// pause (Paused).
type Room struct {
	Size, Unseen int
	Paused       bool
	Reason       string
}

// Room returns the Room of a request counted at counted.
func (g *Gauge) Room(counted int) Room {
	return Room{Size: g.Estimate(counted), Unseen: g.unseen, Paused: g.paused, Reason: g.reason}
}

// Check records counted, the count of a request about to be sent, made
// at at, for the report that will describe it (see Counts), and sees the
// request's Estimate, which it returns.
func (g *Gauge) Check(counted int, at time.Time, l Limits) int {
	n := g.Counts(counted)
	g.countedAt = at
	g.See(n, l)
	return n
}

// Report takes in a provider's report of reported prompt tokens for the
// request sent at sent (zero: just now), and tunes cal (nil: none) by it.
// The report describes the request last counted (0: none counted here),
// and is seen; but one sent before the last compaction committed only
// says what counting misses, and only when the count the Gauge held then
// was a check's made no later than sent (see the package doc).
func (g *Gauge) Report(reported int, sent time.Time, cal *Counter, l Limits) {
	if !sent.IsZero() && sent.Before(g.compactedAt) {
		n := g.prior
		if g.priorAt.IsZero() || g.priorAt.After(sent) {
			n = 0 // not a count of that request
		}
		if g.prior = 0; n > 0 {
			g.unseen = max(reported-cal.Calibrate(reported, n), 0)
		}
		return
	}
	g.Learn(reported, cal.Calibrate(reported, g.Counted()))
	g.See(reported, l)
}

// See takes in a request's size: the first size seen after a compaction
// judges it, and a size back under the threshold, or one the history
// reaches by growing a tail's budget past the pause, lifts a pause.
func (g *Gauge) See(n int, l Limits) {
	g.last = n
	over := n >= l.Threshold
	if g.judge {
		g.judge = false
		if over {
			g.strike("usage stayed over the threshold after compaction", l)
		} else {
			g.strikes = 0
		}
	}
	if g.paused && (!over || n >= g.pausedAt+l.Tail) {
		g.paused, g.reason, g.strikes = false, "", 0
	}
}

// Compacted records a compaction that committed at at and left a request
// counted at counted (what every later count builds on): with what
// counting misses, that is the request the provider will see. One over
// the threshold is a strike at once; otherwise the next size seen judges
// it, a report of a request sent before at never does. The last report is
// stale from now on.
func (g *Gauge) Compacted(counted int, at time.Time, l Limits) {
	g.prior, g.priorAt = g.counted, g.countedAt
	g.counted, g.countedAt, g.compactedAt = counted, at, at
	g.floor = 0 // the last report is stale (see Stale)
	g.last = counted + g.unseen
	if g.last >= l.Threshold {
		g.judge = false
		g.strike("compaction left usage over the threshold", l)
		return
	}
	g.judge = true
}

func (g *Gauge) strike(why string, l Limits) {
	g.strikes++
	if l.Strikes > 0 && g.strikes >= l.Strikes {
		g.paused, g.pausedAt = true, g.last
		g.reason = why + " " + strconv.Itoa(g.strikes) + " " + english.Noun(g.strikes, "time") + " in a row; " +
			"automatic compaction paused until usage drops, the history grows by the tail's budget, the model changes, or a forced compaction"
	}
}

// Restart forgets the strikes, the pause, and what reports said of the
// count: the model, and so the count, changed. When the last compaction
// committed is kept: a report of a request sent before it is as stale.
func (g *Gauge) Restart() {
	*g = Gauge{last: g.last, compactedAt: g.compactedAt}
}
