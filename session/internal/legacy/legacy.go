// Package legacy holds what the tests of the durable stores share about
// data an earlier version of them wrote: messages whose encoding then lost
// bytes, that encoding, and the check that a store reads such data as that
// version did, beside what it appends now.
package legacy

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/session/store"
	openai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Messages holds text that is not UTF-8 and text that looks like an escape.
func Messages() []compact.Message {
	return []compact.Message{
		{Role: compact.RoleUser, Content: "a\xffb 100%41"},
		{Role: compact.RoleAssistant, ToolCalls: []openai.ToolCall{{ID: "c\xff", Type: openai.ToolTypeFunction,
			Function: openai.FunctionCall{Name: "grep", Arguments: `{"p":"%zz"}`}}}},
	}
}

// JSON is v as versions before stores kept every byte kept it: go-openai's
// JSON, with U+FFFD for each byte that is not UTF-8.
func JSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return string(b)
}

// Check checks that st reads session id, whose log holds Messages as JSON
// kept them and whose compaction 1 carries the first of them through
// record 1, as the earlier version did (a '%' in it stays text), and that
// a message appended now, kept byte for byte, reads beside it.
func Check(t *testing.T, st store.Store, id string) {
	t.Helper()
	ctx := context.Background()
	var want []compact.Message // what the earlier version read back
	require.NoError(t, json.Unmarshal([]byte(JSON(t, Messages())), &want))
	now := compact.Message{Role: compact.RoleUser, Content: "now \xff%41\x00"}
	_, _, err := st.Append(ctx, id, now)
	require.NoError(t, err)
	want = append(want, now)

	recs, err := st.Read(ctx, id, 1, 0)
	require.NoError(t, err)
	require.Len(t, recs, 3)
	for i, r := range recs {
		assert.Equal(t, want[i], r.Message, "record %d", i+1)
	}
	msgs, _, _, err := st.Live(ctx, id)
	require.NoError(t, err)
	assert.Equal(t, want, msgs)
	comps, err := st.Compactions(ctx, id)
	require.NoError(t, err)
	require.Len(t, comps, 1)
	assert.Equal(t, want[:1], comps[0].Live)
	searcher, ok := st.(store.Searcher)
	require.True(t, ok)
	for q, seq := range map[string]int64{"100%41": 1, "%zz": 2, "now \xff%41": 3} {
		found, err := searcher.Search(ctx, id, q, 0, 0)
		require.NoError(t, err)
		require.Len(t, found, 1, "%q", q)
		assert.Equal(t, seq, found[0].Seq, "%q", q)
	}
}
