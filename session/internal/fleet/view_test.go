package fleet

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"sync"
	"sync/atomic"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/session"
	"github.com/contextkit/compact/session/store"
	"github.com/contextkit/compact/tokens"
)

// errFlaky is the failure flaky injects.
var errFlaky = errors.New("fleet: the store failed on purpose")

// errFatal marks a failure no store fault explains: the worker stops.
var errFatal = errors.New("fleet: broken")

// flakyOdds is how often flaky fails a call: one in eight, the rate at which
// the checks outside the project saw a session's view go stale.
const flakyOdds = 8

// flaky is the store a worker's sessions see: it fails a call in
// flakyOdds, before the call reaches the store, so that a failure never
// leaves a write half done; leases pass through untouched. Once off is set
// it fails nothing.
type flaky struct {
	*watched
	off atomic.Bool
	mu  sync.Mutex
	rng *rand.Rand
}

func (f *flaky) fail() bool {
	if f.off.Load() {
		return false
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.rng.Intn(flakyOdds) == 0
}

func (f *flaky) Append(ctx context.Context, id string, msgs ...compact.Message) (int64, int, error) {
	if f.fail() {
		return 0, 0, errFlaky
	}
	return f.watched.Append(ctx, id, msgs...)
}

func (f *flaky) Read(ctx context.Context, id string, from, to int64) ([]store.Record, error) {
	if f.fail() {
		return nil, errFlaky
	}
	return f.watched.Read(ctx, id, from, to)
}

func (f *flaky) Live(ctx context.Context, id string) ([]compact.Message, int64, int, error) {
	if f.fail() {
		return nil, 0, 0, errFlaky
	}
	return f.watched.Live(ctx, id)
}

func (f *flaky) Commit(ctx context.Context, id string, c store.Compaction, l store.Lease) (int64, error) {
	if f.fail() {
		return 0, errFlaky
	}
	return f.watched.Commit(ctx, id, c, l)
}

// viewChecks checks, after every call on a session that returns no error,
// that the session's view is the store's live history (see checkView). Its
// per-session locks keep a worker's calls on one session apart, so that
// the view a check reads is the one the call left.
type viewChecks struct {
	mu    sync.Mutex
	locks map[string]*sync.Mutex

	checked, stale, failed atomic.Int64
	// requests and over count the requests handed out by request, and
	// those over the window.
	requests, over atomic.Int64
}

func (v *viewChecks) lock(id string) func() {
	v.mu.Lock()
	l := v.locks[id]
	if l == nil {
		l = &sync.Mutex{}
		v.locks[id] = l
	}
	v.mu.Unlock()
	l.Lock()
	return l.Unlock
}

// shouldCompress asks the session, when the Manager holds it.
func (v *viewChecks) shouldCompress(m *session.Manager, id string) bool {
	s, ok := m.Lookup(id)
	return ok && s.ShouldCompress()
}

// op gets the session (get), runs call on it, and, when both succeed,
// checks the view against st, the store without faults, as it stood when
// the call began. A failure a store fault, a lost lease, a passed deadline
// or an engine's refusal explains is counted and returned; any other, and a
// view that is not the store's, wraps errFatal.
func (v *viewChecks) op(ctx context.Context, st store.Store, w *watched, id string,
	get func() (*session.Session, error), call func(*session.Session) error) error {
	last, n, err := st.Append(ctx, id) // an empty append reads where the log and its compactions stand
	if err != nil {
		return fmt.Errorf("%w: reading the head: %w", errFatal, err)
	}
	before := w.latest(id)
	s, err := get()
	if err == nil {
		err = call(s)
	}
	switch {
	case err == nil:
		v.checked.Add(1)
		// The view holds what this process committed, unless a
		// background compaction still running has committed and not yet
		// installed its result: then only what was committed before the
		// call.
		latest := w.latest(id)
		if s.Status().InBackground {
			latest = before
		}
		if err := checkView(ctx, st, s, last, max(n, latest)); err != nil {
			return fmt.Errorf("%w: %w", errFatal, err)
		}
		return nil
	case errors.Is(err, session.ErrStale):
		v.stale.Add(1)
		return err
	case errors.Is(err, errFlaky), errors.Is(err, context.DeadlineExceeded), declined(err),
		errors.Is(err, store.ErrLeaseLost), errors.Is(err, store.ErrStaleFence):
		v.failed.Add(1)
		return err
	}
	return fmt.Errorf("%w: %w", errFatal, err)
}

// request is the request path of session id with background compaction
// on: Compress when the session says the request must shrink, then the
// request, counted and checked against the window. It reads nothing from
// the store when the request fits, so the view is not checked after it
// (Append, just before, was). A failure the flaky store, a deadline or a
// lost lease explains is counted and returned (the host would try the turn
// again); any other wraps errFatal.
func (v *viewChecks) request(ctx context.Context, m *session.Manager, id string) error {
	s, err := m.Get(ctx, id)
	if err != nil {
		return fmt.Errorf("%w: %w", errFatal, err)
	}
	if s.ShouldCompress() {
		_, err := s.Compress(ctx)
		switch {
		case err == nil:
		case errors.Is(err, session.ErrStale), errors.Is(err, errFlaky), declined(err),
			errors.Is(err, store.ErrLeaseLost), errors.Is(err, store.ErrStaleFence):
			v.failed.Add(1)
			return err
		default:
			return fmt.Errorf("%w: %w", errFatal, err)
		}
		if s.ShouldCompress() {
			return fmt.Errorf("%w: the request is still over the window after Compress returned", errFatal)
		}
	}
	req := s.Messages()
	v.requests.Add(1)
	limit := s.Status().HardLimit
	if n := tokens.CountMessages(tokens.Estimator{}, req); limit <= 0 || n > limit {
		v.over.Add(1)
		return fmt.Errorf("%w: a request of %d tokens is over the window of %d", errFatal, n, limit)
	}
	return nil
}

// checkView reports how s's view differs from every live history the store
// held from the moment its log reached record through and compaction n was
// committed: the view must be the Live of a compaction numbered n or later
// (none for 0) followed by the records after that compaction's Through, up
// to one at or past through, and its token count must be the view's.
func checkView(ctx context.Context, st store.Store, s *session.Session, through int64, n int) error {
	view, count := consistentView(s)
	if want := tokens.CountMessages(tokens.Estimator{}, view); count != want {
		return fmt.Errorf("the view's running count is %d tokens, its messages take %d", count, want)
	}
	comps, err := st.Compactions(ctx, s.ID())
	if err != nil {
		return err
	}
	recs, err := st.Read(ctx, s.ID(), 1, 0)
	if err != nil {
		return err
	}
	for k := n; k <= len(comps); k++ {
		var base []compact.Message
		from := int64(1)
		if k > 0 {
			base, from = comps[k-1].Live, comps[k-1].Through+1
		}
		tail := int64(len(view) - len(base))
		end := from - 1 + tail // the last record the view would hold
		if tail < 0 || end < through || end > int64(len(recs)) {
			continue
		}
		want := append(append([]compact.Message{}, base...), messages(recs[from-1:end])...)
		if same(contents(want), contents(view)) {
			return nil
		}
	}
	return fmt.Errorf("the view (%d messages, %d tokens) is no live history the store held since record %d and compaction %d (it holds %d records and %d compactions)",
		len(view), s.Tokens(), through, n, len(recs), len(comps))
}

// consistentView returns s's view and its running count as they stood at
// one moment. They are two calls, and a background compaction may install
// its smaller history between them (a count of the compacted history
// beside the messages of the one before it); the count taken on both sides
// of Messages is the view's when it did not change, and a change is tried
// again (a few times: compactions are far apart).
func consistentView(s *session.Session) ([]compact.Message, int) {
	for try := 1; ; try++ {
		before := s.Tokens()
		view := s.Messages()
		if after := s.Tokens(); after == before || try == viewTries {
			return view, after
		}
	}
}

// viewTries bounds consistentView's tries.
const viewTries = 10

func messages(recs []store.Record) []compact.Message {
	out := make([]compact.Message, len(recs))
	for i, r := range recs {
		out[i] = r.Message
	}
	return out
}

func same(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
