package sqlitestore_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/contextkit/compact"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Search finds the same records whether they are in the index, appended
// since, or both, and never another session's.
func TestSearchAcrossTheIndexAndWhatFollows(t *testing.T) {
	ctx := context.Background()
	st := openTemp(t)
	appendN := func(id string, from, n int) {
		msgs := make([]compact.Message, n)
		for i := range msgs {
			text := fmt.Sprintf("%s step %d: build ok", id, from+i)
			if (from+i)%100 == 7 {
				text = fmt.Sprintf("%s step %d: ERROR disk full on /var/tmp", id, from+i)
			}
			msgs[i] = compact.Message{Role: compact.RoleTool, Content: text}
		}
		_, _, err := st.Append(ctx, id, msgs...)
		require.NoError(t, err)
	}
	appendN("agent-1", 0, 1000)
	appendN("agent-2", 0, 1000)
	found, err := st.Search(ctx, "agent-1", "error DISK", 0, 0)
	require.NoError(t, err)
	require.Len(t, found, 10, "the index (built by this search) finds every match")
	for i, r := range found {
		assert.EqualValues(t, i*100+8, r.Seq)
		assert.Contains(t, r.Message.Content, "agent-1 ")
	}

	appendN("agent-1", 1000, 150) // not indexed yet: under the lag allowed
	found, err = st.Search(ctx, "agent-1", "error disk", 990, 0)
	require.NoError(t, err)
	require.Len(t, found, 2, "matches appended since the index was built")
	assert.EqualValues(t, 1008, found[0].Seq)
	assert.EqualValues(t, 1108, found[1].Seq)

	found, err = st.Search(ctx, "agent-1", "error disk", 0, 3)
	require.NoError(t, err)
	assert.Len(t, found, 3, "limit")
	found, err = st.Search(ctx, "agent-2", "agent-1", 0, 0)
	require.NoError(t, err)
	assert.Empty(t, found, "a session's search reads only its own log")
}

// The index holds text next to NUL and bytes that are not UTF-8, so Search
// finds it there; a query holding NUL, which would end an FTS5 query, reads
// the log instead of failing.
func TestIndexFindsTextAmongAnyBytes(t *testing.T) {
	ctx := context.Background()
	st := openTemp(t)
	msgs := make([]compact.Message, 300)
	for i := range msgs {
		msgs[i] = compact.Message{Role: compact.RoleUser, Content: fmt.Sprintf("filler %d", i)}
	}
	msgs = append(msgs, compact.Message{Role: compact.RoleTool, ToolCallID: "c\xff", Content: "out: \x00needle\xff\xfe here"})
	_, _, err := st.Append(ctx, "agent-7", msgs...)
	require.NoError(t, err)
	for _, q := range []string{"needle", "NEEDLE", ": \x00needle", "needle\xff\xfe here"} {
		found, err := st.Search(ctx, "agent-7", q, 0, 0)
		require.NoError(t, err, "%q", q)
		require.Len(t, found, 1, "%q", q)
		assert.Equal(t, "out: \x00needle\xff\xfe here", found[0].Message.Content, "%q: the bytes as appended", q)
	}
	var rowid int64
	db := rawDB(t, st.Path())
	require.NoError(t, db.QueryRow(`SELECT rowid FROM message_text WHERE message_text MATCH '"needle"'`).Scan(&rowid),
		"the index itself holds the text")
	var indexed int64
	require.NoError(t, db.QueryRow(`SELECT indexed FROM search_index`).Scan(&indexed))
	assert.GreaterOrEqual(t, indexed, rowid)
}
