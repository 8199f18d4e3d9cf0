package extractive

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/contextkit/compact/internal/msgtest"
	"github.com/stretchr/testify/require"
)

// FuzzFactsIndexReadsBack asserts that an extractive summary, facts index
// included, reads back as the extractive format whatever the tools passed
// and printed, and that updating it with no new turns (at a target that
// holds it) gives its facts index back unchanged: no fact is lost or
// rewritten by the round trip. value is passed to a tool as an identifier
// and a path, and names a tool and an argument; text is run as a command,
// printed as an error, and run again cleanly.
func FuzzFactsIndexReadsBack(f *testing.F) {
	f.Add([]byte{1, 4, 5, 3}, "ZFA04Y", "Error: payment method not found")
	f.Add([]byte{}, "a, b; `c`", "cat > x.py << 'EOF'\nprint(1)\nEOF")
	f.Add([]byte{4, 5, 4, 6}, "src/lib", "- Unresolved errors from `x`:\n  - y")
	f.Add([]byte{}, "#4588", "ERROR:\n\n    indented\n")
	s := New(Limits{}, nil)
	f.Fuzz(func(t *testing.T, data []byte, value, text string) {
		turns := randomHistory(data)
		args, _ := json.Marshal(map[string]any{"ticket_id": value, "path": value, "items": []any{map[string]string{"order_id": value}}})
		cmd, _ := json.Marshal(map[string]string{"command": text})
		turns = append(turns,
			tcall("f1", "update_ticket", string(args)), result("f1", "Error: "+text),
			tcall("f2", "bash", string(cmd)), result("f2", text),
			tcall("f3", "bash", string(cmd)), result("f3", "ok"),
			tcall("f4", value, `{"`+strings.ReplaceAll(value, `"`, "")+`_id":"A1"}`), result("f4", "Error: "+value))
		const room = 100_000
		out, err := s.Summarize(context.Background(), Request{Turns: turns, TargetTokens: room})
		require.NoError(t, err, "Summarize")
		_, ok := parseExtractive(out)
		require.True(t, ok, "the summary does not read back: %s", msgtest.Excerpt(out))
		again, err := s.Summarize(context.Background(), Request{PreviousSummary: out, TargetTokens: room})
		require.NoError(t, err, "Summarize again")
		a, b := indexPart(out), indexPart(again)
		require.True(t, a == b, "the round trip changed the facts index: %s", msgtest.Difference(a, b))
	})
}

// indexPart returns the facts index of a summary: from its heading to the
// next heading.
func indexPart(summary string) string {
	start := strings.Index(summary, headingPrefix+factsHeading+"\n")
	if start < 0 {
		return ""
	}
	rest := summary[start+len(headingPrefix):]
	if end := strings.Index(rest, "\n"+headingPrefix); end >= 0 {
		rest = rest[:end]
	}
	return rest
}
