package compact

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"testing"

	openai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/contextkit/compact/handoff"
	"github.com/contextkit/compact/internal/msgtest"
	"github.com/contextkit/compact/internal/secrettest"
)

// secretSurface is a conversation holding a secret in one place a host
// meets it, and the operator's note of a manual handoff packet.
type secretSurface struct {
	name string
	msgs []Message
	note string
}

// toolCall is an assistant turn calling one tool with arguments args.
func toolCall(id, name, args string) Message {
	return Message{Role: RoleAssistant, ToolCalls: []openai.ToolCall{{
		ID: id, Type: openai.ToolTypeFunction, Function: openai.FunctionCall{Name: name, Arguments: args},
	}}}
}

// jsonArgs encodes members, in order, as a JSON object, the way a model
// writes tool arguments.
func jsonArgs(t *testing.T, kv ...string) string {
	t.Helper()
	var b strings.Builder
	b.WriteByte('{')
	for i := 0; i < len(kv); i += 2 {
		if i > 0 {
			b.WriteString(", ")
		}
		k, err := json.Marshal(kv[i])
		require.NoError(t, err)
		v, err := json.Marshal(kv[i+1])
		require.NoError(t, err)
		b.Write(k)
		b.WriteString(": ")
		b.Write(v)
	}
	b.WriteByte('}')
	return b.String()
}

// secretSurfaces plants sec in every place of a conversation that a
// summarizer, a handoff packet or a report reads: the user's text, the
// assistant's, a tool call's arguments (as a bare value, under its name, in
// a shell command), a tool's output (plain and JSON), and the operator's
// note of a manual packet.
func secretSurfaces(t *testing.T, sec secrettest.Secret) []secretSurface {
	head := []Message{sys("You are a deployment assistant."), user("Please deploy the service.")}
	conv := func(tail ...Message) []Message {
		return append(append(append([]Message(nil), head...), tail...), asst("Done."), user("Thanks, what next?"))
	}
	out := []secretSurface{
		{name: "user text", msgs: conv(user("Here is the config:\n" + sec.Text + "\nUse it."))},
		{name: "assistant text", msgs: conv(asst("I found this in the repository:\n" + sec.Text + "\nI will rotate it."))},
		{name: "argument text", msgs: conv(toolCall("c1", "deploy", jsonArgs(t, "input", sec.Text, "dry_run", "no")), result("c1", "ok"))},
		{name: "shell command", msgs: conv(toolCall("c1", "bash", jsonArgs(t, "command", "cd /srv/app && "+sec.Text)), result("c1", "ok"))},
		{name: "shell redirection", msgs: conv(toolCall("c1", "bash", jsonArgs(t, "command", "echo "+sec.Text+" >> .env && make deploy")), result("c1", ""))},
		{name: "shell echo", msgs: conv(toolCall("c1", "bash", jsonArgs(t, "command", "echo '"+sec.Text+"' >> .env", "timeout", "30")), result("c1", ""))},
		{name: "pending shell command", msgs: append(conv(), toolCall("c9", "run_terminal_cmd", jsonArgs(t, "command", "cd /srv/app && "+sec.Text)))},
		{name: "tool output", msgs: conv(toolCall("c1", "bash", `{"command": "cat .env"}`), result("c1", "$ cat .env\n"+sec.Text+"\n$ "))},
		{name: "JSON tool output", msgs: conv(toolCall("c1", "read_config", `{}`), result("c1", jsonArgs(t, "stdout", sec.Text+"\n", "exit_code", "0")))},
		{name: "error output", msgs: conv(toolCall("c1", "bash", `{"command": "make deploy"}`), result("c1", "Error: deploy failed for "+sec.Text+"\nexit status 2"))},
		{name: "handoff note", msgs: conv(), note: "Rotate this before merging:\n" + sec.Text},
	}
	if sec.Key != "" {
		out = append(out,
			secretSurface{name: "argument under its name", msgs: conv(toolCall("c1", "set_env", jsonArgs(t, sec.Key, sec.Value, "region", "eu")), result("c1", "ok"))},
			secretSurface{name: "JSON output under its name", msgs: conv(toolCall("c1", "get_env", `{}`), result("c1", `{"env": `+jsonArgs(t, sec.Key, sec.Value)+`}`))},
		)
	}
	if sec.Bare {
		out = append(out,
			secretSurface{name: "bare argument", msgs: conv(toolCall("c1", "login", jsonArgs(t, "q", sec.Value)), result("c1", "ok"))},
			secretSurface{name: "bare output", msgs: conv(toolCall("c1", "whoami", `{}`), result("c1", sec.Value))},
		)
	}
	return out
}

