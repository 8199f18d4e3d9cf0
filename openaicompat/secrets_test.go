package openaicompat

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	openai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/require"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/internal/secrettest"
)

// Issues 17 and 23: the HTTP body a summarizer sends holds no piece of
// secrettest.MinLeak bytes of any secret of the corpus, wherever the request
// held it: the user's text, a shell command in a tool call's arguments, a
// tool's output, the previous summary's open tasks (each joined on one line
// with " ⏎ ", as the Compressor writes them) and the focus.
func TestRequestBodyHoldsNoSecret(t *testing.T) {
	noLeaks(t)
	f := newFakeEndpoint(t, replyWith("The service was deployed."))
	s := f.summarizer(t)
	for _, sec := range secrettest.Secrets {
		args, err := json.Marshal(map[string]string{"command": "cd /srv/app && " + sec.Text})
		require.NoError(t, err)
		bash := call("", "c1", "bash")
		bash.ToolCalls[0].Function.Arguments = string(args)
		req := compact.SummaryRequest{
			Turns: []compact.Message{
				user("Here is the config:\n" + sec.Text + "\nUse it."),
				bash, result("c1", "$ cat .env\n"+sec.Text+"\n$ "), asst("Deployed."),
			},
			PreviousSummary: compact.SummaryPrefix + "Set up the service.\n\n## Open tasks\n- " +
				strings.ReplaceAll("Rotate this credential:\n"+sec.Text, "\n", " ⏎ "),
			Focus:        sec.Text,
			TargetTokens: 500,
		}
		_, err = s.Summarize(context.Background(), req)
		require.NoError(t, err, sec.Name)
	}
	seen := f.requests()
	require.Len(t, seen, len(secrettest.Secrets))
	for i, sec := range secrettest.Secrets {
		body := seen[i].body
		// The decoded messages: a piece escaped in the JSON body reads
		// as it was sent.
		var sent strings.Builder
		for _, m := range body.Messages {
			sent.WriteString(m.Content + "\n")
		}
		raw, err := json.Marshal(seen[i].raw)
		require.NoError(t, err)
		for what, text := range map[string]string{"messages": sent.String(), "raw body": string(raw)} {
			if p := secrettest.Leaked(text, sec.Value); p != "" {
				t.Errorf("%s: %s: %q survived in:\n%s", sec.Name, what, p, text)
			}
		}
		require.Equal(t, openai.ChatMessageRoleUser, body.Messages[len(body.Messages)-1].Role)
	}
}
