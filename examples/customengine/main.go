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
	"encoding/json"
	"fmt"
	"io"
	"log"
	"os"
	"sync"
	"time"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/compacttest"
	openai "github.com/sashabaranov/go-openai"
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

// Tools offers the model one tool, compaction_metrics, that reports the
// counters as JSON: a host that finds an engine implementing
// compact.ToolProvider adds the definitions to its request and routes the
// model's calls to Handle.
func (m *metered) Tools() []compact.Tool {
	return []compact.Tool{{
		Definition: openai.Tool{Type: openai.ToolTypeFunction, Function: &openai.FunctionDefinition{
			Name:        "compaction_metrics",
			Description: "How often this conversation was compacted and how many tokens that saved.",
			Parameters:  json.RawMessage(`{"type":"object","properties":{}}`),
		}},
		Handle: func(ctx context.Context, arguments string) (json.RawMessage, error) {
			n, failed, saved := m.snapshot()
			return json.Marshal(map[string]int{"compactions": n, "failures": failed, "tokens_saved": saved})
		},
	}}
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
	_, _ = fmt.Fprintln(w, "metered(compressor) keeps every ContextEngine contract")

	e := newMetered(compact.New(compact.WithContextWindow(4000)))
	for _, h := range compacttest.Histories() {
		if _, err := e.Compress(ctx, h.Messages, compact.Force()); err != nil {
			_, _ = fmt.Fprintf(w, "%s: %v\n", h.Name, err)
		}
	}
	n, failed, saved := e.snapshot()
	_, _ = fmt.Fprintf(w, "%s: %d compactions, %d failed, %d tokens saved\n", e.Name(), n, failed, saved)

	// A host detects the optional tools with a type assertion, as it would
	// io.WriterTo, and answers the model's call through the handler.
	var engine compact.ContextEngine = e
	if tp, ok := engine.(compact.ToolProvider); ok {
		for _, tool := range tp.Tools() {
			out, err := tool.Handle(ctx, "{}")
			if err != nil {
				return err
			}
			_, _ = fmt.Fprintf(w, "tool %s -> %s\n", tool.Definition.Function.Name, out)
		}
	}
	return nil
}
