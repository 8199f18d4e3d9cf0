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
package trigger

import "strconv"

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
	unseen  int // what the last report found beyond the count of its request
	floor   int // the last report, when its request was not counted here; 0 once stale
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
	m.counted = n
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

// Report takes in a provider's report of reported prompt tokens for a
// request counted at counted (0 when it was not counted here; rescaled by
// the caller when the report changed how it counts), then sees it.
func (g *Gauge) Report(reported, counted int, l Limits) {
	g.Learn(reported, counted)
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

// Compacted records a compaction that left a request counted at counted
// (what every later count builds on): with what counting misses, that is
// the request the provider will see. One over the threshold is a strike
// at once; otherwise the next size seen judges it. The last report is
// stale from now on.
func (g *Gauge) Compacted(counted int, l Limits) {
	g.counted = counted
	g.Stale()
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
		g.reason = why + " " + strconv.Itoa(g.strikes) + " times in a row; " +
			"automatic compaction paused until usage drops, the history grows by the tail's budget, the model changes, or a forced compaction"
	}
}

// Restart forgets the strikes, the pause, and what reports said of the
// count: the model, and so the count, changed.
func (g *Gauge) Restart() {
	*g = Gauge{last: g.last}
}
