package fleet

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/session"
	"github.com/contextkit/compact/session/store"
	"github.com/contextkit/compact/tokens"
	"go.uber.org/goleak"
)

// The environment a worker process reads; the parent sets it.
const (
	envWorker     = "FLEET_WORKER"     // the worker's number; unset in the parent
	envStore      = "FLEET_STORE"      // "sqlite" or "postgres"
	envTarget     = "FLEET_TARGET"     // the SQLite path or the Postgres DSN
	envSchema     = "FLEET_SCHEMA"     // the Postgres schema
	envSessions   = "FLEET_SESSIONS"   // how many sessions
	envOps        = "FLEET_OPS"        // appends per goroutine
	envEvents     = "FLEET_EVENTS"     // the file the worker records events in
	envVictim     = "FLEET_VICTIM"     // set for the worker that will be killed
	envMarker     = "FLEET_MARKER"     // the file the victim writes when it is mid-compaction
	envBackground = "FLEET_BACKGROUND" // set when the sessions compact in the background
)

// goroutines is how many goroutines of a worker append and compact at once.
const goroutines = 3

// leaseTTL is short so that the session the victim held is taken over
// quickly, and long enough that a live holder, renewing every third of
// it, keeps its lease on a busy machine.
const leaseTTL = 2 * time.Second

// event is one line of a worker's events file.
type event struct {
	Kind    string `json:"kind"` // "append", "compaction" or "views"
	Session string `json:"session,omitempty"`
	Content string `json:"content,omitempty"` // append: the message
	Fence   int64  `json:"fence,omitempty"`   // compaction: its lease's fence
	N       int    `json:"n,omitempty"`       // compaction: its number
	Start   int64  `json:"start,omitempty"`   // compaction: after its lease was granted, unix ns
	End     int64  `json:"end,omitempty"`     // compaction: before its commit was sent, unix ns
	// views: how many calls succeeded and had their view checked, how many
	// said their view was stale, and how many failed otherwise; with
	// background compaction, how many requests the worker handed out, how
	// many of them were over the window, and how many compactions its
	// sessions ran in the background.
	Checked, Stale, Failed     int64 `json:",omitempty"`
	Requests, Over, Background int64 `json:",omitempty"`
}

// recorder writes events, one line each, straight to the file, so that a
// killed worker loses at most the line it was writing.
type recorder struct {
	mu sync.Mutex
	f  *os.File
}

func (r *recorder) record(e event) {
	b, _ := json.Marshal(e)
	r.mu.Lock()
	defer r.mu.Unlock()
	_, _ = r.f.Write(append(b, '\n'))
}

// watched is a store that records when each compaction held its lease:
// from just after Acquire returned to just before Commit was sent, an
// interval inside the one the lease really covered.
type watched struct {
	store.Store
	leaser store.Leaser
	rec    *recorder

	mu        sync.Mutex
	start     map[string]event
	committed map[string]int // the latest compaction this process committed, by session
}

func (w *watched) Acquire(ctx context.Context, id string, ttl time.Duration) (store.Lease, error) {
	l, err := w.leaser.Acquire(ctx, id, ttl)
	if err == nil {
		w.mu.Lock()
		w.start[id] = event{Kind: "compaction", Session: id, Fence: l.Fence, Start: time.Now().UnixNano()}
		w.mu.Unlock()
	}
	return l, err
}

func (w *watched) Renew(ctx context.Context, id string, l store.Lease, ttl time.Duration) (store.Lease, error) {
	return w.leaser.Renew(ctx, id, l, ttl)
}

func (w *watched) Release(ctx context.Context, id string, l store.Lease) error {
	return w.leaser.Release(ctx, id, l)
}

func (w *watched) Commit(ctx context.Context, id string, c store.Compaction, l store.Lease) (int64, error) {
	w.mu.Lock()
	e := w.start[id]
	w.mu.Unlock()
	e.End, e.N = time.Now().UnixNano(), c.N
	last, err := w.Store.Commit(ctx, id, c, l)
	if err == nil && e.Fence == l.Fence {
		w.rec.record(e)
	}
	if err == nil {
		w.mu.Lock()
		w.committed[id] = max(w.committed[id], c.N)
		w.mu.Unlock()
	}
	return last, err
}

