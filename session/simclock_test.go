package session

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/contextkit/compact"
	"github.com/stretchr/testify/require"
)

// simClock is simulated time: it moves only when the test moves it, and
// then wakes the sleepers whose time has come. A summarizer that sleeps on
// it takes as long as the test says, however fast the machine.
type simClock struct {
	mu       sync.Mutex
	now      time.Time
	sleepers []*sleeper
}

type sleeper struct {
	until time.Time
	wake  chan struct{}
}

func newSimClock() *simClock {
	return &simClock{now: time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)}
}

func (c *simClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Sleep blocks until the clock has moved d on, or ctx ends.
func (c *simClock) Sleep(ctx context.Context, d time.Duration) error {
	c.mu.Lock()
	sl := &sleeper{until: c.now.Add(d), wake: make(chan struct{})}
	c.sleepers = append(c.sleepers, sl)
	c.mu.Unlock()
	select {
	case <-sl.wake:
		return nil
	case <-ctx.Done():
		c.mu.Lock()
		for i, o := range c.sleepers {
			if o == sl {
				c.sleepers = append(c.sleepers[:i], c.sleepers[i+1:]...)
				break
			}
		}
		c.mu.Unlock()
		return ctx.Err()
	}
}

// Advance moves the clock d on.
func (c *simClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.moveLocked(c.now.Add(d))
}

// AdvanceToNext moves the clock to the earliest sleeper's time, and
// reports whether there was one.
func (c *simClock) AdvanceToNext() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.sleepers) == 0 {
		return false
	}
	sort.Slice(c.sleepers, func(a, b int) bool { return c.sleepers[a].until.Before(c.sleepers[b].until) })
	c.moveLocked(c.sleepers[0].until)
	return true
}

func (c *simClock) moveLocked(to time.Time) {
	if to.After(c.now) {
		c.now = to
	}
	kept := c.sleepers[:0]
	for _, sl := range c.sleepers {
		if sl.until.After(c.now) {
			kept = append(kept, sl)
			continue
		}
		close(sl.wake)
	}
	c.sleepers = kept
}

// Sleeping is how many sleepers wait.
func (c *simClock) Sleeping() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.sleepers)
}

// slowSummarizer takes took of simulated time and returns a summary of
// about tokens tokens (four bytes a token), naming how many turns it read.
type slowSummarizer struct {
	clock  *simClock
	took   time.Duration
	tokens int
	calls  atomic.Int64
}

func (s *slowSummarizer) Name() string { return "slow" }

func (s *slowSummarizer) Summarize(ctx context.Context, req compact.SummaryRequest) (string, error) {
	s.calls.Add(1)
	if err := s.clock.Sleep(ctx, s.took); err != nil {
		return "", err
	}
	head := fmt.Sprintf("The agent worked through %d turns. ", len(req.Turns))
	return head + strings.Repeat("Facts kept. ", max(s.tokens*4-len(head), 0)/len("Facts kept. ")), nil
}

// simDriver plays an agent against a session on a simClock: one request
// before each assistant message, step of model time per request, and a
// request path that, when it must wait, lets simulated time run until the
// compaction it waits for is done.
type simDriver struct {
	t     testing.TB
	s     *Session
	clock *simClock
	step  time.Duration

	requests, over, peak int
	usable               int
	// provider, when set, is the size a provider reports of a request the
	// session counted at n, and the driver passes that report to
	// UpdateUsage once the request's model time has passed (a background
	// compaction may have committed meanwhile); over and peak are then by
	// the provider's measure.
	provider func(n int) int
	reported int // the report of the request sent, not passed on yet
	// sentInstalls is how many compactions the session had installed when
	// it handed out the request sent; inFlight counts the reports of
	// requests a compaction committed after, inFlightOver those over the
	// engine's threshold, and inFlightStrikes the anti-thrash strikes the
	// engine counted while the session took one in.
	sentInstalls                            uint64
	inFlight, inFlightOver, inFlightStrikes int
}

// pollEvery is how long the driver sleeps, in real time, between two looks
// at a session whose background compaction is computing (not asleep on the
// simulated clock).
const pollEvery = 20 * time.Microsecond

// settle waits until the session's background compaction, if any, is
// asleep on the clock or done, so that simulated time moves only while
// nothing but the clock can make progress.
func (d *simDriver) settle() {
	for {
		d.s.mu.Lock()
		running := d.s.bg != nil
		d.s.mu.Unlock()
		if !running || d.clock.Sleeping() > 0 {
			return
		}
		time.Sleep(pollEvery)
	}
}

// replay plays msgs.
func (d *simDriver) replay(ctx context.Context, msgs []compact.Message) {
	d.t.Helper()
	next := 0
	for a, m := range msgs {
		if m.Role != compact.RoleAssistant {
			continue
		}
		if a > next {
			d.append(ctx, msgs[next:a]...)
		}
		d.request(ctx)
		d.clock.Advance(d.step)
		d.settle()
		d.report()
		d.append(ctx, m)
		next = a + 1
	}
}

// report passes the provider's report of the request sent to the session.
func (d *simDriver) report() {
	if d.provider == nil {
		return
	}
	before := d.s.engine.Status()
	d.s.UpdateUsage(compact.Usage{PromptTokens: d.reported})
	d.settle()
	d.s.mu.Lock()
	stale := d.s.installs != d.sentInstalls
	d.s.mu.Unlock()
	if stale {
		d.inFlight++
		if d.reported >= before.Threshold {
			d.inFlightOver++
		}
		if d.s.engine.Status().Strikes > before.Strikes {
			d.inFlightStrikes++
		}
	}
}

func (d *simDriver) append(ctx context.Context, msgs ...compact.Message) {
	d.t.Helper()
	require.NoError(d.t, d.s.Append(ctx, msgs...))
	d.settle()
}

// request is the request path: compact when the session says so (letting
// simulated time run while it waits), then take the request.
func (d *simDriver) request(ctx context.Context) {
	d.t.Helper()
	if d.s.ShouldCompress() {
		done := make(chan error, 1)
		go func() {
			_, err := d.s.Compress(ctx)
			done <- err
		}()
		for waiting := true; waiting; {
			select {
			case err := <-done:
				require.NoError(d.t, err, "request %d", d.requests+1)
				waiting = false
				continue
			default:
			}
			d.s.mu.Lock()
			blocked, running := d.s.req.waiting > 0, d.s.bg != nil
			d.s.mu.Unlock()
			if d.clock.Sleeping() > 0 && (blocked || !running) {
				d.clock.AdvanceToNext()
				continue
			}
			time.Sleep(pollEvery)
		}
		d.settle()
	}
	req := d.s.Messages()
	d.s.mu.Lock()
	tools := d.s.req.toolTokens
	d.sentInstalls = d.s.installs
	d.s.mu.Unlock()
	n := d.s.countAll(req) + tools
	if d.provider != nil {
		n = d.provider(n)
		d.reported = n
	}
	d.requests++
	d.peak = max(d.peak, n)
	if d.usable > 0 && n > d.usable {
		d.over++
	}
	require.NoError(d.t, compact.Validate(req), "request %d", d.requests)
}
