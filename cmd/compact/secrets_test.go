package main

import (
	"encoding/json"
	"fmt"
	"html"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/contextkit/compact/internal/secrettest"
)

// secretsPerRun is how many secrets of the corpus one run of
// TestTheReportsHoldNoSecret plants; reportWindow is the window it compacts
// them in: small enough that the summary, echoing them all, is cut in its
// middle as a long one is (a cut can leave half a key behind).
const (
	secretsPerRun = 12
	reportWindow  = "3000"
)

// Issue 23: every secret of the corpus, in the messages (the user's text,
// a shell command's arguments, a tool's output) and echoed by the model
// into its summary (as written, and joined on one line with " ⏎ " as open
// tasks are), loses every piece of secrettest.MinLeak bytes in what the
// CLI writes outside the history: the JSON report, the human report and
// the HTML view (which shows every message).
func TestTheReportsHoldNoSecret(t *testing.T) {
	for from := 0; from < len(secrettest.Secrets); from += secretsPerRun {
		secrets := secrettest.Secrets[from:min(from+secretsPerRun, len(secrettest.Secrets))]
		t.Run(secrets[0].Name, func(t *testing.T) {
			var summary strings.Builder
			msgs := []map[string]any{{"role": "system", "content": "You are a deployment assistant."}}
			for i, sec := range secrets {
				id := fmt.Sprintf("call_%d", i)
				args, err := json.Marshal(map[string]string{"command": "cd /srv && " + sec.Text})
				require.NoError(t, err)
				msgs = append(msgs,
					map[string]any{"role": "user", "content": "Here is the config:\n" + sec.Text + "\nUse it."},
					map[string]any{"role": "assistant", "tool_calls": []map[string]any{{
						"id": id, "type": "function", "function": map[string]any{"name": "bash", "arguments": string(args)},
					}}},
					map[string]any{"role": "tool", "tool_call_id": id, "content": "$ cat .env\n" + sec.Text + "\n$ "},
					map[string]any{"role": "assistant", "content": "Done."},
				)
				summary.WriteString(sec.Text + "\n- [ ] " + strings.ReplaceAll("Rotate:\n"+sec.Text, "\n", " ⏎ ") + "\n")
			}
			summary.WriteString("All rotated.")
			transcript, err := json.Marshal(append(msgs, map[string]any{"role": "user", "content": "What next?"}))
			require.NoError(t, err)
			reply, err := json.Marshal(map[string]any{
				"id": "x", "object": "chat.completion", "model": "m",
				"choices": []map[string]any{{"index": 0, "finish_reason": "stop", "message": map[string]any{"role": "assistant", "content": summary.String()}}},
				"usage":   map[string]any{"prompt_tokens": 10, "completion_tokens": 10, "total_tokens": 20},
			})
			require.NoError(t, err)
			newChatServer(t, http.StatusOK, string(reply))

			dir := t.TempDir()
			in := writeFile(t, dir, "secrets.json", string(transcript))
			rep, page := filepath.Join(dir, "rep.json"), filepath.Join(dir, "view.html")
			r := runCLI(t, "", "-summarizer", "openai", "-force", "-window", reportWindow, "-o", filepath.Join(dir, "out.json"),
				"-json-report", rep, "-html", page, "-report", in)
			require.Equal(t, exitOK, r.code, r.stderr)
			var report struct{ Summary string }
			require.NoError(t, json.Unmarshal([]byte(readFile(t, rep)), &report))
			require.True(t, strings.HasSuffix(report.Summary, "All rotated."), "the model's summary reaches the report:\n%s", report.Summary)
			written := map[string]string{
				"JSON report":    readFile(t, rep),
				"report summary": report.Summary,
				"human report":   r.stdout + r.stderr,
				"HTML view":      html.UnescapeString(readFile(t, page)),
			}
			for _, sec := range secrets {
				for what, text := range written {
					if p := secrettest.Leaked(text, sec.Value); p != "" {
						i := strings.Index(text, p)
						assert.Failf(t, "a secret survived", "%s: %s: %q survived in ...%s...", sec.Name, what, p, text[max(0, i-200):min(len(text), i+100)])
					}
				}
			}
		})
	}
}
