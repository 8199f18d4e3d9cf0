package compact_test

import (
	"testing"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/compacttest"
	"github.com/contextkit/compact/tokens"
)

// The Compressor keeps every contract with each summarizer this package
// ships.
func TestCompressorConformance(t *testing.T) {
	cheap := compact.WithTokenCounter(tokens.Estimator{})
	t.Run("extractive", func(t *testing.T) {
		compacttest.Run(t, func() compact.ContextEngine {
			return compact.New(compact.WithContextWindow(4000), cheap)
		})
	})
	t.Run("exact token counts", func(t *testing.T) {
		compacttest.Run(t, func() compact.ContextEngine { return compact.New(compact.WithContextWindow(4000)) })
	})
}

// Each summarizer this package ships keeps the Summarizer contract.
func TestSummarizerConformance(t *testing.T) {
	t.Run("extractive", func(t *testing.T) { compacttest.RunSummarizer(t, compact.NewExtractiveSummarizer(nil)) })
}
