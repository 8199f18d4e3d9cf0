// Command gateway serves several agents at once from one process, the way a
// chat gateway or a fleet runner does, with a Manager that keeps one
// Session per agent:
//
//	go run ./examples/gateway
//
// Each agent's messages arrive on their own goroutine; each session
// compacts on its own when it crosses its threshold, one compaction at a
// time, while messages keep arriving. A session's id never changes, the
// full history is kept as a snapshot before each compaction, and the log
// lines of one session never name another.
package main

import (
	"context"
	"fmt"
	"io"
	"log"
	"log/slog"
	"os"
	"sort"
	"strings"
	"sync"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/session"
)

func main() {
	if err := run(context.Background(), os.Stdout, 4, 40); err != nil {
		log.Fatal(err)
	}
}

// run drives agents sessions for turns turns each and prints what every
// session did.
func run(ctx context.Context, w io.Writer, agents, turns int) error {
	store := session.NewMemoryStore()
	logs := &strings.Builder{}
	var logMu sync.Mutex
	logger := slog.New(slog.NewTextHandler(lockedWriter{logs, &logMu}, nil))

	// One engine per session: a small window so the demo compacts often.
	m := session.NewManager(func(id string) compact.ContextEngine {
		return compact.New(compact.WithContextWindow(3_000), compact.WithTokenCounter(compact.EstimateCounter{}))
	}, session.WithStore(store), session.WithLogger(logger))
	defer m.Close(ctx)

	var wg sync.WaitGroup
	errs := make(chan error, agents)
	for a := 0; a < agents; a++ {
		id := fmt.Sprintf("agent-%d", a)
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := converse(ctx, m, id, turns); err != nil {
				errs <- fmt.Errorf("%s: %w", id, err)
			}
		}()
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		return err
	}

	ids := m.Sessions()
	sort.Strings(ids)
	for _, id := range ids {
		s, _ := m.Get(id)
		snaps, err := store.Snapshots(ctx, id)
		if err != nil {
			return err
		}
		st := s.Status()
		fmt.Fprintf(w, "%s: %d messages, %d compactions, %d snapshots, latest ask kept: %v\n",
			s.ID(), st.Messages, st.Compactions, len(snaps), latestAsk(s.Messages(), id, turns-1))
	}
	logMu.Lock()
	defer logMu.Unlock()
	fmt.Fprintf(w, "log lines: %d compactions started, %d done\n",
		strings.Count(logs.String(), `msg="compaction started"`), strings.Count(logs.String(), `msg="compaction done"`))
	return nil
}

// converse plays one agent's conversation: each turn a user message and a
// reply, compacting first whenever the session asks for it, as a host does
// before every model request.
func converse(ctx context.Context, m *session.Manager, id string, turns int) error {
	s, err := m.Get(id)
	if err != nil {
		return err
	}
	for t := 0; t < turns; t++ {
		s.Append(compact.Message{Role: compact.RoleUser, Content: fmt.Sprintf("[%s] step %d: check the logs for %s and report.", id, t, id)})
		if s.ShouldCompress() {
			if _, err := s.Compress(ctx); err != nil {
				return err
			}
		}
		// The model's reply (a real host sends s.Messages() to its model).
		s.Append(compact.Message{Role: compact.RoleAssistant,
			Content: fmt.Sprintf("[%s] step %d done: %s", id, t, strings.Repeat("the logs are clean. ", 12))})
	}
	return nil
}

// latestAsk reports whether the agent's last question is in its history,
// verbatim, and whether every message there belongs to that agent.
func latestAsk(msgs []compact.Message, id string, step int) bool {
	want := fmt.Sprintf("[%s] step %d: check the logs", id, step)
	found := false
	for _, m := range msgs {
		text := compact.Text(m)
		if strings.HasPrefix(text, want) {
			found = true
		}
		if strings.HasPrefix(text, "[agent-") && !strings.HasPrefix(text, "["+id+"]") {
			return false // another agent's message: never happens
		}
	}
	return found
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
