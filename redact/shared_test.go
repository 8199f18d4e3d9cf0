package redact

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/contextkit/compact/internal/sharedtest"
)

// reviewedRedactions is what JSON removes from the shared transcripts, per
// file, each redaction read by a person and judged: they hold no real
// secret, so every redaction there is a false positive, and there are none.
// A change to the rules that changes a count fails TestSharedTranscripts,
// which lists what it removed so that it can be judged and the table
// updated.
var reviewedRedactions = map[string]int{}

// sharedMessage is the part of an OpenAI-format message redaction reads.
type sharedMessage struct {
	Role      string          `json:"role"`
	Content   json.RawMessage `json:"content"`
	ToolCalls []struct {
		Function struct{ Name, Arguments string } `json:"function"`
	} `json:"tool_calls"`
}

// texts returns what redaction reads of m: its content (a string or the
// text of its parts) and its tool calls' arguments.
func (m sharedMessage) texts() []string {
	var out []string
	var s string
	if json.Unmarshal(m.Content, &s) == nil {
		out = append(out, s)
	} else {
		var parts []struct{ Text string }
		_ = json.Unmarshal(m.Content, &parts)
		for _, p := range parts {
			out = append(out, p.Text)
		}
	}
	for _, c := range m.ToolCalls {
		out = append(out, c.Function.Arguments)
	}
	return out
}

// secretWords finds the lines the name rules must judge: a word saying
// token, password, secret, key or auth followed by a separator.
var secretWords = regexp.MustCompile(`(?i)(token|passw|secret|key|auth)[a-z_-]*["']?\s*[:=]`)

// The false-positive rate on real agent conversations: JSON (which applies
// String to every string) run over every message and argument of the
// shared transcripts removes exactly what was reviewed. Run with -v for the
// figures the README quotes.
func TestSharedTranscripts(t *testing.T) {
	files := sharedtest.Files(t)
	var texts, bytes, judged, total int
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var msgs []sharedMessage
		if err := json.Unmarshal(data, &msgs); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		name, n := filepath.Base(f), 0
		for i, m := range msgs {
			for _, in := range m.texts() {
				texts++
				bytes += len(in)
				judged += len(secretWords.FindAllStringIndex(in, -1))
				out := JSON(in)
				for _, r := range removed(in, out) {
					n++
					t.Logf("%s: message %d (%s): %s", name, i, m.Role, r)
				}
			}
		}
		total += n
		if n != reviewedRedactions[name] {
			t.Errorf("%s: %d redactions, %d reviewed: judge each one logged above and update reviewedRedactions", name, n, reviewedRedactions[name])
		}
	}
	t.Logf("%d files, %d texts (%d bytes), %d name-value pairs with a secret-like name judged, %d redactions", len(files), texts, bytes, judged, total)
}

// removed describes each span of in that out replaced with Marker, with
// the text before it: "...context ⟦what went⟧".
func removed(in, out string) []string {
	var res []string
	i, j := 0, 0
	for j < len(out) {
		for i < len(in) && j < len(out) && in[i] == out[j] {
			i, j = i+1, j+1
		}
		if j >= len(out) {
			break
		}
		if !strings.HasPrefix(out[j:], Marker) {
			i, j = i+1, j+1 // a string written again: step over the difference
			continue
		}
		j += len(Marker)
		end := len(in)
		if sync := out[j:min(len(out), j+12)]; sync != "" {
			if k := strings.Index(in[i:], sync); k >= 0 {
				end = i + k
			}
		}
		res = append(res, strings.TrimSpace(in[max(0, i-40):i])+" ⟦"+in[i:min(end, i+80)]+"⟧")
		i = end
	}
	return res
}

// sharedTexts returns every text redaction reads in the shared transcripts:
// each message's content (or the text of its parts) and each tool call's
// arguments, in file order. It skips tb when the transcripts are missing.
func sharedTexts(tb testing.TB) []string {
	tb.Helper()
	var out []string
	for _, f := range sharedtest.Files(tb) {
		data, err := os.ReadFile(f)
		if err != nil {
			tb.Fatal(err)
		}
		var msgs []sharedMessage
		if err := json.Unmarshal(data, &msgs); err != nil {
			tb.Fatalf("%s: %v", f, err)
		}
		for _, m := range msgs {
			out = append(out, m.texts()...)
		}
	}
	return out
}