// Issue 17: for every secret of the corpus and every surface, nothing of
// secrettest.MinLeak bytes or more of the secret survives in what leaves the
// process: what a model summarizer is sent (RenderTurns, SummaryPrompt),
// the extractive summary, and handoff packets (built, and written by
// ManualHandoffPacket with the secret in the operator's note).
func TestNoSecretSurvivesAnySurface(t *testing.T) {
	ctx := context.Background()
	extractive := NewExtractiveSummarizer(nil)
	root := t.TempDir()
	c := newHandoffCompressor(handoff.Policy{Root: root})
	for i, sec := range secrettest.Secrets {
		t.Run(sec.Name, func(t *testing.T) {
			for j, s := range secretSurfaces(t, sec) {
				req := SummaryRequest{Turns: s.msgs, TargetTokens: 1500}
				summary, err := extractive.Summarize(ctx, req)
				require.NoError(t, err)
				_, material := SummaryPrompt(req)
				emitted := map[string]string{
					"RenderTurns":        RenderTurns(s.msgs, RenderOptions{}),
					"SummaryPrompt":      material,
					"extractive summary": summary,
					"handoff.Build":      handoff.Build(handoff.Input{Messages: s.msgs, Note: s.note, Summary: summary}),
				}
				if s.note != "" {
					// The packet a host's "/handoff-packet <note>" writes to disk
					// (handoff.Build above covers every other field).
					manual, err := c.ManualHandoffPacket(s.msgs, s.note, WithSessionID(fmt.Sprintf("s%d-%d", i, j)))
					require.NoError(t, err)
					written, err := os.ReadFile(manual.Path)
					require.NoError(t, err)
					emitted["ManualHandoffPacket"] = string(written)
				}
				for emitter, text := range emitted {
					if p := secrettest.Leaked(text, sec.Value); p != "" {
						assert.Failf(t, "a secret survived", "%s / %s: %q survived in %s", s.name, emitter, p, msgtest.Around(text, p))
					}
				}
			}
		})
	}
}

// Issue 23: what a host hands in beside the conversation, and what a
// failure reports, leave the process too. With the secret among the open
// tasks (which the summary lists, each joined on one line with " ⏎ "),
// nothing of secrettest.MinLeak bytes survives in the automatic packet of
// either mode (its text, its file, the continuation), a manual packet, or
// a rendering of the compacted history for the next summary; with the
// secret in a summarizer's error, nothing survives in Result, Status or
// the log.
func TestNoSecretSurvivesOpenTasksOrFailures(t *testing.T) {
	ctx := context.Background()
	for i, sec := range secrettest.Secrets {
		t.Run(sec.Name, func(t *testing.T) {
			tasks := []string{"Rotate this credential:\n" + sec.Text + "\nthen redeploy.", sec.Text}
			emitted := map[string]string{}
			for _, mode := range []handoff.Mode{handoff.PromptUser, handoff.FreshSession} {
				c := newHandoffCompressor(handoff.Policy{Enabled: true, Mode: mode, AfterCompactions: 1, Root: t.TempDir()})
				res, err := c.Compress(ctx, longSession(30), Force(), WithOpenTasks(tasks), WithSessionID(fmt.Sprintf("s%d", i)))
				require.NoError(t, err)
				require.NotNil(t, res.Handoff, "a packet is written")
				written, err := os.ReadFile(res.Handoff.Path)
				require.NoError(t, err)
				emitted[mode.String()+" packet"] = res.Handoff.Packet
				emitted[mode.String()+" packet file"] = string(written)
				for _, m := range res.Handoff.Continuation {
					emitted[mode.String()+" continuation"] += Text(m) + "\n"
				}
				next := append(Clone(res.Messages), user("go on"))
				emitted["RenderTurns of the compacted history"] = RenderTurns(next, RenderOptions{})
				_, emitted["SummaryPrompt of the compacted history"] = SummaryPrompt(SummaryRequest{Turns: next})
				manual, err := c.ManualHandoffPacket(next, "", WithOpenTasks(tasks), WithSessionID(fmt.Sprintf("m%d", i)))
				require.NoError(t, err)
				emitted["ManualHandoffPacket"] = manual.Packet
			}

			var logs strings.Builder
			failing := SummarizerFunc(func(context.Context, SummaryRequest) (string, error) {
				return "", fmt.Errorf("upstream rejected the request for %s: quota", sec.Text)
			})
			c := newTestCompressor(failing, WithLogger(slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))))
			res, err := c.Compress(ctx, longSession(30), Force())
			require.NoError(t, err, "the extractive fallback compacts")
			emitted["Result.FallbackReason"] = res.FallbackReason
			emitted["Status.LastError"] = c.Status().LastError
			emitted["log"] = logs.String()

			for surface, text := range emitted {
				if p := secrettest.Leaked(text, sec.Value); p != "" {
					assert.Failf(t, "a secret survived", "%s: %q survived in %s", surface, p, msgtest.Around(text, p))
				}
			}
		})
	}
}

// The same secrets stay in the compacted history itself: it is the
// conversation's own, and redaction is for what leaves the process.
func TestCompactedHistoryKeepsSecretsVerbatim(t *testing.T) {
	sec := secrettest.Secrets[0]
	msgs := append(longSession(30), user("use "+sec.Text))
	res, err := newTestCompressor(&recorder{}).Compress(context.Background(), msgs, Force())
	require.NoError(t, err)
	require.Equal(t, msgs[len(msgs)-1], res.Messages[len(res.Messages)-1], "the latest user message, secret and all, is verbatim")
}
