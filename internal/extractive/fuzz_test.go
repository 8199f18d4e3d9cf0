package extractive

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/contextkit/compact/internal/msg"
	"github.com/contextkit/compact/internal/msgtest"
	"github.com/stretchr/testify/require"
)

// FuzzExtractive asserts the Summarizer contract on random histories: no
// panic, the same bytes twice, the input untouched, a non-empty valid UTF-8
// summary for non-empty input (ErrNothing only for none), and a
// size within the target (raised to minTarget). text, when set,
// is appended as a user message, a shell command, its output and the
// assistant's prose, so the line and path rules see arbitrary input.
func FuzzExtractive(f *testing.F) {
	f.Add([]byte{1, 4, 5, 3, 2, 4, 12}, "", "", 0, "")
	f.Add([]byte{0, 1, 7, 8, 9, 10, 11}, "## Current task\n> old\n\n## Errors seen\n- E", "old", 10, "")
	f.Add([]byte{}, "a foreign summary", "", 600, "")
	f.Add([]byte{}, "", "", 0, "")
	f.Add([]byte(strings.Repeat("\x04\x05\x03\x01", 60)), "Focus: x\n## Pending\n- a(b)", "tool", 512, "")
	f.Add([]byte{1}, "", "", 0, "cat src/a.go > ./b.py && sed -i 's/x/y/' c.rs\nTraceback (most recent call last):\n  File \"x.py\", line 1\nValueError: bad\nERROR:\n\nexit code 3")
	f.Add([]byte{}, "", "", 0, "I'll fix it because the root cause is x.go:12:3: error: y. -----BEGIN RSA PRIVATE KEY-----\nabc")
	s := New(Limits{}, nil)
	f.Fuzz(func(t *testing.T, data []byte, prev, focus string, target int, text string) {
		turns := randomHistory(data)
		if text != "" {
			args, _ := json.Marshal(map[string]string{"command": text, "path": text})
			turns = append(turns, user(text), tcall("fz", "bash", string(args)), result("fz", text), asst(text))
		}
		before := msg.Clone(turns)
		req := Request{Turns: turns, PreviousSummary: prev, Focus: focus, TargetTokens: target}
		out, err := s.Summarize(context.Background(), req)
		empty := len(turns) == 0 && strings.TrimSpace(msg.StripSummaryPrefix(prev)) == ""
		if empty {
			require.ErrorIs(t, err, ErrNothing, "no input")
			return
		}
		require.NoError(t, err, "Summarize")
		require.True(t, equalHistory(before, turns), "the turns were modified")
		require.NotEmpty(t, strings.TrimSpace(out), "empty summary for non-empty input")
		require.True(t, utf8.ValidString(out), "invalid UTF-8: %s", msgtest.Excerpt(out))
		again, _ := s.Summarize(context.Background(), req)
		require.True(t, again == out, "not deterministic: %s", msgtest.Difference(out, again))
		limit := target
		if limit <= 0 {
			limit = defaultTarget
		}
		limit = max(limit, minTarget)
		n := (len(out) + bytesPerToken - 1) / bytesPerToken
		require.LessOrEqual(t, n, limit, "tokens over the target in %s", msgtest.Excerpt(out))
	})
}
