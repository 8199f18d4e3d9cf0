// Command customengine builds a ContextEngine of its own, by wrapping the
// Compressor, and checks it against every contract with compacttest:
//
//	go run ./examples/customengine
//
// The engine meters compactions (how many, tokens saved, time spent) for
// a host's metrics. Wrapping is the usual way to add policy around the
// Compressor; compacttest.CheckEngine tells the wrapper's author whether
// the wrapper broke a contract the Compressor keeps.
package main

import (
	"context"
	"fmt"
	"io"
	"log"
	"os"
	"sync"
	"time"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/compacttest"
)

func main() {
	if err := run(context.Background(), os.Stdout); err != nil {
		log.Fatal(err)
	}
}

// metered is a ContextEngine that counts what the engine it wraps does.
// Every method but Compress is the wrapped engine's.
type metered struct {
	compact.ContextEngine

	mu          sync.Mutex
	compactions int
	failures    int
	tokensSaved int
	spent       time.Duration
}

func newMetered(e compact.ContextEngine) *metered { return &metered{ContextEngine: e} }

// Name says what is wrapped.
func (m *metered) Name() string { return "metered(" + m.ContextEngine.Name() + ")" }

// Compress compacts with the wrapped engine and records the outcome. It
// returns the result and error unchanged: a wrapper that edited the
// messages would have to keep every contract itself.
func (m *metered) Compress(ctx context.Context, msgs []compact.Message, opts ...compact.CompressOption) (*compact.Result, error) {
	start := time.Now()
	res, err := m.ContextEngine.Compress(ctx, msgs, opts...)
	m.mu.Lock()
	defer m.mu.Unlock()
	m.spent += time.Since(start)
	if err != nil {
		m.failures++
		return nil, err
	}
	m.compactions++
	m.tokensSaved += res.TokensBefore - res.TokensAfter
	return res, nil
}

// snapshot returns the counters.
func (m *metered) snapshot() (compactions, failures, saved int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.compactions, m.failures, m.tokensSaved
}

// newEngine is the engine under test: a small window (compacttest's
// histories are sized for 4,000 tokens) and the deterministic default
// summarizer.
func newEngine() compact.ContextEngine {
	return newMetered(compact.New(compact.WithContextWindow(4000)))
}

func run(ctx context.Context, w io.Writer) error {
	if err := compacttest.CheckEngine(newEngine); err != nil {
		return fmt.Errorf("the metered engine breaks a contract: %w", err)
	}
	fmt.Fprintln(w, "metered(compressor) keeps every ContextEngine contract")

	e := newMetered(compact.New(compact.WithContextWindow(4000)))
	for _, h := range compacttest.Histories() {
		if _, err := e.Compress(ctx, h.Messages, compact.Force()); err != nil {
			fmt.Fprintf(w, "%s: %v\n", h.Name, err)
		}
	}
	n, failed, saved := e.snapshot()
	fmt.Fprintf(w, "%s: %d compactions, %d failed, %d tokens saved\n", e.Name(), n, failed, saved)
	return nil
}
