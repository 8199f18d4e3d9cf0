package compact

import (
	"context"
	"testing"

	"github.com/contextkit/compact/internal/msgtest"
	"github.com/contextkit/compact/tokens"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// ExtractiveOptions' Counter measures the summary against its target: a
// counter that finds four times the tokens keeps the summary about a
// quarter as long, and nil or the zero value mean the default estimate.
func TestExtractiveOptionsCounterMeasuresTheSummary(t *testing.T) {
	req := SummaryRequest{Turns: msgtest.FailingTests(40), TargetTokens: 400}
	summarize := func(opts *ExtractiveOptions) string {
		out, err := NewExtractiveSummarizer(opts).Summarize(context.Background(), req)
		require.NoError(t, err)
		return out
	}
	byDefault := summarize(nil)
	assert.Equal(t, byDefault, summarize(&ExtractiveOptions{}), "the zero value is the default")
	assert.Equal(t, byDefault, summarize(&ExtractiveOptions{Counter: tokens.Estimator{}}), "the default estimates four bytes a token")
	dense := summarize(&ExtractiveOptions{Counter: tokens.Estimator{BytesPerToken: 1}})
	assert.Less(t, len(dense), len(byDefault)*2/3, "a counter that finds more tokens gives a shorter summary")
	assert.LessOrEqual(t, tokens.Estimator{BytesPerToken: 1}.CountText(dense), req.TargetTokens*11/10)
}