// latest is the number of the latest compaction of session id this
// process committed, 0 if none.
func (w *watched) latest(id string) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.committed[id]
}

// fence is the fence of the latest lease granted here on session id.
func (w *watched) fence(id string) int64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.start[id].Fence
}

// TestWorker is the body of a worker process; it does nothing unless the
// parent started it.
func TestWorker(t *testing.T) {
	me := os.Getenv(envWorker)
	if me == "" {
		t.Skip("run by TestFleetSQLite and TestFleetPostgres in processes of their own")
	}
	ctx := context.Background()
	sessions, _ := strconv.Atoi(os.Getenv(envSessions))
	ops, _ := strconv.Atoi(os.Getenv(envOps))
	f, err := os.OpenFile(os.Getenv(envEvents), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rec := &recorder{f: f}

	st, closeStore, err := openStore(ctx, os.Getenv(envStore), os.Getenv(envTarget), os.Getenv(envSchema))
	if err != nil {
		t.Fatal(err)
	}
	w := &watched{Store: st, leaser: st.(store.Leaser), rec: rec, start: map[string]event{}, committed: map[string]int{}}
	// The sessions see the store through a flaky one, which fails a call
	// in eight, before it reaches the store.
	faults := &flaky{watched: w, rng: rand.New(rand.NewSource(time.Now().UnixNano()))}

	victim := os.Getenv(envVictim) != ""
	background := os.Getenv(envBackground) != ""
	var armed atomic.Bool
	block := make(chan struct{}) // never closed: the victim waits here to be killed
	var m *session.Manager
	m = session.NewManager(func(id string) compact.ContextEngine {
		return engine(func() {
			if !victim {
				return
			}
			// With background compaction on, the victim dies in the middle
			// of one: a compaction on a request path goes on.
			where := "foreground"
			if s, ok := m.Lookup(id); ok && s.Status().InBackground {
				where = "background"
			}
			if (!background || where == "background") && armed.CompareAndSwap(true, false) {
				marker := fmt.Sprintf("%s %d %s\n", id, w.fence(id), where)
				if err := os.WriteFile(os.Getenv(envMarker), []byte(marker), 0o600); err != nil {
					t.Error(err)
				}
				<-block
			}
		})
	}, session.WithStore(faults), session.WithLeaseTTL(leaseTTL), session.WithBackground(background))

	var wg sync.WaitGroup
	errs := make(chan error, goroutines)
	views := &viewChecks{locks: map[string]*sync.Mutex{}}
	for g := 0; g < goroutines; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			rng := rand.New(rand.NewSource(time.Now().UnixNano() + int64(g)))
			next := map[string]int{}
			for i := 0; i < ops; i++ {
				arm := victim && g == 0 && i == ops/2
				if arm {
					armed.Store(true) // the next compaction of this worker blocks
				}
				id := fmt.Sprintf("fleet-%d", rng.Intn(sessions))
				unlock := views.lock(id)
				err := views.op(ctx, st, w, id, func() (*session.Session, error) {
					s, err := m.Get(ctx, id)
					if err == nil && s.ID() != id {
						err = fmt.Errorf("%w: Get(%q) returned session %q", errFatal, id, s.ID())
					}
					return s, err
				}, func(s *session.Session) error {
					content := fmt.Sprintf("w%s g%d %s n%d %s", me, g, id, next[id], filler)
					err := s.Append(ctx, compact.Message{Role: role(next[id]), Content: content})
					if err == nil || errors.Is(err, session.ErrStale) {
						// Logged, even when the view could not catch up.
						rec.record(event{Kind: "append", Session: id, Content: content})
						next[id]++
					}
					return err
				})
				if err == nil && background {
					// Right after the append, with the view it left.
					err = views.request(ctx, m, id)
				}
				if err == nil && (arm || rng.Intn(20) == 0 || views.shouldCompress(m, id)) {
					err = views.op(ctx, st, w, id, func() (*session.Session, error) { return m.Get(ctx, id) },
						func(s *session.Session) error {
							opts := []compact.CompressOption{}
							cctx, cancel := ctx, context.CancelFunc(func() {})
							if arm || rng.Intn(20) == 0 {
								opts = append(opts, compact.Force())
							}
							if !arm && rng.Intn(4) == 0 {
								// A deadline that may pass anywhere, the
								// commit included.
								cctx, cancel = context.WithTimeout(ctx, time.Duration(1+rng.Intn(40))*time.Millisecond)
							}
							defer cancel()
							_, err := s.Compress(cctx, opts...)
							return err
						})
				}
				unlock()
				if errors.Is(err, errFatal) {
					errs <- fmt.Errorf("%s: %w", id, err)
					return
				}
			}
		}(g)
	}
	var compacted atomic.Int64 // background compactions, counted before the sessions close
	defer func() {
		rec.record(event{Kind: "views", Checked: views.checked.Load(), Stale: views.stale.Load(), Failed: views.failed.Load(),
			Requests: views.requests.Load(), Over: views.over.Load(), Background: compacted.Load()})
	}()
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	// Each session this worker holds sees the store's live history. Other
	// workers may still be compacting the same sessions, so the check is
	// made between two reads of the store that agree.
	faults.off.Store(true)
	for _, id := range m.Sessions() {
		s, _ := m.Get(ctx, id)
		if err := syncedLen(ctx, st, s); err != nil {
			t.Errorf("%s: %v", id, err)
		}
		compacted.Add(int64(s.Status().BackgroundCompactions))
	}
	if err := m.Close(ctx); err != nil {
		t.Error(err)
	}
	closeStore()
	if err := goleak.Find(); err != nil {
		t.Errorf("worker %s leaked goroutines: %v", me, err)
	}
}

