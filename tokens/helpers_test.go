package tokens

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/contextkit/compact/internal/sharedtest"
)

// loadTranscripts returns the shared real transcripts by file name,
// skipping tb when they are absent (unless COMPACT_REQUIRE_SHARED=1 makes
// their absence a failure).
func loadTranscripts(tb testing.TB) map[string][]Message {
	tb.Helper()
	out := map[string][]Message{}
	for _, f := range sharedtest.Files(tb) {
		data, err := os.ReadFile(f)
		if err != nil {
			tb.Fatal(err)
		}
		var msgs []Message
		if err := json.Unmarshal(data, &msgs); err != nil {
			tb.Fatalf("%s: %v", f, err)
		}
		out[filepath.Base(f)] = msgs
	}
	return out
}

// sortedNames returns the keys of a transcript map in order.
func sortedNames(m map[string][]Message) []string {
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// cloneMessage returns a deep copy of m: no slice or pointer is shared.
func cloneMessage(m Message) Message {
	out := m
	out.MultiContent = nil
	for _, p := range m.MultiContent {
		if p.ImageURL != nil {
			u := *p.ImageURL
			p.ImageURL = &u
		}
		out.MultiContent = append(out.MultiContent, p)
	}
	if m.FunctionCall != nil {
		fc := *m.FunctionCall
		out.FunctionCall = &fc
	}
	out.ToolCalls = nil
	for _, c := range m.ToolCalls {
		if c.Index != nil {
			i := *c.Index
			c.Index = &i
		}
		out.ToolCalls = append(out.ToolCalls, c)
	}
	return out
}
