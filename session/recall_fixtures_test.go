package session

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	openai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/require"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/session/store"
)

// agentHistory is a coding agent's session of n tool rounds: each runs a
// command whose output has one error line naming the session and the round
// (errorLine(id, i)) among lines of noise, so a fact that lands in the
// wrong session or goes missing is easy to spot.
func agentHistory(id string, n int) []compact.Message {
	msgs := []compact.Message{
		sys("You are coding agent " + id + "."),
		user("Make the build of " + id + " pass."),
	}
	for i := 1; i <= n; i++ {
		callID := fmt.Sprintf("call_%s_%d", id, i)
		args, _ := json.Marshal(map[string]string{"command": fmt.Sprintf(`go test ./pkg%d/... -run "Test%d"`, i, i)})
		msgs = append(msgs,
			compact.Message{Role: compact.RoleAssistant, Content: fmt.Sprintf("Round %d: running the tests.", i),
				ToolCalls: []openai.ToolCall{{ID: callID, Type: openai.ToolTypeFunction,
					Function: openai.FunctionCall{Name: "bash", Arguments: string(args)}}}},
			result(callID, toolOutput(id, i)))
	}
	return append(msgs, user("Where are we?"))
}

// errorLine is the one error line of round i of session id.
func errorLine(id string, i int) string {
	return fmt.Sprintf("pkg%d/file%d.go:12:3: undefined: symbol_%s_%d", i, i, strings.ReplaceAll(id, "-", "_"), i)
}

func toolOutput(id string, i int) string {
	var b strings.Builder
	for k := 0; k < 8; k++ {
		fmt.Fprintf(&b, "ok   example.com/%s/pkg%d/sub%d  0.%03ds\n", id, i, k, k*7+i)
	}
	b.WriteString(errorLine(id, i) + "\n")
	fmt.Fprintf(&b, "FAIL example.com/%s/pkg%d [build failed]", id, i)
	return b.String()
}

// newRecallSession is a session with recall on over store (a store.Memory
// of its own when nil), compacted by a 4,000-token Compressor with the
// extractive summarizer.
func newRecallSession(t testing.TB, id string, st store.Store, opts ...Option) *Session {
	t.Helper()
	engine := compact.New(compact.WithContextWindow(4000), compact.WithTokenCounter(byteCounter{}),
		compact.WithThresholdBounds(0, 0), compact.WithPruning(false))
	base := []Option{WithRecall(true)}
	if st != nil {
		base = append(base, WithStore(st))
	}
	s, err := Open(context.Background(), id, engine, append(base, opts...)...)
	require.NoError(t, err)
	return s
}

// useTool runs the recall tool name with args and decodes its answer into a
// generic map; it fails the test when the answer is not one JSON object.
func useTool(t testing.TB, s *Session, name, args string) map[string]any {
	t.Helper()
	out, err := callRaw(s, name, args)
	require.NoError(t, err)
	var v map[string]any
	require.NoError(t, json.Unmarshal(out, &v), "answer: %s", out)
	return v
}

func callRaw(s *Session, name, args string) (json.RawMessage, error) {
	for _, tool := range s.Tools() {
		if tool.Definition.Function.Name == name {
			return tool.Handle(context.Background(), args)
		}
	}
	return nil, fmt.Errorf("no tool %q", name)
}

// summaryText returns the text of the summary in msgs, "" when there is
// none.
func summaryText(msgs []compact.Message) string {
	for _, m := range msgs {
		if compact.IsSummary(m) {
			return compact.Text(m)
		}
	}
	return ""
}
