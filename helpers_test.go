package compact

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/contextkit/compact/internal/sharedtest"
	"github.com/contextkit/compact/tokens"
	openai "github.com/sashabaranov/go-openai"
)

// ownTranscriptDir holds the small transcripts this project wrote itself.
const ownTranscriptDir = "testdata/transcripts"

// loadTranscript reads a JSON array of OpenAI chat messages.
func loadTranscript(t testing.TB, path string) []Message {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var msgs []Message
	if err := json.Unmarshal(data, &msgs); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return msgs
}

// transcripts returns every transcript in dir by file name.
func transcripts(t testing.TB, dir string) map[string][]Message {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	out := make(map[string][]Message, len(files))
	for _, f := range files {
		out[filepath.Base(f)] = loadTranscript(t, f)
	}
	return out
}

// sharedTranscripts returns the real agent conversations beside the
// checkout (../shared/transcripts) by file name. On a bare clone there are
// none: a test that needs them skips (sharedtest.Missing), one that only
// reads more with them goes on with our own; COMPACT_REQUIRE_SHARED=1 makes
// their absence a failure either way.
func sharedTranscripts(t testing.TB) map[string][]Message {
	t.Helper()
	dir := sharedtest.Dir()
	if dir == "" {
		if sharedtest.Required() {
			sharedtest.Missing(t)
		}
		return nil
	}
	return transcripts(t, dir)
}

// allTranscripts returns our own transcripts and, when present, the shared
// real ones. Names are prefixed with their origin.
func allTranscripts(t testing.TB) map[string][]Message {
	t.Helper()
	out := map[string][]Message{}
	for n, m := range transcripts(t, ownTranscriptDir) {
		out["own/"+n] = m
	}
	for n, m := range sharedTranscripts(t) {
		out["shared/"+n] = m
	}
	return out
}

// sortedNames returns the keys of a transcript map in order, so subtests run
// in a stable order.
func sortedNames(m map[string][]Message) []string {
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Message constructors that keep table tests short.

func sys(text string) Message  { return Message{Role: RoleSystem, Content: text} }
func user(text string) Message { return Message{Role: RoleUser, Content: text} }
func asst(text string) Message { return Message{Role: RoleAssistant, Content: text} }

// call is an assistant turn making tool calls, each given as id and name
// pairs: call("", "c1", "bash", "c2", "read").
func call(text string, idName ...string) Message {
	m := Message{Role: RoleAssistant, Content: text}
	for i := 0; i+1 < len(idName); i += 2 {
		m.ToolCalls = append(m.ToolCalls, openai.ToolCall{
			ID: idName[i], Type: openai.ToolTypeFunction,
			Function: openai.FunctionCall{Name: idName[i+1], Arguments: `{"arg":"` + idName[i] + `"}`},
		})
	}
	return m
}

func result(id, text string) Message {
	return Message{Role: RoleTool, ToolCallID: id, Content: text}
}

func partsMsg(role string, texts ...string) Message {
	m := Message{Role: role}
	for _, t := range texts {
		if strings.HasPrefix(t, "img:") {
			m.MultiContent = append(m.MultiContent, openai.ChatMessagePart{
				Type: openai.ChatMessagePartTypeImageURL, ImageURL: &openai.ChatMessageImageURL{URL: t[4:]}})
			continue
		}
		m.MultiContent = append(m.MultiContent, openai.ChatMessagePart{Type: openai.ChatMessagePartTypeText, Text: t})
	}
	return m
}

// roles is a compact picture of a history's roles, such as "s u a t a".
func roles(msgs []Message) string {
	var b strings.Builder
	for i, m := range msgs {
		if i > 0 {
			b.WriteByte(' ')
		}
		if m.Role == "" {
			b.WriteByte('?')
			continue
		}
		b.WriteByte(m.Role[0])
	}
	return b.String()
}

// maxFuzzMessages bounds the fuzz input used to build a history: the
// property checks compare every message with every other, and a history of
// a few hundred messages exercises every shape already.
const maxFuzzMessages = 300

// randomHistory builds a history from fuzz input: each byte picks the next
// message's shape. Histories come out valid and invalid alike; the shapes
// cover everything the guards must handle (reused ids, parts, images, empty
// turns, pending calls, unknown roles).
func randomHistory(data []byte) []Message {
	var msgs []Message
	id := 0
	nextID := func(b byte) string {
		if b&0x40 != 0 && id > 0 {
			return "call_" + string(rune('a'+(id-1)%26)) // reuse the previous id
		}
		id++
		return "call_" + string(rune('a'+(id-1)%26))
	}
	lastIDs := []string{}
	for i, b := range data {
		text := strings.Repeat(string(rune('a'+i%26)), int(b%7))
		switch b % 13 {
		case 0:
			msgs = append(msgs, sys("system "+text))
		case 1, 2:
			msgs = append(msgs, user("user "+text))
		case 3:
			msgs = append(msgs, asst("assistant "+text))
		case 4:
			ids := []string{}
			args := []string{}
			for k := 0; k < 1+int(b>>6); k++ {
				c := nextID(b)
				ids = append(ids, c)
				args = append(args, c, "tool"+text)
			}
			lastIDs = ids
			msgs = append(msgs, call(text, args...))
		case 5, 6:
			if len(lastIDs) > 0 {
				msgs = append(msgs, result(lastIDs[int(b>>4)%len(lastIDs)], "out "+text))
			} else {
				msgs = append(msgs, result("call_z", "stray "+text))
			}
		case 7:
			msgs = append(msgs, partsMsg(RoleUser, "part "+text, "img:https://example.com/"+text+".png"))
		case 8:
			msgs = append(msgs, partsMsg(RoleAssistant, "parts "+text))
		case 9:
			msgs = append(msgs, Message{Role: RoleAssistant}) // empty turn
		case 10:
			msgs = append(msgs, result("", "no id "+text))
		case 11:
			msgs = append(msgs, Message{Role: "function", Content: "legacy " + text})
		case 12:
			// answer every open call of the last group, in order
			for _, c := range lastIDs {
				msgs = append(msgs, result(c, "done "+text))
			}
		}
	}
	return msgs
}

// equalHistory reports whether two histories hold the same messages.
func equalHistory(a, b []Message) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !equalMessage(a[i], b[i]) {
			return false
		}
	}
	return true
}

