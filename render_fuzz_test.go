package compact

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/contextkit/compact/internal/msgtest"
	"github.com/contextkit/compact/internal/secrettest"
	openai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/require"
)

// FuzzRenderTurns: RenderTurns never panics, never exceeds its cap, returns
// valid UTF-8 for valid input, is deterministic and leaves its input alone,
// whatever the history and options.
func FuzzRenderTurns(f *testing.F) {
	f.Add([]byte{0, 1, 4, 12, 3, 1}, "", uint16(0), uint16(0), uint16(0))
	f.Add([]byte{1, 4, 5, 5, 1, 68, 5}, "héllo 🙂 wörld", uint16(300), uint16(50), uint16(40))
	f.Add([]byte{7, 8, 7, 1, 132, 12, 4}, `{"cmd":"`+strings.Repeat("x", 500)+`"}`, uint16(1), uint16(1), uint16(1))
	f.Add([]byte{1, 2, 3, 4, 12, 1, 2, 3}, "password=hunter2 "+secrettest.FakeGitHub, uint16(600), uint16(100), uint16(100))
	f.Fuzz(func(t *testing.T, data []byte, text string, maxChars, maxMsg, maxArgs uint16) {
		msgs := randomHistory(data)
		// Put the fuzzed text where rendering reads: content, arguments,
		// ids, names.
		for i := range msgs {
			switch i % 4 {
			case 0:
				if msgs[i].MultiContent == nil {
					msgs[i].Content += text
				}
			case 1:
				if len(msgs[i].ToolCalls) > 0 {
					msgs[i].ToolCalls[0].Function.Arguments = text
				}
			case 2:
				msgs[i].Name = text
			}
		}
		if len(data) > 0 && data[0]%5 == 0 {
			msgs = append(msgs, Message{Role: RoleAssistant, FunctionCall: &openai.FunctionCall{Name: text, Arguments: text}})
		}
		opts := RenderOptions{
			MaxChars:         int(maxChars) - 1, // -1: no cap
			MaxMessageChars:  int(maxMsg) - 1,
			MaxArgumentChars: int(maxArgs) - 1,
			HeadShare:        float64(maxMsg%11) / 10,
			Reasoning:        maxArgs%2 == 0,
		}
		before := Clone(msgs)
		out := RenderTurns(msgs, opts)
		require.True(t, equalHistory(before, msgs), "RenderTurns modified its input")
		again := RenderTurns(msgs, opts)
		require.True(t, again == out, "RenderTurns is not deterministic: %s", msgtest.Difference(out, again))
		if limit := opts.withDefaults().MaxChars; limit > 0 {
			require.LessOrEqual(t, utf8.RuneCountInString(out), limit, "characters over the cap")
		}
		require.False(t, utf8.ValidString(text) && !utf8.ValidString(out), "invalid UTF-8 out of valid input: %s", msgtest.Excerpt(out))
	})
}

// BenchmarkRenderTurns renders a ~200k-token history (about 800 KB of text,
// the shared transcripts chained and repeated) with the default options.
func BenchmarkRenderTurns(b *testing.B) {
	msgs, size := chainedHistory(b, 800_000)
	b.SetBytes(int64(size))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		RenderTurns(msgs, RenderOptions{})
	}
}
