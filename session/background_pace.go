package session

import (
	"cmp"
	"slices"
	"time"
)

// This file is the adaptive soft mark: from how much a request adds, how
// often requests come and how long a compaction takes, the request size at
// which a background compaction should start so that it usually commits
// before the history reaches the engine's threshold. The mark is compared
// with the request's size with what usage reports showed the count misses
// (see Session.UpdateUsage); growth is taken between counts, since what
// counting misses moves only when a report comes, and a report is no
// growth.

// The figures the adaptive soft mark is made of. Each says where it comes
// from.
const (
	// paceWindow is how many recent requests the growth and the interval
	// are taken over: enough that one large tool result does not swing the
	// mark, few enough that a session that changes speed is followed
	// within a few turns.
	paceWindow = 32

	// paceSamples is how many requests the session must have seen before it
	// trusts its growth and interval; until then the soft mark is
	// initialSoftMark of the threshold.
	paceSamples = 4

	// recentCompactions is how many of the latest compactions'
	// durations the mark takes the longest of: a summarizer that was slow
	// once is planned for a few times more.
	recentCompactions = 4

	// assumedCompactionTime is the compaction time the mark plans for
	// before the session has seen one: the middle of the 10 to 60 seconds
	// a model summarizer takes (issue 25).
	assumedCompactionTime = 30 * time.Second

	// initialSoftMark is the soft mark, as a fraction of the threshold,
	// before the session has seen paceSamples requests: a fifth of the
	// threshold left to grow in while the compaction runs, as much as
	// the Compressor's protected tail.
	initialSoftMark = 0.8

	// minSoftMark is the lowest the adaptive soft mark goes, as a fraction
	// of the threshold. Below half the threshold a compaction folds little
	// more than the Compressor's tail (a fifth of the threshold) keeps
	// anyway, so starting earlier would buy a summarizer call and little
	// room; a summarizer too slow for this mark makes request paths prune
	// or wait at the hard limit instead, and Status counts it.
	minSoftMark = 0.5

	// growthMargin is how much more than the average growth the mark
	// leaves room for: growth comes in bursts (one tool result can add
	// more than ten turns of talk), and the hard limit, not the
	// threshold, is what a burst must not cross.
	growthMargin = 1.5
)

// pace is what a session has seen of its requests and compactions.
type pace struct {
	requests  int
	growth    ring[int]           // tokens added between consecutive requests, with no compaction between
	interval  ring[time.Duration] // the time between consecutive requests
	durations ring[time.Duration] // the durations of the recent compactions that called a summarizer

	// The latest request: when, its size, and how many installs the
	// history had seen then.
	lastAt       time.Time
	lastTokens   int
	lastInstalls uint64

	// The soft mark last worked out, for threshold; valid until the next
	// observation, so that an append costs no sort.
	cached              bool
	cachedFor, cachedAt int
}

// observe takes in a request of size tokens at now, the history having seen
// installs installs.
func (p *pace) observe(now time.Time, tokens int, installs uint64) {
	p.cached = false
	if p.requests > 0 {
		p.interval.add(paceWindow, max(now.Sub(p.lastAt), 0))
		if installs == p.lastInstalls {
			p.growth.add(paceWindow, max(tokens-p.lastTokens, 0))
		}
	}
	p.requests++
	p.lastAt, p.lastTokens, p.lastInstalls = now, tokens, installs
}

// compacted takes in the duration of a compaction that called a summarizer.
func (p *pace) compacted(d time.Duration) {
	p.cached = false
	p.durations.add(recentCompactions, d)
}

// softMark is the request size at which a background compaction should
// start, for an engine whose threshold is threshold.
func (p *pace) softMark(threshold int) int {
	if !p.cached || p.cachedFor != threshold {
		p.cached, p.cachedFor, p.cachedAt = true, threshold, p.mark(threshold)
	}
	return p.cachedAt
}

// mark works the soft mark out.
func (p *pace) mark(threshold int) int {
	if threshold <= 0 {
		return 0
	}
	if p.growth.len() < paceSamples {
		return int(initialSoftMark * float64(threshold))
	}
	growth := p.averageGrowth()
	d := p.compactionTime()
	if d == 0 {
		d = assumedCompactionTime
	}
	floor := minSoftMark * float64(threshold)
	i := p.interval.median()
	if i <= 0 {
		return int(floor) // requests with no time between them: no mark is early enough
	}
	// The requests sent while the compaction runs, and the one whose
	// growth takes the history past the mark.
	during := float64(d) / float64(i)
	room := growthMargin * growth * (during + 1)
	return int(max(float64(threshold)-room, floor))
}

func (p *pace) averageGrowth() float64 {
	if p.growth.len() == 0 {
		return 0
	}
	total := 0
	for _, g := range p.growth.items {
		total += g
	}
	return float64(total) / float64(p.growth.len())
}

func (p *pace) compactionTime() time.Duration {
	if p.durations.len() == 0 {
		return 0
	}
	return slices.Max(p.durations.items)
}

// figures reports the pace for Status.
func (p *pace) figures() Pace {
	return Pace{Requests: p.requests, Growth: int(p.averageGrowth() + 0.5), Interval: p.interval.median(),
		CompactionTime: p.compactionTime()}
}

// ring keeps the latest values added, at most the size given to add.
type ring[T cmp.Ordered] struct {
	items []T
	next  int
}

func (r *ring[T]) add(size int, v T) {
	if len(r.items) < size {
		r.items = append(r.items, v)
		return
	}
	r.items[r.next] = v
	r.next = (r.next + 1) % size
}

func (r *ring[T]) len() int { return len(r.items) }

// median returns the middle value kept (the upper one of an even count),
// the zero value when none is.
func (r *ring[T]) median() T {
	var zero T
	if len(r.items) == 0 {
		return zero
	}
	s := slices.Clone(r.items)
	slices.Sort(s)
	return s[len(s)/2]
}
