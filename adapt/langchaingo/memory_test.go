package langchaingo

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	openai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tmc/langchaingo/llms"
	"go.uber.org/goleak"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/session"
	"github.com/contextkit/compact/session/sqlitestore"
)

// chat plays n turns of a conversation through m, as a chain does: load
// the history, then save the input and the output. Turn 3 mentions the
// deploy key, which later turns fold away.
func chat(t *testing.T, m *Memory, from, n int) {
	t.Helper()
	ctx := context.Background()
	for i := from; i < from+n; i++ {
		_, err := m.LoadMemoryVariables(ctx, map[string]any{"input": "x"})
		require.NoError(t, err)
		in := fmt.Sprintf("Question %d: what does module %d do? %s", i, i, strings.Repeat("Context. ", 40))
		out := fmt.Sprintf("Module %d parses flags. %s", i, strings.Repeat("Detail. ", 60))
		if i == 3 {
			out = "The deploy key lives in vault path secret/deploy-7731."
		}
		require.NoError(t, m.SaveContext(ctx, map[string]any{"input": in}, map[string]any{"text": out}))
	}
}

func TestMemoryCompactsBeforeTheChainReadsIt(t *testing.T) {
	defer goleak.VerifyNone(t)
	s, err := session.Open(context.Background(), "chat-1", compact.New(compact.WithContextWindow(3000)))
	require.NoError(t, err)
	mem := NewMemory(s)
	chat(t, mem, 0, 12)
	live := s.Messages()
	require.GreaterOrEqual(t, len(live), 2)
	assert.Equal(t, []string{compact.RoleUser, compact.RoleAssistant}, []string{live[len(live)-2].Role, live[len(live)-1].Role},
		"each turn is saved as the user's input and the assistant's output")
	assert.True(t, strings.HasPrefix(live[len(live)-1].Content, "Module 11 parses flags."))
	assert.Positive(t, s.Status().Compactions, "the session compacted as the history grew")

	vars, err := mem.LoadMemoryVariables(context.Background(), nil)
	require.NoError(t, err)
	text := vars["history"].(string)
	assert.Less(t, s.Tokens(), 3000, "what the chain reads fits the window")
	assert.Contains(t, text, "Question 11", "the latest turn is there verbatim")
	assert.True(t, strings.HasPrefix(text, "Human: ") || strings.HasPrefix(text, "AI: "), "in langchaingo's buffer format:\n%s", text[:80])
	assert.Equal(t, []string{"history"}, mem.MemoryVariables(context.Background()))
	assert.Equal(t, "history", mem.GetMemoryKey(context.Background()))
}

func TestMemoryReturnsChatMessagesWhenAsked(t *testing.T) {
	s, err := session.Open(context.Background(), "chat-2", nil)
	require.NoError(t, err)
	mem := NewMemory(s, WithReturnMessages(true), WithMemoryKey("chat_history"), WithInputKey("q"), WithOutputKey("a"))
	require.NoError(t, mem.SaveContext(context.Background(), map[string]any{"q": "hi", "other": 1}, map[string]any{"a": "hello", "x": 2}))
	vars, err := mem.LoadMemoryVariables(context.Background(), nil)
	require.NoError(t, err)
	assert.Equal(t, []llms.ChatMessage{llms.HumanChatMessage{Content: "hi"}, llms.AIChatMessage{Content: "hello"}}, vars["chat_history"])

	err = mem.SaveContext(context.Background(), map[string]any{"other": "x"}, map[string]any{"a": "y"})
	require.Error(t, err, "an input key the inputs lack")
	assert.Equal(t, 2, s.Len(), "nothing is saved when the input is not there")

	require.NoError(t, mem.Clear(context.Background()))
	assert.Zero(t, s.Len(), "Clear starts over")
	assert.Equal(t, "chat-2", s.ID(), "under the same id")
}

func TestMemoryOnASQLiteSessionSurvivesARestartAndRecallsWhatItFolded(t *testing.T) {
	defer goleak.VerifyNone(t)
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "chat.db")
	open := func() (*sqlitestore.Store, *session.Session) {
		st, err := sqlitestore.Open(ctx, path)
		require.NoError(t, err)
		s, err := session.Open(ctx, "chat-3", compact.New(compact.WithContextWindow(3000)), session.WithStore(st), session.WithRecall(true))
		require.NoError(t, err)
		return st, s
	}
	st, s := open()
	chat(t, NewMemory(s, WithPrefixes("User", "Bot")), 0, 10)
	require.Positive(t, s.Status().Compactions)
	require.NoError(t, s.Close(ctx))
	require.NoError(t, st.Close())

	// A new process: the chain's memory carries on where it left off.
	st, s = open()
	defer func() { require.NoError(t, st.Close()) }()
	mem := NewMemory(s, WithPrefixes("User", "Bot"))
	vars, err := mem.LoadMemoryVariables(ctx, nil)
	require.NoError(t, err)
	assert.Contains(t, vars["history"], "Question 9", "the history is read back from the file")
	assert.Contains(t, vars["history"], "Bot: ")
	assert.NotContains(t, vars["history"], "secret/deploy-7731", "the deploy key was folded into a summary")

	// The recall tools read it back, verbatim, as a langchaingo tool.
	tools := RecallTools(mem.Session())
	require.Len(t, tools, 3)
	var search RecallTool
	for _, tool := range tools {
		if tool.Name() == session.ToolSearch {
			search = tool
		}
	}
	require.Equal(t, session.ToolSearch, search.Name())
	assert.Contains(t, search.Description(), `"query"`, "the description says what input to give")
	got, err := search.Call(ctx, "deploy-7731")
	require.NoError(t, err, "a plain input is the query")
	assert.Contains(t, got, "secret/deploy-7731")
	got, err = search.Call(ctx, `{"query":"deploy-7731","limit":1}`)
	require.NoError(t, err, "JSON input is the arguments")
	assert.Contains(t, got, "secret/deploy-7731")
	got, err = search.Call(ctx, `{"nonsense":true}`)
	require.NoError(t, err, "bad arguments are answered, not failed")
	assert.Contains(t, got, "error")
	require.NoError(t, s.Close(ctx))
}

func TestRecallToolsAreNoneWithoutRecall(t *testing.T) {
	s, err := session.Open(context.Background(), "chat-4", nil)
	require.NoError(t, err)
	assert.Empty(t, RecallTools(s))
}

func TestChatMessagesGivesEveryRoleItsType(t *testing.T) {
	msgs := ChatMessages([]compact.Message{
		{Role: compact.RoleSystem, Content: "s"},
		{Role: "developer", Content: "d"},
		{Role: compact.RoleUser, Content: "u"},
		{Role: compact.RoleAssistant, Content: "a", ReasoningContent: "r", ToolCalls: []openai.ToolCall{{ID: "c", Function: openai.FunctionCall{Name: "f", Arguments: "{}"}}}},
		{Role: compact.RoleTool, ToolCallID: "c", Content: "t"},
		{Role: "function", Name: "old", Content: "o"},
	})
	assert.Equal(t, []llms.ChatMessage{
		llms.SystemChatMessage{Content: "s"}, llms.SystemChatMessage{Content: "d"}, llms.HumanChatMessage{Content: "u"},
		llms.AIChatMessage{Content: "a", ReasoningContent: "r", ToolCalls: []llms.ToolCall{call("c", "f", "{}")}},
		llms.ToolChatMessage{ID: "c", Content: "t"}, llms.FunctionChatMessage{Name: "old", Content: "o"},
	}, msgs)
}
