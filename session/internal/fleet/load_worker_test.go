package fleet

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand"
	"net/url"
	"os"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/models"
	"github.com/contextkit/compact/session"
	"github.com/contextkit/compact/session/internal/codec"
	"github.com/contextkit/compact/session/internal/storebench"
	"github.com/contextkit/compact/session/sqlitestore"
	"github.com/contextkit/compact/session/store"
	"github.com/contextkit/compact/tokens"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// loadResult is what a load worker measured, written as JSON for the
// parent.
type loadResult struct {
	Appends []int64 // each Session.Append, in microseconds
	Bare    []int64 // each bare insert, in microseconds
	Commits []int64 // each store Commit, in microseconds
	Stored  []int64 // each store Append under Session.Append, in microseconds
	// Appended counts the calls each session's Append logged.
	Appended    map[string]int
	Compactions int      // background compactions committed
	Declined    int      // background compactions that failed, the store's faults included
	Why         []string // the last failure of a few sessions
	Errors      []string // every call that failed, and every background failure
	First, Last int64    // unix ns of the first call and the end of the last
}

// latencies collects durations from many goroutines.
type latencies struct {
	mu sync.Mutex
	us []int64
}

func (l *latencies) add(d time.Duration) {
	l.mu.Lock()
	l.us = append(l.us, d.Microseconds())
	l.mu.Unlock()
}

func (l *latencies) get() []int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]int64(nil), l.us...)
}

// timed is a store that times each Append and Commit, and records every
// error a call returns, but for a lease another holds and a call its
// caller cancelled (Close stops a compaction running); the optional
// interfaces pass through.
type timed struct {
	store.Store
	leaser           store.Leaser
	spender          store.Spender
	appends, commits *latencies
	fail             func(format string, args ...any)
}

// check records err from op on session id.
func (t *timed) check(op, id string, err error) error {
	if err != nil && !errors.Is(err, store.ErrBusy) && !errors.Is(err, context.Canceled) {
		t.fail("store: %s %s: %v", op, id, err)
	}
	return err
}

func (t *timed) Append(ctx context.Context, id string, msgs ...compact.Message) (int64, int, error) {
	start := time.Now()
	last, n, err := t.Store.Append(ctx, id, msgs...)
	if err == nil && len(msgs) > 0 {
		t.appends.add(time.Since(start))
	}
	return last, n, t.check("append", id, err)
}

func (t *timed) Commit(ctx context.Context, id string, c store.Compaction, l store.Lease) (int64, error) {
	start := time.Now()
	last, err := t.Store.Commit(ctx, id, c, l)
	if err == nil {
		t.commits.add(time.Since(start))
	}
	return last, t.check("commit", id, err)
}

func (t *timed) Read(ctx context.Context, id string, from, to int64) ([]store.Record, error) {
	recs, err := t.Store.Read(ctx, id, from, to)
	return recs, t.check("read", id, err)
}

func (t *timed) Live(ctx context.Context, id string) ([]compact.Message, int64, int, error) {
	msgs, through, n, err := t.Store.Live(ctx, id)
	return msgs, through, n, t.check("live", id, err)
}

func (t *timed) Spend(ctx context.Context, id string) (models.Spend, error) {
	spend, err := t.spender.Spend(ctx, id)
	return spend, t.check("spend", id, err)
}

func (t *timed) Acquire(ctx context.Context, id string, ttl time.Duration) (store.Lease, error) {
	l, err := t.leaser.Acquire(ctx, id, ttl)
	return l, t.check("acquire", id, err)
}

func (t *timed) Renew(ctx context.Context, id string, l store.Lease, ttl time.Duration) (store.Lease, error) {
	l, err := t.leaser.Renew(ctx, id, l, ttl)
	return l, t.check("renew", id, err)
}

func (t *timed) Release(ctx context.Context, id string, l store.Lease) error {
	return t.check("release", id, t.leaser.Release(ctx, id, l))
}

