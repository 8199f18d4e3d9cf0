package session

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/internal/msgtest"
	"github.com/contextkit/compact/session/store"
	"github.com/contextkit/compact/tokens"
)

// The shape of the stress test. 1,000 sessions (100 under -short), each with
// stressWriters goroutines appending stressPairs user-assistant pairs and
// compacting whenever the session asks, and one goroutine forcing
// stressForced compactions meanwhile, against a summarizer that sleeps up
// to stressSleep and fails one call in stressFailEvery. Sized to run under
// the race detector in well under a minute on two cores.
const (
	stressSessions      = 1000
	stressShortSessions = 100
	stressWriters       = 3
	stressPairs         = 16
	stressForced        = 4
	stressSleep         = 2 * time.Millisecond
	stressFailEvery     = 5
)

// stressTally counts what went wrong across all sessions; every field but
// the last four must end at zero.
type stressTally struct {
	lost, duplicated, reordered, altered, idChanges, overlaps, unexpected atomic.Int64
	// Sanity: proof the test exercised what it claims.
	automatic, forced, failures, noSavings atomic.Int64
}

// tag names message item of writer w in a session: "<w:item>", item being
// 2*pair for the user turn and 2*pair+1 for the assistant's.
func tag(w, item int) string { return fmt.Sprintf("<%d:%d>", w, item) }

var (
	tagRE     = regexp.MustCompile(`<(\d+):(\d+)>`)
	coveredRE = regexp.MustCompile(`w(\d+):([0-9,-]+)`)
)

// stressSummarizer summarises by listing, per writer, the ranges of items
// the summary now covers (the previous summary's and the new turns'), so
// that the live history says exactly which messages were folded. It sleeps
// a little and fails now and then, and counts calls that overlap.
type stressSummarizer struct {
	inFlight atomic.Int32
	tally    *stressTally
}

func (s *stressSummarizer) Name() string { return "stress" }

func (s *stressSummarizer) Summarize(ctx context.Context, req compact.SummaryRequest) (string, error) {
	if s.inFlight.Add(1) > 1 {
		s.tally.overlaps.Add(1)
	}
	defer s.inFlight.Add(-1)
	select {
	case <-time.After(rand.N(stressSleep)):
	case <-ctx.Done():
		return "", ctx.Err()
	}
	if rand.IntN(stressFailEvery) == 0 {
		return "", errors.New("stress: the model is overloaded")
	}
	covered := coveredItems(req.PreviousSummary)
	for _, m := range req.Turns {
		for _, t := range tagRE.FindAllStringSubmatch(m.Content, -1) {
			w, _ := strconv.Atoi(t[1])
			item, _ := strconv.Atoi(t[2])
			covered[w] = append(covered[w], item)
		}
	}
	return "covered " + formatCovered(covered), nil
}

// coveredItems reads the items a summary lists, per writer.
func coveredItems(summary string) map[int][]int {
	out := map[int][]int{}
	for _, m := range coveredRE.FindAllStringSubmatch(summary, -1) {
		w, _ := strconv.Atoi(m[1])
		for _, r := range strings.Split(m[2], ",") {
			lo, hi, _ := strings.Cut(r, "-")
			a, _ := strconv.Atoi(lo)
			b := a
			if hi != "" {
				b, _ = strconv.Atoi(hi)
			}
			for i := a; i <= b; i++ {
				out[w] = append(out[w], i)
			}
		}
	}
	return out
}

// formatCovered writes items per writer as sorted ranges, "w0:0-7,12-15",
// keeping duplicates visible ("3,3") so that a message summarised twice is
// caught.
func formatCovered(c map[int][]int) string {
	var parts []string
	for w := 0; w < stressWriters; w++ {
		items := append([]int(nil), c[w]...)
		if len(items) == 0 {
			continue
		}
		sort.Ints(items)
		var rs []string
		for i := 0; i < len(items); {
			j := i
			for j+1 < len(items) && items[j+1] == items[j]+1 {
				j++
			}
			if j == i {
				rs = append(rs, strconv.Itoa(items[i]))
			} else {
				rs = append(rs, strconv.Itoa(items[i])+"-"+strconv.Itoa(items[j]))
			}
			i = j + 1
		}
		parts = append(parts, "w"+strconv.Itoa(w)+":"+strings.Join(rs, ","))
	}
	return strings.Join(parts, " ")
}

