package extractive

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A Summarizer that remembers the redacted texts it read and where its
// last scan stopped writes what one that remembers nothing writes, and a
// remembered facts measure is FactsRoom's: cold, warm, for a grown history
// whose first part it read before, for one that does not begin with it,
// and under another focus.
func TestRememberedScansChangeNothing(t *testing.T) {
	ctx := context.Background()
	for name, h := range allTranscripts(t) {
		memo, plain := New(Limits{}, nil), &Summarizer{}
		require.NotNil(t, memo.views)
		require.NotNil(t, memo.scans)
		facts := NewScanMemo()
		steps := []struct {
			turns []Message
			focus string
		}{
			{h[:len(h)/2], "test"}, {h, "test"}, {h, "test"}, {h[:len(h)/3], "test"},
			{h[len(h)/4:], "test"}, {h, "error"}, {h, ""},
		}
		for _, st := range steps {
			req := Request{Turns: st.turns, Focus: st.focus, TargetTokens: 800}
			want, err := plain.Summarize(ctx, req)
			require.NoError(t, err)
			got, err := memo.Summarize(ctx, req)
			require.NoError(t, err)
			if !assert.Equal(t, want, got, "%s, %d turns, focus %q", name, len(st.turns), st.focus) {
				return
			}
			if !assert.Equal(t, FactsRoom(ctx, req, 4000), FactsRoomMemo(ctx, req, 4000, facts), "%s, %d turns: the facts measure", name, len(st.turns)) {
				return
			}
		}
		d := &digest{}
		assert.NotNil(t, memo.scans.resume(d, append(h, user("next")), memo.scans.start(d)), "%s: a grown history resumes", name)
	}
}
