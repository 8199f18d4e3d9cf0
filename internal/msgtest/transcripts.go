package msgtest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/internal/sharedtest"
)

// Transcripts reads the OpenAI-style transcripts in files, by file name.
// A file that does not read or decode fails tb.
func Transcripts(tb testing.TB, files []string) map[string][]compact.Message {
	tb.Helper()
	out := make(map[string][]compact.Message, len(files))
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			tb.Fatal(err)
		}
		var msgs []compact.Message
		if err := json.Unmarshal(data, &msgs); err != nil {
			tb.Fatalf("%s: %v", f, err)
		}
		out[filepath.Base(f)] = msgs
	}
	return out
}

// AllTranscripts reads the transcripts of ownDir (the root module's
// testdata/transcripts, seen from the caller) under "own/" and the shared
// ones under "shared/". Without the shared ones it skips tb, or fails it
// when sharedtest.Required.
func AllTranscripts(tb testing.TB, ownDir string) map[string][]compact.Message {
	tb.Helper()
	own, _ := filepath.Glob(filepath.Join(ownDir, "*.json"))
	out := map[string][]compact.Message{}
	for n, m := range Transcripts(tb, own) {
		out["own/"+n] = m
	}
	for n, m := range Transcripts(tb, sharedtest.Files(tb)) {
		out["shared/"+n] = m
	}
	return out
}

// SortedNames returns the keys of m in order.
func SortedNames(m map[string][]compact.Message) []string {
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// HalfAnswered reports whether the last group of tool calls in msgs has
// some of its results and not all of them: compact lets a host compact
// while the rest run, APIs that take a group only whole (Anthropic,
// Gemini) do not.
func HalfAnswered(msgs []compact.Message) bool {
	last := -1
	for i, m := range msgs {
		if m.Role == compact.RoleAssistant && len(m.ToolCalls) > 0 {
			last = i
		}
	}
	if last < 0 {
		return false
	}
	answered := 0
	for _, m := range msgs[last+1:] {
		if m.Role != compact.RoleTool {
			return false
		}
		answered++
	}
	return answered > 0 && answered < len(msgs[last].ToolCalls)
}
