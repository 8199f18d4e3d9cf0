package compact_test

import (
	"testing"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/compacttest"
)

// TestExtractiveKeepsTheSummarizerContract runs the conformance suite every
// Summarizer must pass against the extractive one.
func TestExtractiveKeepsTheSummarizerContract(t *testing.T) {
	compacttest.RunSummarizer(t, compact.NewExtractiveSummarizer(nil))
}
