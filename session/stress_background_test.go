package session

import (
	"context"
	"errors"
	"math/rand/v2"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/session/store"
)

// The shape of the background stress test (issue 25): bgStressSessions
// sessions (bgStressShort under -short) with background compaction on,
// stressWriters writers each, against the stress summarizer (it sleeps up
// to stressSleep and fails a call in stressFailEvery) bounded by
// bgStressSummaryTimeout, so some calls time out too, and a store that
// fails a write in writeFailEvery.
const (
	bgStressSessions       = 200
	bgStressShort          = 50
	bgStressSummaryTimeout = 1500 * time.Microsecond
	writeFailEvery         = 8
	// requestTries bounds how often a writer's request path tries again
	// after a failure (the flaky store or summarizer) before the test
	// counts the request as one that could not be made to fit.
	requestTries = 100
)

// errWriteFailed is the failure flakyWrites injects.
var errWriteFailed = errors.New("stress: the store failed to write")

// flakyWrites is a store.Memory whose writes (Append and Commit) fail one
// time in writeFailEvery, before they reach the store, so that a failed
// write leaves nothing behind.
type flakyWrites struct {
	*store.Memory
	failed atomic.Int64
}

func (f *flakyWrites) fail() bool {
	if rand.IntN(writeFailEvery) == 0 {
		f.failed.Add(1)
		return true
	}
	return false
}

func (f *flakyWrites) Append(ctx context.Context, id string, msgs ...compact.Message) (int64, int, error) {
	if len(msgs) > 0 && f.fail() {
		return 0, 0, errWriteFailed
	}
	return f.Memory.Append(ctx, id, msgs...)
}

func (f *flakyWrites) Commit(ctx context.Context, id string, c store.Compaction, l store.Lease) (int64, error) {
	if f.fail() {
		return 0, errWriteFailed
	}
	return f.Memory.Commit(ctx, id, c, l)
}

// bgTally counts, beside stressTally, what the request paths saw.
type bgTally struct {
	requests, over, unfit, retries atomic.Int64
}

