package extractive

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A Summarizer that remembers the redacted texts it read writes what one
// that remembers nothing writes: cold, warm, and for a grown history whose
// first part it read before.
func TestRememberedViewsChangeNothing(t *testing.T) {
	ctx := context.Background()
	for name, h := range allTranscripts(t) {
		memo, plain := New(Limits{}, nil), &Summarizer{}
		require.NotNil(t, memo.views)
		for _, turns := range [][]Message{h[:len(h)/2], h, h} {
			req := Request{Turns: turns, Focus: "test", TargetTokens: 800}
			want, err := plain.Summarize(ctx, req)
			require.NoError(t, err)
			got, err := memo.Summarize(ctx, req)
			require.NoError(t, err)
			if !assert.Equal(t, want, got, "%s, %d turns", name, len(turns)) {
				return
			}
		}
	}
}