// stressEngine is a Compressor that checks, around each Compress, that no
// other compaction of its session is running and that it compacts the
// session it belongs to.
type stressEngine struct {
	*compact.Compressor
	id       string
	inFlight atomic.Int32
	tally    *stressTally
}

func (e *stressEngine) Compress(ctx context.Context, msgs []compact.Message, opts ...compact.CompressOption) (*compact.Result, error) {
	if e.inFlight.Add(1) > 1 {
		e.tally.overlaps.Add(1)
	}
	defer e.inFlight.Add(-1)
	o := compact.ApplyCompressOptions(opts...)
	if o.SessionID != e.id {
		e.tally.idChanges.Add(1)
	}
	res, err := e.Compressor.Compress(ctx, msgs, opts...)
	switch {
	case err != nil || res.Skipped != "":
	case o.Force:
		e.tally.forced.Add(1)
	default:
		e.tally.automatic.Add(1)
	}
	return res, err
}

func newStressEngine(id string, tally *stressTally, extra ...compact.Option) compact.ContextEngine {
	c := compact.New(append([]compact.Option{
		compact.WithTokenCounter(tokens.Estimator{}),
		compact.WithContextWindow(2400), compact.WithReserveTokens(0), compact.WithThresholdBounds(0, 0),
		compact.WithSummarizer(&stressSummarizer{tally: tally}),
		compact.WithFailurePolicy(compact.AbortOnFailure), compact.WithBackoff(), compact.WithStrikeLimit(0),
		compact.WithCarriedUserTokens(0), compact.WithTail(0.2, 4),
	}, extra...)...)
	return &stressEngine{Compressor: c, id: id, tally: tally}
}

// stressPrompt is every session's system prompt.
const stressPrompt = "You are one of many agents."

// padding makes a message worth compacting: about 40 tokens.
var padding = strings.Repeat("lorem ipsum ", 14)

