package msgtest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"testing"

	"github.com/contextkit/compact/internal/msg"
	"github.com/contextkit/compact/internal/sharedtest"
)

// Load reads a JSON array of OpenAI chat messages.
func Load(tb testing.TB, path string) []Message {
	tb.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	var msgs []Message
	if err := json.Unmarshal(data, &msgs); err != nil {
		tb.Fatalf("%s: %v", path, err)
	}
	return msgs
}

// Dir reads every transcript in dir, by file name.
func Dir(tb testing.TB, dir string) map[string][]Message {
	tb.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	out := make(map[string][]Message, len(files))
	for _, f := range files {
		out[filepath.Base(f)] = Load(tb, f)
	}
	return out
}

// OwnDir is the directory of the small transcripts this project wrote
// itself (testdata/transcripts at the repository's root), found from this
// file's own place so that a test in any package reads them.
func OwnDir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "testdata", "transcripts")
}

// Own returns the project's own transcripts by file name.
func Own(tb testing.TB) map[string][]Message {
	tb.Helper()
	return Dir(tb, OwnDir())
}

// Shared returns the real agent conversations beside the checkout
// (../shared/transcripts) by file name. On a bare clone there are none: a
// test that needs them skips (sharedtest.Missing), one that only reads
// more with them goes on with the project's own; COMPACT_REQUIRE_SHARED=1
// makes their absence a failure either way.
func Shared(tb testing.TB) map[string][]Message {
	tb.Helper()
	dir := sharedtest.Dir()
	if dir == "" {
		if sharedtest.Required() {
			sharedtest.Missing(tb)
		}
		return nil
	}
	return Dir(tb, dir)
}

// All returns the project's own transcripts and, when present, the shared
// real ones. Names are prefixed with their origin ("own/", "shared/").
func All(tb testing.TB) map[string][]Message {
	tb.Helper()
	out := map[string][]Message{}
	for n, m := range Own(tb) {
		out["own/"+n] = m
	}
	for n, m := range Shared(tb) {
		out["shared/"+n] = m
	}
	return out
}

// Names returns the keys of a transcript map in order, so subtests run in
// a stable order.
func Names(m map[string][]Message) []string {
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Chained returns one long valid history made of every transcript
// available (the project's own and, when present, the shared real ones)
// chained in name order and repeated until it holds at least minBytes of
// text, with its size in bytes. Only the first system prompt is kept; a
// transcript that ends on calls still running has them repaired away
// before the next one is joined on, so the chain validates.
func Chained(tb testing.TB, minBytes int) ([]Message, int) {
	tb.Helper()
	all := All(tb)
	names := Names(all)
	var msgs []Message
	size := 0
	for round := 0; size < minBytes; round++ {
		for _, name := range names {
			part := all[name]
			if len(msgs) > 0 && len(part) > 0 && msg.IsSystem(part[0]) {
				part = part[1:]
			}
			msgs = msg.Join(msgs, part)
			for _, m := range part {
				size += len(msg.Text(m)) + len(msg.ToolCallText(m))
			}
		}
		msgs, _ = msg.RepairToolPairs(msgs)
		if round > 1000 {
			tb.Fatal("no transcripts to chain")
		}
	}
	msgs, _ = msg.RepairToolPairs(msgs)
	return msgs, size
}

// SharedChain joins the shared transcripts, in name order, into one long
// history (Join guards the seams; pairing is repaired where a transcript
// ends on calls that were never answered). With toolsOnly, only the
// transcripts that call tools are chained. nil when they are absent.
func SharedChain(tb testing.TB, toolsOnly bool) []Message {
	tb.Helper()
	all := Shared(tb)
	var parts [][]Message
	for _, name := range Names(all) {
		if !toolsOnly || callsTools(all[name]) {
			parts = append(parts, all[name])
		}
	}
	if len(parts) == 0 {
		return nil
	}
	chained, _ := msg.RepairToolPairs(msg.Join(parts...))
	return chained
}

func callsTools(msgs []Message) bool {
	for _, m := range msgs {
		if len(m.ToolCalls) > 0 {
			return true
		}
	}
	return false
}

// Transcripts reads the OpenAI-style transcripts in files, by file name.
// A file that does not read or decode fails tb.
func Transcripts(tb testing.TB, files []string) map[string][]Message {
	tb.Helper()
	out := make(map[string][]Message, len(files))
	for _, f := range files {
		out[filepath.Base(f)] = Load(tb, f)
	}
	return out
}

// AllTranscripts reads the transcripts of ownDir (the root module's
// testdata/transcripts, seen from the caller) under "own/" and the shared
// ones under "shared/". Without the shared ones it skips tb, or fails it
// when sharedtest.Required.
func AllTranscripts(tb testing.TB, ownDir string) map[string][]Message {
	tb.Helper()
	out := map[string][]Message{}
	for n, m := range Dir(tb, ownDir) {
		out["own/"+n] = m
	}
	for n, m := range Transcripts(tb, sharedtest.Files(tb)) {
		out["shared/"+n] = m
	}
	return out
}

// HalfAnswered reports whether the last group of tool calls in msgs has
// some of its results and not all of them: compact lets a host compact
// while the rest run, APIs that take a group only whole (Anthropic,
// Gemini) do not.
func HalfAnswered(msgs []Message) bool {
	last := -1
	for i, m := range msgs {
		if m.Role == msg.RoleAssistant && len(m.ToolCalls) > 0 {
			last = i
		}
	}
	if last < 0 {
		return false
	}
	answered := 0
	for _, m := range msgs[last+1:] {
		if m.Role != msg.RoleTool {
			return false
		}
		answered++
	}
	return answered > 0 && answered < len(msgs[last].ToolCalls)
}
