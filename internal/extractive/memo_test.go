package extractive

import (
	"context"
	"testing"

	"github.com/contextkit/compact/internal/msg"
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
		assert.NotNil(t, memo.scans.resume(d, append(h, user("next"))), "%s: a grown history resumes", name)
	}
}

// A scan never resumes over a turn the host changed since: in place in
// the slice the last scan read (a call's arguments, a result's text), or
// replaced at its index; the summary and the facts measure are those of a
// Summarizer that remembers nothing.
func TestAScanNeverResumesOverAChangedTurn(t *testing.T) {
	ctx := context.Background()
	differ := 0 // changes that change the summary: a stale one would show
	for name, h := range allTranscripts(t) {
		at := -1
		for i, m := range h {
			if len(m.ToolCalls) > 0 && i+1 < len(h) {
				at = i
				break
			}
		}
		if at < 0 {
			continue
		}
		for _, change := range []func(h []Message){
			func(h []Message) { h[at].ToolCalls[0].Function.Arguments = `{"path":"changed/in_place.go"}` },
			func(h []Message) { h[at+1].Content = "Traceback: error: replaced in place" },
			func(h []Message) { h[at] = user("replaced at its index: see other/file.py") },
		} {
			turns := make([]Message, len(h))
			for i, m := range h {
				turns[i] = msg.CloneMessage(m)
			}
			memo, facts := New(Limits{}, nil), NewScanMemo()
			req := Request{Turns: turns, TargetTokens: 800}
			before, err := memo.Summarize(ctx, req)
			require.NoError(t, err)
			FactsRoomMemo(ctx, req, 4000, facts)
			change(turns)
			want, err := (&Summarizer{}).Summarize(ctx, req)
			require.NoError(t, err)
			got, err := memo.Summarize(ctx, req)
			require.NoError(t, err)
			if !assert.Equal(t, want, got, "%s: the summary after a change", name) {
				return
			}
			if want != before {
				differ++
			}
			assert.Equal(t, FactsRoom(ctx, req, 4000), FactsRoomMemo(ctx, req, 4000, facts), "%s: the facts measure after a change", name)
		}
	}
	assert.Positive(t, differ, "no change changed a summary")
}
