package extractive

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/contextkit/compact/internal/msg"
	"github.com/contextkit/compact/internal/sharedtest"
)

// aiderRun is an assistant turn as aider writes one after /run: what the
// command printed (a list of dicts, an inline image, lists of numbers),
// then the assistant's own words and an edit.
func aiderRun() string {
	var rows []string
	for i := range 12 {
		rows = append(rows, fmt.Sprintf("{'dirname': '2024-05-%02d--run', 'test_cases': 133, 'model': 'model-%d', 'released': datetime.date(2024, 2, %d), 'pass_rate_1': 53.4}", i+1, i, i+1))
	}
	return strings.Join([]string{
		"[" + strings.Join(rows, ", ") + "]",
		"\x1b]1337;File=inline=1;size=92534:" + strings.Repeat("iVBORw0KGgoAAAANSUhEUgAAB9AAAAPo", 12) + "\a",
		"",
		"Debug: Processed data:",
		"Pass rates: [" + strings.Repeat("68.4, 54.9, 50.4, 57.9, ", 10) + "72.0]",
		"",
		"Thank you for the debug output. The data is processed correctly, but the y axis stops at 30, so every point is drawn off the chart; I'll raise the limit to 100.",
		"",
		"benchmark/over_time.py",
		"```python",
		"<<<<<<< SEARCH",
		"    ax.set_ylim(0, 30)",
		"=======",
		"    ax.set_ylim(0, 100)",
		">>>>>>> REPLACE",
		"```",
	}, "\n")
}

// The current state quotes what the assistant said, not the data a
// command printed into its turn: each run of data lines becomes one mark,
// prose and code stay.
func TestTheCurrentStateQuotesProseNotADataDump(t *testing.T) {
	turns := []Message{user("/run python benchmark/over_time.py"), asst(aiderRun())}
	_, p := summarize(t, Request{Turns: turns})
	state := p.blocks[secState]
	assert.True(t, strings.HasPrefix(state, "[…]\n\nDebug: Processed data:\n[…]\n\nThank you for the debug output."), "the state starts with prose:\n%s", state)
	assert.Contains(t, state, "ax.set_ylim(0, 100)", "code is kept")
	for _, dump := range []string{"'dirname'", "iVBORw0KGgo", "68.4, 54.9", "\x1b"} {
		assert.NotContains(t, state, dump)
	}
}

// A turn that is all data, or all prose, is quoted as it is.
func TestPreferProseKeepsATurnWithNothingElse(t *testing.T) {
	dump := strings.SplitN(aiderRun(), "\n", 2)[0]
	require.True(t, isDataLine(dump))
	assert.Equal(t, dump, preferProse(dump), "nothing but data: kept")
	prose := strings.Repeat("The chart now shows every model, coloured by family, with lines joining each family's releases. ", 4)
	require.False(t, isDataLine(prose))
	assert.Equal(t, prose, preferProse(prose))
}

// On the shared transcripts: wherever a summary's current state comes
// from a turn that holds a data line and prose, it quotes no data line.
// aider's /run output (a list of dicts and an inline image in front of
// the assistant's answer) is the case that was met.
func TestTheSharedTranscriptsCurrentStatesQuoteProse(t *testing.T) {
	all := sharedTranscripts(t)
	if len(all) == 0 {
		sharedtest.Missing(t)
	}
	cases := 0
	for _, name := range sortedNames(all) {
		msgs := all[name]
		for i, m := range msgs {
			text := msg.Text(m)
			if m.Role != msg.RoleAssistant || !hasDataLine(text) || preferProse(text) == text {
				continue
			}
			cases++
			var turns []Message
			for _, t := range msgs[:i+1] {
				if t.Role != msg.RoleSystem {
					turns = append(turns, t)
				}
			}
			_, p := summarize(t, Request{Turns: turns})
			for line := range strings.SplitSeq(p.blocks[secState], "\n") {
				assert.False(t, isDataLine(line), "%s, cut after message %d: the current state quotes data: %.120q", name, i, line)
			}
			if strings.HasPrefix(name, "aider__session_2024-08-14_062009") && i == 3 {
				assert.Contains(t, p.blocks[secState], "Thank you for providing the debug output.")
				assert.NotContains(t, p.blocks[secState], "{'dirname'")
			}
		}
	}
	assert.Positive(t, cases, "the shared transcripts hold the case")
}

// FuzzPreferProse: the result is s, or s's lines that are not data (in
// order, blank runs folded) with marks where data was; never empty when s
// holds prose, and holding no data line.
func FuzzPreferProse(f *testing.F) {
	f.Add(aiderRun())
	f.Add(strings.Repeat("x", 300) + "\nhello")
	f.Add("[" + strings.Repeat("1, ", 80) + "]\n\n\nok\n")
	f.Fuzz(func(t *testing.T, s string) {
		out := preferProse(s)
		if out == s {
			return
		}
		var kept []string
		for line := range strings.SplitSeq(s, "\n") {
			if !isDataLine(line) && strings.TrimSpace(line) != "" && line != strings.TrimSpace(shortenMark) {
				kept = append(kept, line)
			}
		}
		require.NotEmpty(t, kept, "changed only when prose remains")
		var got []string
		for line := range strings.SplitSeq(out, "\n") {
			require.False(t, isDataLine(line), "a data line stayed: %.80q", line)
			if strings.TrimSpace(line) != "" && line != strings.TrimSpace(shortenMark) {
				got = append(got, line)
			}
		}
		require.Equal(t, kept, got, "every other line, in order")
	})
}
