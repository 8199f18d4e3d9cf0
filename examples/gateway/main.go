// Command gateway serves several agents at once from one process, the way a
// chat gateway or a fleet runner does, with a Manager that keeps one
// Session per agent in a durable store:
//
//	go run ./examples/gateway                          # SQLite, a file in a temp dir
//	go run ./examples/gateway -store /var/tmp/gw.db    # SQLite, a file of yours
//	go run ./examples/gateway -store postgres://...    # Postgres, shared by hosts
//
// Each agent's messages arrive on their own goroutine and are logged in the
// store as they come; each session compacts on its own when it crosses its
// threshold, one compaction at a time, while messages keep arriving. Run
// two gateways on one Postgres (or one SQLite file) with different -name
// values and they serve the same agents together: every message of both
// lands in one log per agent, and each agent compacts in one place at a
// time, whichever gateway asks.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/session"
	"github.com/contextkit/compact/session/pgstore"
	"github.com/contextkit/compact/session/sqlitestore"
	"github.com/contextkit/compact/session/store"
	"github.com/contextkit/compact/tokens"
)

// config is what the flags set.
type config struct {
	store  string // "" for a SQLite file in a temp dir, a path, or a postgres:// URL
	name   string // this gateway's name, in every message it sends
	prefix string // agent ids are prefix-0, prefix-1...
	agents int
	turns  int
}

func main() {
	var cfg config
	flag.StringVar(&cfg.store, "store", "", "where sessions live: a SQLite file path, or a postgres:// URL (default: a SQLite file in a temp dir)")
	flag.StringVar(&cfg.name, "name", "gw", "this gateway's name, in the messages it sends")
	flag.StringVar(&cfg.prefix, "prefix", "agent", "agent ids are <prefix>-0, <prefix>-1...")
	flag.IntVar(&cfg.agents, "agents", 4, "agents to serve")
	flag.IntVar(&cfg.turns, "turns", 40, "turns per agent")
	flag.Parse()
	if err := run(context.Background(), os.Stdout, cfg); err != nil {
		log.Fatal(err)
	}
}

// openStore opens the store cfg names; done closes it (and removes a temp
// dir it made).
func openStore(ctx context.Context, where string) (st store.Store, desc string, done func() error, err error) {
	switch {
	case strings.HasPrefix(where, "postgres://") || strings.HasPrefix(where, "postgresql://"):
		pg, err := pgstore.Open(ctx, where)
		if err != nil {
			return nil, "", nil, err
		}
		return pg, "postgres", func() error { pg.Close(); return nil }, nil
	case where == "":
		dir, err := os.MkdirTemp("", "gateway-")
		if err != nil {
			return nil, "", nil, err
		}
		lite, err := sqlitestore.Open(ctx, filepath.Join(dir, "sessions.db"))
		if err != nil {
			return nil, "", nil, errors.Join(err, os.RemoveAll(dir))
		}
		return lite, "sqlite (temp file)", func() error { return errors.Join(lite.Close(), os.RemoveAll(dir)) }, nil
	default:
		lite, err := sqlitestore.Open(ctx, where)
		if err != nil {
			return nil, "", nil, err
		}
		return lite, "sqlite " + where, lite.Close, nil
	}
}

// run serves cfg.agents agents for cfg.turns turns each and prints what
// every session holds in the store.
func run(ctx context.Context, w io.Writer, cfg config) (err error) {
	mem, desc, done, err := openStore(ctx, cfg.store)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, done()) }()
	logs := &strings.Builder{}
	var logMu sync.Mutex
	logger := slog.New(slog.NewTextHandler(lockedWriter{logs, &logMu}, nil))

	// One engine per session: a small window so the demo compacts often.
	m := session.NewManager(func(id string) compact.ContextEngine {
		return compact.New(compact.WithContextWindow(3_000), compact.WithTokenCounter(tokens.Estimator{}))
	}, session.WithStore(mem), session.WithLogger(logger))
	defer func() { err = errors.Join(err, m.Close(ctx)) }()

	var wg sync.WaitGroup
	errs := make(chan error, cfg.agents)
	for a := 0; a < cfg.agents; a++ {
		id := fmt.Sprintf("%s-%d", cfg.prefix, a)
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := converse(ctx, m, id, cfg.name, cfg.turns); err != nil {
				errs <- fmt.Errorf("%s: %w", id, err)
			}
		}()
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		return err
	}

	_, _ = fmt.Fprintf(w, "store: %s\n", desc)
	ids := m.Sessions()
	sort.Strings(ids)
	for _, id := range ids {
		live, logged, n, err := mem.Live(ctx, id)
		if err != nil {
			return err
		}
		_, _ = fmt.Fprintf(w, "%s: %d messages live, %d in the log, %d compactions, only its own: %v\n",
			id, len(live), logged, n, ownOnly(live, id))
	}
	logMu.Lock()
	defer logMu.Unlock()
	_, _ = fmt.Fprintf(w, "this gateway: %d compactions started, %d done\n",
		strings.Count(logs.String(), `msg="compaction started"`), strings.Count(logs.String(), `msg="compaction done"`))
	return nil
}

// converse plays one agent's conversation: each turn a user message and a
// reply, compacting first whenever the session asks for it, as a host does
// before every model request.
func converse(ctx context.Context, m *session.Manager, id, name string, turns int) error {
	s, err := m.Get(ctx, id)
	if err != nil {
		return err
	}
	for t := 0; t < turns; t++ {
		ask := compact.Message{Role: compact.RoleUser, Content: fmt.Sprintf("[%s via %s] step %d: check the logs for %s and report.", id, name, t, id)}
		if err := s.Append(ctx, ask); err != nil {
			return err
		}
		if s.ShouldCompress() {
			// Another gateway may be compacting this agent: Compress waits
			// for its lease. A compaction the engine finds nothing to gain
			// from, a pause and a backoff are normal states, no error for a
			// gateway.
			_, err := s.Compress(ctx)
			switch {
			case err == nil, errors.Is(err, compact.ErrPaused), errors.Is(err, compact.ErrBackoff), errors.Is(err, session.ErrBusy),
				errors.Is(err, compact.ErrNoSavings), errors.Is(err, compact.ErrNothingToCompress):
			default:
				return err
			}
		}
		// The model's reply (a real host sends s.Messages() to its model).
		reply := compact.Message{Role: compact.RoleAssistant,
			Content: fmt.Sprintf("[%s via %s] step %d done: %s", id, name, t, strings.Repeat("the logs are clean. ", 12))}
		if err := s.Append(ctx, reply); err != nil {
			return err
		}
	}
	return nil
}

// tagged matches the tag a gateway puts on every message: [agent via name].
var tagged = regexp.MustCompile(`^\[(\S+) via `)

// ownOnly reports whether every tagged message in msgs belongs to id.
func ownOnly(msgs []compact.Message, id string) bool {
	for _, m := range msgs {
		if tag := tagged.FindStringSubmatch(compact.Text(m)); tag != nil && tag[1] != id {
			return false // another agent's message: never happens
		}
	}
	return true
}

// lockedWriter lets goroutines share one log buffer.
type lockedWriter struct {
	b  *strings.Builder
	mu *sync.Mutex
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}
