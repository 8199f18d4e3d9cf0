package extractive

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/contextkit/compact/internal/msg"
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
			if !errors.Is(err, ErrNothing) {
				t.Fatalf("no input: err = %v, want ErrNothing", err)
			}
			return
		}
		if err != nil {
			t.Fatalf("Summarize: %v", err)
		}
		if !equalHistory(before, turns) {
			t.Fatal("the turns were modified")
		}
		if strings.TrimSpace(out) == "" {
			t.Fatal("empty summary for non-empty input")
		}
		if !utf8.ValidString(out) {
			t.Fatalf("invalid UTF-8: %q", out)
		}
		if again, _ := s.Summarize(context.Background(), req); again != out {
			t.Fatalf("not deterministic:\n%s\n---\n%s", out, again)
		}
		limit := target
		if limit <= 0 {
			limit = defaultTarget
		}
		limit = max(limit, minTarget)
		if n := (len(out) + bytesPerToken - 1) / bytesPerToken; n > limit {
			t.Fatalf("%d tokens over the target %d:\n%s", n, limit, out)
		}
	})
}