// Issue 17: many sessions at once, each compacted automatically and by
// force while several goroutines append to it, against a summarizer that
// is slow and unreliable. Nothing appended is lost, duplicated or
// reordered; no session changes its id; no two compactions of a session
// overlap; no goroutine outlives the test.
func TestStressConcurrentSessions(t *testing.T) {
	ignore := goleak.IgnoreCurrent()
	n := stressSessions
	if testing.Short() {
		n = stressShortSessions
	}
	ctx := context.Background()
	tally := &stressTally{}
	st := store.NewMemory()
	var logs logSink
	m := NewManager(func(id string) compact.ContextEngine { return newStressEngine(id, tally) },
		WithStore(st), WithLogger(logs.logger()))
	ids := make([]string, n)
	for i := range ids {
		ids[i] = "stress-" + strconv.Itoa(i)
	}

	var wg sync.WaitGroup
	for _, id := range ids {
		s, err := m.Get(context.Background(), id)
		require.NoError(t, err)
		require.NoError(t, s.Append(ctx, compact.Message{Role: compact.RoleSystem, Content: stressPrompt}))
		compactErr := func(err error) {
			switch {
			case err == nil:
			case errors.Is(err, compact.ErrSummarizer):
				tally.failures.Add(1)
			case errors.Is(err, compact.ErrNoSavings), errors.Is(err, compact.ErrNothingToCompress):
				tally.noSavings.Add(1)
			default:
				tally.unexpected.Add(1)
				assert.Failf(t, "unexpected error", "session %s: %v", id, err)
			}
		}
		for w := 0; w < stressWriters; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for p := 0; p < stressPairs; p++ {
					if !assert.NoError(t, s.Append(ctx,
						compact.Message{Role: compact.RoleUser, Content: tag(w, 2*p) + " " + padding},
						compact.Message{Role: compact.RoleAssistant, Content: tag(w, 2*p+1) + " " + padding},
					), "session %s: append", id) {
						tally.unexpected.Add(1)
					}
					if s.ShouldCompress() {
						_, err := s.Compress(ctx)
						compactErr(err)
					}
				}
			}()
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := 0; k < stressForced; k++ {
				time.Sleep(rand.N(3 * stressSleep))
				_, err := s.Compress(ctx, compact.Force())
				compactErr(err)
			}
		}()
	}
	wg.Wait()

	for _, id := range ids {
		s, ok := m.Lookup(id)
		require.True(t, ok, "session %s is still served under its id", id)
		checkStressSession(t, ctx, s, id, st, tally)
	}
	require.NoError(t, m.Close(ctx))

	// Compactions during which messages arrived: the case the contract on
	// appends is about.
	done, during := logs.lines("compaction done"), 0
	for _, l := range done {
		if a, _ := l.attrs["arrived_during"].(int64); a > 0 {
			during++
		}
	}
	t.Logf("%d sessions: %d compactions (%d automatic, %d forced), %d with appends arriving during them; "+
		"%d summarizer failures, %d with nothing to save",
		n, len(done), tally.automatic.Load(), tally.forced.Load(), during, tally.failures.Load(), tally.noSavings.Load())
	assert.Zero(t, tally.lost.Load(), "messages lost")
	assert.Zero(t, tally.duplicated.Load(), "messages duplicated")
	assert.Zero(t, tally.reordered.Load(), "messages reordered")
	assert.Zero(t, tally.altered.Load(), "messages altered")
	assert.Zero(t, tally.idChanges.Load(), "id changes")
	assert.Zero(t, tally.overlaps.Load(), "overlapping compactions")
	assert.Zero(t, tally.unexpected.Load(), "unexpected errors")
	// The test must have done what it says.
	assert.GreaterOrEqual(t, len(done), n, "at least a compaction per session")
	assert.Positive(t, tally.automatic.Load(), "automatic compactions ran")
	assert.Positive(t, tally.forced.Load(), "forced compactions ran")
	assert.Positive(t, during, "messages arrived during compactions")
	assert.Positive(t, tally.failures.Load(), "the summarizer failed sometimes")
	goleak.VerifyNone(t, ignore)
}

