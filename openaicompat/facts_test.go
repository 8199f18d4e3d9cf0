package openaicompat

import (
	"context"
	"strings"
	"testing"

	"github.com/contextkit/compact"
	openai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestOpenAISummarizerAsksForTheFactsIndex checks what reaches the
// endpoint: the instructions ask for the same facts index the extractive
// summary writes, first, with its kinds, its forms and its keep order,
// and the material carries the facts themselves.
func TestOpenAISummarizerAsksForTheFactsIndex(t *testing.T) {
	f := newFakeEndpoint(t, replyWith("## Facts\n- IDs: reservation_id=ZFA04Y (get_reservation_details)"))
	req := compact.SummaryRequest{TargetTokens: 800, Turns: []compact.Message{
		user("Cancel my reservation ZFA04Y."),
		tcall("1", "get_reservation_details", `{"reservation_id":"ZFA04Y"}`), result("1", "Error: reservation not found"),
		tcall("2", "bash", `{"command":"grep -n ZFA04Y /data/bookings.csv"}`), result("2", "12:ZFA04Y,mia_li_3668"),
	}}
	_, err := f.summarizer(t).Summarize(context.Background(), req)
	require.NoError(t, err)
	seen := f.requests()
	require.Len(t, seen, 1)
	require.Len(t, seen[0].body.Messages, 2)
	system, material := seen[0].body.Messages[0], seen[0].body.Messages[1]
	assert.Equal(t, openai.ChatMessageRoleSystem, system.Role)

	facts := strings.Index(system.Content, "\n## Facts\n")
	task := strings.Index(system.Content, "\n## Task\n")
	require.GreaterOrEqual(t, facts, 0, "the instructions ask for a Facts heading")
	assert.Less(t, facts, task, "the index comes before any prose")
	index := system.Content[facts:task]
	for what, phrase := range map[string]string{
		"errors with the run that printed them": "Unresolved errors from",
		"resolved errors":                       `"Resolved errors from ...`,
		"modified files grouped by directory":   "Modified: the paths of the files changed, grouped by directory",
		"identifiers on one line":               "as one comma-separated list",
		"with argument and tool":                "reservation_id=ZFA04Y (get_reservation_details)",
		"the last command verbatim":             "Last command: the last shell command run, verbatim",
		"the keep order":                        "keep unresolved errors, modified files, identifiers and the last command first",
		"say what was left out":                 `"Left out:" line saying how many of each kind`,
	} {
		assert.Contains(t, index, phrase, what)
	}
	assert.Contains(t, material.Content, `"reservation_id":"ZFA04Y"`, "the call's arguments reach the model")
	assert.Contains(t, material.Content, "grep -n ZFA04Y /data/bookings.csv")
}