// TestLoadWorker is the body of a load worker process; it does nothing
// unless runLoad started it.
func TestLoadWorker(t *testing.T) {
	raw := os.Getenv(envLoad)
	if raw == "" {
		t.Skip("run by TestFleetLoad and BenchmarkFleetLoad in processes of their own")
	}
	var cfg loadConfig
	if err := json.Unmarshal([]byte(raw), &cfg); err != nil {
		t.Fatal(err)
	}
	me, _ := strconv.Atoi(os.Getenv(envLoadMe))
	ctx := context.Background()
	st, closeStore, err := openStore(ctx, cfg.Store, cfg.Target, cfg.Schema)
	if err != nil {
		t.Fatal(err)
	}
	defer closeStore()
	bare, err := openBare(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer bare.close()

	transcripts := storebench.Transcripts(t)
	per := cfg.Sessions / cfg.Procs
	res := loadResult{Appended: map[string]int{}}
	var mu sync.Mutex
	fail := func(format string, args ...any) {
		mu.Lock()
		res.Errors = append(res.Errors, fmt.Sprintf(format, args...))
		mu.Unlock()
	}
	var appends, bares, commits, stored latencies
	timedStore := &timed{Store: st, leaser: st.(store.Leaser), spender: st.(store.Spender), appends: &stored, commits: &commits, fail: fail}
	m := session.NewManager(func(string) compact.ContextEngine { return loadEngine(cfg) },
		session.WithStore(timedStore), session.WithBackground(true))

	// pause waits about think, at random: the model's turn.
	pause := func(rng *rand.Rand, think time.Duration) {
		time.Sleep(time.Duration(rng.Int63n(int64(2*think) + 1)))
	}
	start := time.Now()
	var wg sync.WaitGroup
	for i := 0; i < per; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			id := loadID(me, i)
			rng := rand.New(rand.NewSource(int64(me*per + i)))
			pause(rng, cfg.Think/2) // the sessions start spread out
			s, err := m.Get(ctx, id)
			if err != nil {
				fail("%s: get: %v", id, err)
				return
			}
			n := 0
			for _, g := range turns(transcripts, me*per+i, cfg.Turns) {
				pause(rng, cfg.Think)
				start := time.Now()
				err := s.Append(ctx, g...)
				appends.add(time.Since(start))
				if err != nil && !errors.Is(err, session.ErrStale) {
					fail("%s: append %d: %v", id, n+1, err)
					break
				}
				if err != nil {
					fail("%s: append %d: %v", id, n+1, err) // logged, but an error all the same
				}
				n++
			}
			// Counted before Close, which cancels a compaction still
			// running.
			status := s.Status()
			mu.Lock()
			res.Appended[id] = n
			res.Compactions += status.BackgroundCompactions
			// What failed in the store is in Errors already; the rest is
			// the engine declining (nothing to compress yet, say).
			res.Declined += status.BackgroundFailures
			if status.BackgroundError != "" && len(res.Why) < 5 {
				res.Why = append(res.Why, status.BackgroundError)
			}
			mu.Unlock()
		}()
	}
	for w := 0; w < cfg.Bare; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewSource(int64(-1 - me*cfg.Bare - w)))
			pause(rng, cfg.Think/2)
			for _, g := range turns(transcripts, me*per+w, cfg.Turns) {
				pause(rng, cfg.Think)
				var body []byte
				for i, m := range g {
					b, err := codec.Message(i, m)
					if err != nil {
						fail("bare: %v", err)
						return
					}
					body = append(body, b...)
				}
				start := time.Now()
				err := bare.insert(ctx, body)
				bares.add(time.Since(start))
				if err != nil {
					fail("bare insert: %v", err)
					return
				}
			}
		}()
	}
	wg.Wait()
	res.First, res.Last = start.UnixNano(), time.Now().UnixNano()
	if err := m.Close(ctx); err != nil {
		fail("close: %v", err)
	}
	res.Appends, res.Bare, res.Commits, res.Stored = appends.get(), bares.get(), commits.get(), stored.get()
	data, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(os.Getenv(envLoadOut), data, 0o600); err != nil {
		t.Fatal(err)
	}
}

// loadEngine compacts at a small window, with a summarizer that takes
// cfg.Summarize's time.
func loadEngine(cfg loadConfig) compact.ContextEngine {
	return compact.New(compact.WithContextWindow(cfg.Window), compact.WithThresholdBounds(0, 0),
		compact.WithTokenCounter(tokens.Estimator{}),
		compact.WithSummarizer(compact.SummarizerFunc(func(ctx context.Context, req compact.SummaryRequest) (string, error) {
			lo, hi := cfg.Summarize[0], cfg.Summarize[1]
			t := time.NewTimer(lo + time.Duration(rand.Int63n(int64(hi-lo)+1)))
			defer t.Stop()
			select {
			case <-t.C:
			case <-ctx.Done():
				return "", ctx.Err()
			}
			return fmt.Sprintf("Summary of %d messages.", len(req.Turns)), nil
		})))
}

// bareWriter is the yardstick: the same bytes in one row, by the plainest
// write the store's database offers.
type bareWriter struct {
	insert func(ctx context.Context, body []byte) error
	create func(ctx context.Context) error
	close  func()
}

// openBare connects the yardstick to the store's database: for SQLite, a
// connection of its own to the file with the store's settings, each insert
// one IMMEDIATE transaction; for Postgres, a pool as large as the store's,
// each insert one statement.
func openBare(ctx context.Context, cfg loadConfig) (*bareWriter, error) {
	switch cfg.Store {
	case "sqlite":
		q := url.Values{}
		q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", sqlitestore.DefaultBusyTimeout.Milliseconds()))
		q.Add("_pragma", "journal_mode(WAL)")
		q.Add("_pragma", "synchronous(NORMAL)")
		q.Set("_txlock", "immediate")
		db, err := sql.Open("sqlite", "file:"+cfg.Target+"?"+q.Encode())
		if err != nil {
			return nil, err
		}
		db.SetMaxOpenConns(1)
		return &bareWriter{
			insert: func(ctx context.Context, body []byte) error {
				tx, err := db.BeginTx(ctx, nil)
				if err != nil {
					return err
				}
				if _, err := tx.ExecContext(ctx, `INSERT INTO `+bareTable+` (body) VALUES (?)`, string(body)); err != nil {
					return errors.Join(err, tx.Rollback())
				}
				return tx.Commit()
			},
			create: func(ctx context.Context) error {
				_, err := db.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS `+bareTable+` (id INTEGER PRIMARY KEY, body TEXT NOT NULL) STRICT`)
				return err
			},
			close: func() { db.Close() },
		}, nil
	case "postgres":
		pcfg, err := pgxpool.ParseConfig(cfg.Target)
		if err != nil {
			return nil, err
		}
		pcfg.MaxConns = loadPoolSize
		pool, err := pgxpool.NewWithConfig(ctx, pcfg)
		if err != nil {
			return nil, err
		}
		table := pgx.Identifier{cfg.Schema, bareTable}.Sanitize()
		return &bareWriter{
			insert: func(ctx context.Context, body []byte) error {
				_, err := pool.Exec(ctx, `INSERT INTO `+table+` (body) VALUES ($1)`, string(body))
				return err
			},
			create: func(ctx context.Context) error {
				_, err := pool.Exec(ctx, `CREATE TABLE IF NOT EXISTS `+table+` (id bigserial PRIMARY KEY, body text NOT NULL)`)
				return err
			},
			close: pool.Close,
		}, nil
	}
	return nil, fmt.Errorf("unknown store %q", cfg.Store)
}