// checkStressSession checks one session's live history against everything
// its writers appended: each message is either verbatim in the history
// (once) or listed by its single summary (once), never both; each writer's
// verbatim messages keep their order; the id, the store's log, its
// compactions and their snapshots agree.
func checkStressSession(t *testing.T, ctx context.Context, s *Session, id string, st *store.Memory, tally *stressTally) {
	t.Helper()
	if s.ID() != id || s.Status().ID != id {
		tally.idChanges.Add(1)
	}
	live := s.Messages()
	require.NoError(t, compact.Validate(live), "session %s", id)
	require.NotEmpty(t, live)
	sp := live[0].Content
	assert.False(t, live[0].Role != compact.RoleSystem || !strings.HasPrefix(sp, stressPrompt) ||
		strings.Count(sp, compact.CompactionNote) > 1 || len(sp) > len(stressPrompt)+len("\n\n"+compact.CompactionNote),
		"session %s: the system prompt is not the host's plus at most one note: %s", id, msgtest.Excerpt(sp))
	seen := map[string]int{}
	summaries := 0
	last := map[int]int{} // writer → last verbatim item
	for _, msg := range live {
		if compact.IsSummary(msg) {
			// A summary, on its own or merged in front of a message: its
			// ranges are the folded messages, and a tag after them is the
			// message it was merged into, verbatim.
			summaries++
			for w, items := range coveredItems(msg.Content) {
				for _, item := range items {
					seen[tag(w, item)]++
				}
			}
		}
		for _, tg := range tagRE.FindAllStringSubmatch(msg.Content, -1) {
			w, _ := strconv.Atoi(tg[1])
			item, _ := strconv.Atoi(tg[2])
			seen[tg[0]]++
			if !compact.IsSummary(msg) && msg.Content != tg[0]+" "+padding {
				tally.altered.Add(1)
				assert.Failf(t, "a message is not as appended", "session %s: %s: %.80q", id, tg[0], msg.Content)
			}
			if prev, ok := last[w]; ok && !assert.Greater(t, item, prev, "session %s: writer %d's items out of order", id, w) {
				tally.reordered.Add(1)
			}
			last[w] = item
		}
	}
	assert.LessOrEqual(t, summaries, 1, "session %s: summaries stacked", id)
	countEach(t, id, "live history", seen, tally)

	// The archive: the store's log holds every message verbatim, once, each
	// writer's in order.
	records, err := st.Read(ctx, id, 1, 0)
	require.NoError(t, err)
	logged, order := map[string]int{}, map[int]int{}
	for i, r := range records {
		assert.Equal(t, int64(i+1), r.Seq, "session %s: record %d's number", id, i+1)
		for _, tg := range tagRE.FindAllStringSubmatch(r.Message.Content, -1) {
			w, _ := strconv.Atoi(tg[1])
			item, _ := strconv.Atoi(tg[2])
			logged[tg[0]]++
			if r.Message.Content != tg[0]+" "+padding {
				tally.altered.Add(1)
				assert.Failf(t, "a record is not as appended", "session %s: record %d: %.80q", id, r.Seq, r.Message.Content)
			}
			if prev, ok := order[w]; ok && !assert.Greater(t, item, prev, "session %s: the log has writer %d's items out of order", id, w) {
				tally.reordered.Add(1)
			}
			order[w] = item
		}
	}
	countEach(t, id, "log", logged, tally)

	// Every compaction is this session's, numbered in order, under fences
	// that never decrease, its snapshot readable under its id; the store's
	// live history is the session's.
	comps, err := st.Compactions(ctx, id)
	require.NoError(t, err)
	assert.Len(t, comps, s.Status().Compactions, "session %s: the store has every compaction", id)
	for i, c := range comps {
		sid := store.SnapshotID(id, c.N)
		got, n, ok := store.ParseSnapshotID(sid)
		if c.N != i+1 || !ok || got != id || n != c.N || (i > 0 && c.Fence < comps[i-1].Fence) {
			tally.idChanges.Add(1)
			assert.Failf(t, "a compaction is misnumbered", "session %s: compaction %d is numbered %d, fenced %d, snapshot %q", id, i+1, c.N, c.Fence, sid)
		}
		_, err := st.Snapshot(ctx, sid)
		assert.NoError(t, err, "session %s: snapshot %s", id, sid)
	}
	stored, _, _, err := st.Live(ctx, id)
	require.NoError(t, err)
	assert.Equal(t, live, stored, "session %s: the store derives the live history the session holds", id)
}

// countEach checks that every message the writers appended was seen once.
func countEach(t *testing.T, id, where string, seen map[string]int, tally *stressTally) {
	t.Helper()
	for w := 0; w < stressWriters; w++ {
		for item := 0; item < 2*stressPairs; item++ {
			switch c := seen[tag(w, item)]; {
			case c == 0:
				tally.lost.Add(1)
				assert.Failf(t, "a message is lost", "session %s: %s lost from the %s", id, tag(w, item), where)
			case c > 1:
				tally.duplicated.Add(1)
				assert.Failf(t, "a message is duplicated", "session %s: %s appears %d times in the %s", id, tag(w, item), c, where)
			}
		}
	}
	if !assert.Equal(t, stressWriters*2*stressPairs, len(seen), "session %s: distinct messages in the %s", id, where) {
		tally.duplicated.Add(1)
	}
}
