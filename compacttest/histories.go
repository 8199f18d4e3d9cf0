package compacttest

import (
	"fmt"
	"strings"

	"github.com/contextkit/compact"
	openai "github.com/sashabaranov/go-openai"
)

// History is a named conversation the cases compact.
type History struct {
	Name     string
	Messages []compact.Message
}

// Histories returns the conversations every case runs on: a coding agent
// session with several user turns, an agent run with a single task message,
// a plain chat without a system prompt, tool-call ids reused once answered,
// a history ending on calls still running, and messages with image parts.
// Each is long enough that a window of 4,000 tokens must compact it.
func Histories() []History {
	return []History{
		{"coding-session", codingSession(24, true)},
		{"single-task-agent", codingSession(30, false)},
		{"plain-chat", plainChat(18)},
		{"reused-call-ids", reusedIDs(16)},
		{"pending-calls-at-end", pendingAtEnd()},
		{"images-and-parts", withImages(10)},
	}
}

const systemPrompt = "You are a careful coding agent. Use the tools to inspect and change the repository, " +
	"run the tests before you finish, and keep your changes small."

func tc(id, name, args string) openai.ToolCall {
	return openai.ToolCall{ID: id, Type: openai.ToolTypeFunction, Function: openai.FunctionCall{Name: name, Arguments: args}}
}

// output is a tool result of realistic size that names files and errors.
func output(i int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "$ go test ./internal/store/...  (run %d)\n", i)
	for k := 0; k < 12; k++ {
		fmt.Fprintf(&b, "internal/store/shard_%02d.go:%d: checked %d keys in %d ms\n", k, 10+k*7, 1000+i*k, 3+k)
	}
	if i%4 == 3 {
		fmt.Fprintf(&b, "--- FAIL: TestCompaction/shard_%02d (0.01s)\n    store_test.go:%d: got %d entries, want %d\nFAIL\nexit status 1\n", i, 40+i, i, i+1)
	} else {
		b.WriteString("ok  \texample.com/app/internal/store\t0.042s\n")
	}
	return b.String()
}

func codingSession(rounds int, moreUsers bool) []compact.Message {
	msgs := []compact.Message{
		{Role: compact.RoleSystem, Content: systemPrompt},
		{Role: compact.RoleUser, Content: "The store's compaction test is flaky on shard boundaries. Find out why and fix it."},
	}
	for i := 0; i < rounds; i++ {
		id := fmt.Sprintf("call_%d", i)
		msgs = append(msgs,
			compact.Message{Role: compact.RoleAssistant,
				Content:   fmt.Sprintf("Step %d: I'll run the store tests again to see which shard fails.", i),
				ToolCalls: []openai.ToolCall{tc(id, "bash", `{"command":"go test ./internal/store/..."}`)}},
			compact.Message{Role: compact.RoleTool, ToolCallID: id, Content: output(i)},
		)
		if moreUsers && i%8 == 7 {
			msgs = append(msgs,
				compact.Message{Role: compact.RoleAssistant, Content: fmt.Sprintf("Shard %d fails when it holds exactly one entry; checking the boundary math next.", i)},
				compact.Message{Role: compact.RoleUser, Content: fmt.Sprintf("Keep going. Note for later: shard %d must also handle an empty range.", i)},
			)
		}
	}
	msgs = append(msgs, compact.Message{Role: compact.RoleAssistant,
		Content: "The off-by-one in shardBounds is fixed and every store test passes now."})
	if moreUsers {
		msgs = append(msgs, compact.Message{Role: compact.RoleUser, Content: "Great. Now write a regression test for the one-entry shard."})
	}
	return msgs
}

func plainChat(exchanges int) []compact.Message {
	var msgs []compact.Message
	for i := 0; i < exchanges; i++ {
		msgs = append(msgs,
			compact.Message{Role: compact.RoleUser, Content: fmt.Sprintf("Question %d: how did lighthouse keepers in the %d0s keep the lamp lit through a storm? %s", i, 180+i, strings.Repeat("Please be specific. ", 6))},
			compact.Message{Role: compact.RoleAssistant, Content: fmt.Sprintf("Answer %d: they trimmed the wicks every few hours, kept spare mantles and oil in the lamp room, and logged each check. %s", i, strings.Repeat("They also wound the clockwork that turned the lens. ", 8))},
		)
	}
	return msgs
}

func reusedIDs(rounds int) []compact.Message {
	msgs := []compact.Message{
		{Role: compact.RoleSystem, Content: "You are a support agent. Look bookings up before you answer."},
	}
	for i := 0; i < rounds; i++ {
		id := []string{"lookup", "change"}[i%2] // reused once the earlier call was answered
		msgs = append(msgs,
			compact.Message{Role: compact.RoleUser, Content: fmt.Sprintf("Can you check booking BK-%d for me? %s", 2000+i, strings.Repeat("It is for next Saturday. ", 5))},
			compact.Message{Role: compact.RoleAssistant, ToolCalls: []openai.ToolCall{tc(id, "find_booking", fmt.Sprintf(`{"booking":"BK-%d"}`, 2000+i))}},
			compact.Message{Role: compact.RoleTool, ToolCallID: id, Content: fmt.Sprintf(`{"booking":"BK-%d","bikes":["city","e-bike"],"total_eur":%d,"notes":"%s"}`, 2000+i, 40+i, strings.Repeat("child seat requested; ", 8))},
			compact.Message{Role: compact.RoleAssistant, Content: fmt.Sprintf("Booking BK-%d holds a city bike and an e-bike, %d EUR in total.", 2000+i, 40+i)},
		)
	}
	return msgs
}

func pendingAtEnd() []compact.Message {
	msgs := codingSession(16, true)
	return append(msgs,
		compact.Message{Role: compact.RoleAssistant, Content: "Writing the test and running it.",
			ToolCalls: []openai.ToolCall{
				tc("call_w", "write_file", `{"path":"internal/store/shard_test.go","content":"package store"}`),
				tc("call_r", "bash", `{"command":"go test ./internal/store/ -run OneEntry"}`),
			}},
		compact.Message{Role: compact.RoleTool, ToolCallID: "call_w", Content: "wrote internal/store/shard_test.go"},
	)
}

func withImages(rounds int) []compact.Message {
	msgs := []compact.Message{{Role: compact.RoleSystem, Content: "You describe dashboards. Say only what the image shows."}}
	for i := 0; i < rounds; i++ {
		msgs = append(msgs,
			compact.Message{Role: compact.RoleUser, MultiContent: []openai.ChatMessagePart{
				{Type: openai.ChatMessagePartTypeText, Text: fmt.Sprintf("Panel %d: what does the error rate do here? %s", i, strings.Repeat("Look closely at the afternoon. ", 6))},
				{Type: openai.ChatMessagePartTypeImageURL, ImageURL: &openai.ChatMessageImageURL{URL: fmt.Sprintf("https://example.com/panels/%d.png", i), Detail: openai.ImageURLDetailLow}},
			}},
			compact.Message{Role: compact.RoleAssistant, Content: fmt.Sprintf("Panel %d shows the error rate near 0.5%% until 14:00, a spike to %d.%d%%, and recovery by 16:00. %s", i, 3+i%3, i, strings.Repeat("The rest of the day is flat. ", 6))},
		)
	}
	return msgs
}