// declined reports an engine's refusal to compact a history it finds too
// short or too small to gain from: no fault of the store's.
func declined(err error) bool {
	return errors.Is(err, compact.ErrNothingToCompress) || errors.Is(err, compact.ErrNoSavings) ||
		errors.Is(err, compact.ErrPaused) || errors.Is(err, compact.ErrBackoff)
}

// filler makes each message about 150 tokens, so that a session crosses
// the small engine's threshold every ten messages or so.
var filler = strings.Repeat("the build log says every step passed. ", 16)

func role(n int) string {
	if n%2 == 0 {
		return compact.RoleUser
	}
	return compact.RoleAssistant
}

// engine is a small-window engine whose summarizer calls hook first.
func engine(hook func()) compact.ContextEngine {
	return compact.New(compact.WithContextWindow(2000), compact.WithThresholdBounds(0, 0),
		compact.WithTokenCounter(tokens.Estimator{}),
		compact.WithSummarizer(compact.SummarizerFunc(func(_ context.Context, req compact.SummaryRequest) (string, error) {
			hook()
			return fmt.Sprintf("Summary of %d messages.", len(req.Turns)), nil
		})))
}

// syncedLen syncs s with st and checks that it then holds the store's live
// history, retrying while another process changes that history meanwhile.
func syncedLen(ctx context.Context, st store.Store, s *session.Session) error {
	var held, stored int
	for try := 0; try < 20; try++ {
		before, _, _, err := st.Live(ctx, s.ID())
		if err != nil {
			return err
		}
		if err := s.Sync(ctx); err != nil {
			return err
		}
		after, _, _, err := st.Live(ctx, s.ID())
		if err != nil {
			return err
		}
		held, stored = s.Len(), len(after)
		if len(before) != len(after) {
			continue // another process changed it between the reads
		}
		if held != stored {
			return fmt.Errorf("the session holds %d messages, the store %d", held, stored)
		}
		return nil
	}
	return nil
}
