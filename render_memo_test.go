package compact

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/contextkit/compact/internal/msg"
)

// The prompt a Compressor renders to estimate a model summarizer's bill,
// its blocks remembered, is SummaryPrompt's byte for byte: cold, warm, and
// for a grown history whose first part the memo holds, with a memo so
// small it keeps starting new generations.
func TestRememberedPromptIsSummaryPrompt(t *testing.T) {
	for name, h := range allTranscripts(t) {
		for _, genBytes := range []int{blockMemoBytes, 512} {
			bm := &blockMemo{msg.NewTextMemo(genBytes)}
			for _, turns := range [][]Message{h[:len(h)/2], h, h[len(h)/3:], h} {
				req := SummaryRequest{Turns: turns, PreviousSummary: "earlier", Focus: "parser", TargetTokens: 500}
				wantI, wantM := SummaryPrompt(req)
				gotI, gotM := bm.prompt(req)
				if !assert.Equal(t, wantI, gotI, name) || !assert.Equal(t, wantM, gotM, "%s, %d turns, generations of %d bytes", name, len(turns), genBytes) {
					return
				}
			}
		}
	}
}