// Issue 25: many sessions compacting in the background while three
// writers each append and make requests, against a summarizer that sleeps,
// fails and times out and a store that fails one write in eight. No
// message is lost, duplicated, reordered or altered (in the live history
// and in the log), no request handed out is over the window, no two
// compactions of a session overlap, and no goroutine outlives Close.
func TestStressBackgroundSessions(t *testing.T) {
	ignore := goleak.IgnoreCurrent()
	n := bgStressSessions
	if testing.Short() {
		n = bgStressShort
	}
	ctx := context.Background()
	tally, req := &stressTally{}, &bgTally{}
	flaky := &flakyWrites{Memory: store.NewMemory()}
	m := NewManager(func(id string) compact.ContextEngine {
		return newStressEngine(id, tally, compact.WithSummaryTimeout(bgStressSummaryTimeout))
	}, WithStore(flaky), WithBackground(true))

	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		id := "bg-stress-" + strconv.Itoa(i)
		s, err := m.Get(ctx, id)
		require.NoError(t, err)
		appendRetrying(t, ctx, s, compact.Message{Role: compact.RoleSystem, Content: stressPrompt})
		// Appends share the session; a request path has it to itself, as
		// an agent builds one request at a time, while the background
		// compaction goes on beside both.
		var turn sync.RWMutex
		for w := 0; w < stressWriters; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for p := 0; p < stressPairs; p++ {
					turn.RLock()
					appendRetrying(t, ctx, s,
						compact.Message{Role: compact.RoleUser, Content: tag(w, 2*p) + " " + padding},
						compact.Message{Role: compact.RoleAssistant, Content: tag(w, 2*p+1) + " " + padding})
					turn.RUnlock()
					turn.Lock()
					request(t, ctx, s, tally, req)
					turn.Unlock()
				}
			}()
		}
	}
	wg.Wait()

	var waits, pruned, waited, compacted, background, foreground, bgFailures, noneStarted int
	for i := 0; i < n; i++ {
		id := "bg-stress-" + strconv.Itoa(i)
		s, ok := m.Lookup(id)
		require.True(t, ok)
		// Let a background compaction running end, so that the session
		// and the store agree when they are compared.
		finishBackground(t, s)
		st := s.Status()
		waits += st.Waits.Count
		pruned, waited, compacted = pruned+st.AtLimit.Pruned, waited+st.AtLimit.Waited, compacted+st.AtLimit.Compacted
		background, foreground, bgFailures = background+st.BackgroundCompactions, foreground+st.ForegroundCompactions, bgFailures+st.BackgroundFailures
		if st.BackgroundCompactions+st.BackgroundFailures == 0 {
			noneStarted++
		}
		checkStressSession(t, ctx, s, id, flaky.Memory, tally)
	}
	require.NoError(t, m.Close(ctx))
	goleak.VerifyNone(t, ignore)

	t.Logf("%d sessions, %d requests: %d over the window, %d that could not be made to fit, %d tries again after a failure",
		n, req.requests.Load(), req.over.Load(), req.unfit.Load(), req.retries.Load())
	t.Logf("compactions: %d in the background (%d failed), %d on a request path; at the hard limit %d waited, %d pruned, %d compacted (%d waits); "+
		"%d writes failed, %d summaries failed",
		background, bgFailures, foreground, waited, pruned, compacted, waits, flaky.failed.Load(), tally.failures.Load())
	assert.Zero(t, tally.lost.Load(), "messages lost")
	assert.Zero(t, tally.duplicated.Load(), "messages duplicated")
	assert.Zero(t, tally.reordered.Load(), "messages reordered")
	assert.Zero(t, tally.altered.Load(), "messages altered")
	assert.Zero(t, tally.idChanges.Load(), "id changes")
	assert.Zero(t, tally.overlaps.Load(), "overlapping compactions")
	assert.Zero(t, tally.unexpected.Load(), "unexpected errors")
	assert.Zero(t, req.over.Load(), "requests over the window")
	assert.Zero(t, req.unfit.Load(), "requests that could not be made to fit")
	// The test must have done what it says.
	// Every session ran a background compaction (committed or failed: the
	// flaky summarizer and store fail about as many as commit), and some
	// committed.
	assert.Zero(t, noneStarted, "sessions where no background compaction ran")
	assert.Positive(t, background, "background compactions committed")
	assert.Positive(t, bgFailures, "background compactions failed")
	assert.Positive(t, waited+compacted, "request paths reached the hard limit")
	assert.Positive(t, flaky.failed.Load(), "the store failed writes")
}

// appendRetrying appends msgs, again as long as the store fails: a failed
// Append recorded nothing.
func appendRetrying(t *testing.T, ctx context.Context, s *Session, msgs ...compact.Message) {
	for {
		err := s.Append(ctx, msgs...)
		if err == nil {
			return
		}
		if !assert.ErrorIs(t, err, errWriteFailed, "session %s: append", s.ID()) {
			return
		}
	}
}

// request is a writer's request path: Compress while the session says the
// request must shrink (again after a failure the flaky parts explain),
// then the request, which must fit the window.
func request(t *testing.T, ctx context.Context, s *Session, tally *stressTally, req *bgTally) {
	fits := false
	for try := 0; try < requestTries; try++ {
		if !s.ShouldCompress() {
			fits = true
			break
		}
		_, err := s.Compress(ctx)
		switch {
		case err == nil:
		case errors.Is(err, errWriteFailed), errors.Is(err, compact.ErrSummarizer):
			tally.failures.Add(1)
			req.retries.Add(1)
		default:
			tally.unexpected.Add(1)
			assert.Failf(t, "unexpected error", "session %s: compress: %v", s.ID(), err)
			return
		}
	}
	if !fits {
		req.unfit.Add(1)
		return
	}
	out := s.Messages()
	req.requests.Add(1)
	if !assert.LessOrEqual(t, s.countAll(out), s.Status().HardLimit, "session %s: a request's tokens are over the window", s.ID()) {
		req.over.Add(1)
	}
	if !assert.NoError(t, compact.Validate(out), "session %s: the request is not valid", s.ID()) {
		tally.unexpected.Add(1)
	}
}
