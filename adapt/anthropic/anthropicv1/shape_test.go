package anthropicv1

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/contextkit/compact"
)

// turnJSON is a turn as the API reads it.
type turnJSON struct {
	Role    string            `json:"role"`
	Content []json.RawMessage `json:"content"`
}

func turnsOf(t *testing.T, h History) []turnJSON {
	t.Helper()
	var w struct{ Messages []turnJSON }
	require.NoError(t, json.Unmarshal(encode(t, h), &w))
	return w.Messages
}

// sharedHistory is a long history whose last request (a text block with a
// cache breakpoint, and an image) comes back after the summary: its tool
// results are too large for the tail to reach back to it.
func sharedHistory(t *testing.T) (History, turnJSON) {
	h := longHistory(t, 12)
	h.Messages = h.Messages[:len(h.Messages)-1] // it ends with "Part 11 read."
	n := len(h.Messages)
	h.Messages[n-4] = decode(t, `{"messages":[{"role":"user","content":[`+
		`{"type":"text","text":"Which flags did v2 remove?","cache_control":{"type":"ephemeral"}},`+
		`{"type":"image","source":{"type":"url","url":"https://x.test/a.png"}}]}]}`).Messages[0]
	big, _ := json.Marshal(strings.Repeat("func big() {}\n", 900))
	h.Messages[n-2] = decode(t, `{"messages":[{"role":"user","content":[`+
		`{"type":"tool_result","tool_use_id":"toolu_r11a","content":`+string(big)+`},`+
		`{"type":"tool_result","tool_use_id":"toolu_r11b","content":"open: permission denied","is_error":true}]}]}`).Messages[0]
	require.NoError(t, Validate(h))
	return h, turnsOf(t, History{Messages: h.Messages[n-4 : n-3]})[0]
}

// A compacted history opens on the user's turn (compact's contract 10)
// with no turn of this package's own: the summary, which would otherwise
// open it as the assistant's, is a text block leading the user turn after
// it, whose own blocks (a cache breakpoint, an image) come back as they
// were. Compacted again, the new summary takes the old one's place.
func TestACompactedHistoryOpensOnTheUsersTurn(t *testing.T) {
	h, req := sharedHistory(t)
	engine := func() compact.ContextEngine {
		return compact.New(compact.WithContextWindow(6000), compact.WithHeadMessages(0))
	}
	out, _, err := Compress(context.Background(), engine(), h, compact.Force())
	require.NoError(t, err)
	require.NoError(t, Validate(out))
	first := turnsOf(t, out)[0]
	require.Equal(t, "user", first.Role)
	require.Len(t, first.Content, 3)
	assert.Contains(t, string(first.Content[0]), "[Context handoff]", "the summary leads")
	assert.NotContains(t, string(encode(t, out)), continuationText)
	assert.Equal(t, jsonOf(t, req.Content), jsonOf(t, first.Content[1:]), "the request's own blocks, as they were")

	for i := range 6 { // more work on the same request
		id := fmt.Sprintf("toolu_more%d", i)
		more := decode(t, `{"messages":[`+
			`{"role":"assistant","content":[{"type":"tool_use","id":"`+id+`","name":"grep","input":{"q":"flag"}}]},`+
			`{"role":"user","content":[{"type":"tool_result","tool_use_id":"`+id+`","content":"`+strings.Repeat("flag.go: -legacy ", 120)+`"}]},`+
			`{"role":"assistant","content":[{"type":"text","text":"Found it."}]}]}`)
		out.Messages = append(out.Messages, more.Messages...)
	}
	again, _, err := Compress(context.Background(), engine(), out, compact.Force())
	require.NoError(t, err)
	first = turnsOf(t, again)[0]
	require.Len(t, first.Content, 3, "one summary, in place of the old one")
	assert.Equal(t, jsonOf(t, req.Content), jsonOf(t, first.Content[1:]))
}

// compact.WithUserFirst(false) keeps the earlier shape: the summary is the
// assistant's, and a short user turn of this package's opens the history.
func TestTheEarlierShapeOpensOnAContinuationTurn(t *testing.T) {
	h, _ := sharedHistory(t)
	engine := compact.New(compact.WithContextWindow(6000), compact.WithHeadMessages(0), compact.WithUserFirst(false))
	out, _, err := Compress(context.Background(), engine, h, compact.Force())
	require.NoError(t, err)
	require.NoError(t, Validate(out))
	turns := turnsOf(t, out)
	assert.Contains(t, string(turns[0].Content[0]), continuationText)
	assert.Equal(t, "assistant", turns[1].Role)
}