// chainedHistory returns one long valid history made of every transcript
// available (our own and, when present, the shared real ones) chained in
// name order and repeated until it holds at least minBytes of text, with
// its size in bytes. Only the first system prompt is kept; a transcript
// that ends on calls still running has them repaired away before the next
// one is joined on, so the chain validates.
func chainedHistory(tb testing.TB, minBytes int) ([]Message, int) {
	tb.Helper()
	all := allTranscripts(tb)
	names := sortedNames(all)
	var msgs []Message
	size := 0
	for round := 0; size < minBytes; round++ {
		for _, name := range names {
			part := all[name]
			if len(msgs) > 0 && len(part) > 0 && isSystem(part[0]) {
				part = part[1:]
			}
			msgs = Join(msgs, part)
			for _, m := range part {
				size += len(Text(m)) + len(ToolCallText(m))
			}
		}
		msgs, _ = RepairToolPairs(msgs)
		if round > 1000 {
			tb.Fatal("no transcripts to chain")
		}
	}
	msgs, _ = RepairToolPairs(msgs)
	return msgs, size
}

// newCounter returns the exact counter of encoding.
func newCounter(tb testing.TB, encoding string) *tokens.Exact {
	tb.Helper()
	c, err := tokens.ForEncoding(encoding)
	if err != nil {
		tb.Fatal(err)
	}
	return c
}

// syntheticHistory builds an agent-like history of n messages, each one
// different: user turns, assistant tool calls and tool results.
func syntheticHistory(n int) []Message {
	out := make([]Message, 0, n)
	out = append(out, Message{Role: RoleSystem, Content: "You are a coding agent. Use the tools to inspect and edit the repository."})
	for i := 1; len(out) < n; i++ {
		id := fmt.Sprintf("call_%d", i)
		turn := []Message{
			{Role: RoleUser, Content: fmt.Sprintf("Step %d: please look at file_%d.go and fix the failing test TestThing%d.", i, i, i)},
			{Role: RoleAssistant, Content: "Let me read the file first.", ToolCalls: []openai.ToolCall{{ID: id, Type: openai.ToolTypeFunction, Function: openai.FunctionCall{Name: "read_file", Arguments: fmt.Sprintf(`{"path":"pkg/file_%d.go"}`, i)}}}},
			{Role: RoleTool, ToolCallID: id, Name: "read_file", Content: fmt.Sprintf("package pkg\n\n// Thing%d does a thing.\nfunc Thing%d(a, b int) int {\n\treturn a + b*%d\n}\n", i, i, i)},
			{Role: RoleAssistant, Content: fmt.Sprintf("The bug is in Thing%d: it multiplies b by %d instead of adding it. I will fix it.", i, i)},
		}
		for _, m := range turn {
			if len(out) < n {
				out = append(out, m)
			}
		}
	}
	return out
}
