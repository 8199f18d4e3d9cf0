package sqlitestore_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/session/internal/searchpart"
	"github.com/contextkit/compact/session/sqlitestore"
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
	msgs := make([]compact.Message, 300) // past the lag a search indexes
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
	db := rawDB(t, st.Path())
	var rowid, indexed int64
	require.NoError(t, db.QueryRow(`SELECT rowid FROM message_search WHERE message_search MATCH '"nee" AND "dle"'`).Scan(&rowid),
		"the index itself holds the text")
	require.NoError(t, db.QueryRow(`SELECT indexed FROM sessions WHERE id = 'agent-7'`).Scan(&indexed))
	assert.EqualValues(t, 301, indexed)
}

// Two sessions whose tags in the index are the same (the tag is a hash of
// the id) still find only their own records; and a record holding every
// trigram of a text, but not the text, is not found (the index keeps no
// positions: the search checks each candidate).
func TestSearchIsExactWhateverTheIndexKeeps(t *testing.T) {
	ctx := context.Background()
	st := openTemp(t)
	a, b := tagTwins(t)
	for _, id := range []string{a, b} {
		msgs := make([]compact.Message, 300) // past the lag a search indexes
		for i := range msgs {
			msgs[i] = compact.Message{Role: compact.RoleUser, Content: fmt.Sprintf("%s says: abc xbcd, step %d", id, i)}
		}
		msgs[42].Content = id + " says: abcd"
		_, _, err := st.Append(ctx, id, msgs...)
		require.NoError(t, err)
	}
	for _, id := range []string{a, b} {
		found, err := st.Search(ctx, id, "ABCD", 0, 0)
		require.NoError(t, err)
		require.Len(t, found, 1, "%s: only the record that holds the text", id)
		assert.EqualValues(t, 43, found[0].Seq)
		assert.Equal(t, id+" says: abcd", found[0].Message.Content, "and only the session's own")
	}
}

// tagTwins returns two session ids whose tags in the index are the same.
func tagTwins(t *testing.T) (string, string) {
	seen := map[string]string{}
	for i := 0; i < 1<<22; i++ {
		id := fmt.Sprintf("agent-%d", i)
		tag := sqlitestore.Tag(id)
		if other, ok := seen[tag]; ok {
			return other, id
		}
		seen[tag] = id
	}
	t.Fatal("no two ids share a tag")
	return "", ""
}

// The index is kept session by session, by searches: a session never
// searched is not in it, and appends do not index.
func TestOnlySearchedSessionsAreIndexed(t *testing.T) {
	ctx := context.Background()
	st := openTemp(t)
	msgs := make([]compact.Message, 300)
	for i := range msgs {
		msgs[i] = compact.Message{Role: compact.RoleUser, Content: fmt.Sprintf("step %d", i)}
	}
	for _, id := range []string{"agent-1", "agent-2"} {
		_, _, err := st.Append(ctx, id, msgs...)
		require.NoError(t, err)
	}
	db := rawDB(t, st.Path())
	rows := func() (n int) {
		require.NoError(t, db.QueryRow(`SELECT count(*) FROM message_search`).Scan(&n))
		return n
	}
	require.Zero(t, rows(), "appends index nothing")
	found, err := st.Search(ctx, "agent-1", "STEP 29", 0, 0)
	require.NoError(t, err)
	assert.Len(t, found, 11, "step 29, 290..299")
	assert.Equal(t, 300, rows(), "the searched session's records, and no other's")
}

// A long text is indexed in pieces: a text that straddles the boundary of
// two pieces, one as long as the pieces' overlap, and one longer than a
// piece could hold whole are all found, each record once and in order, as
// in a text never cut.
func TestSearchFindsTextAcrossThePiecesOfALongText(t *testing.T) {
	ctx := context.Background()
	st := openTemp(t)
	long := func(at int, lit string) string {
		b := []byte(strings.Repeat("lorem ipsum dolor sit amet ", 2*searchpart.Size/27))
		copy(b[at:], lit)
		return string(b)
	}
	straddle := "AssertionError: boundary"
	overlap := strings.Repeat("q", searchpart.Overlap-len("KeyError: ")) + "KeyError: "
	longer := strings.Repeat("TypeError: wide ", 40)
	step := searchpart.Size - searchpart.Overlap
	msgs := make([]compact.Message, 300) // past the lag a search indexes
	for i := range msgs {
		msgs[i] = compact.Message{Role: compact.RoleUser, Content: fmt.Sprintf("filler %d", i)}
	}
	msgs[10].Content = long(searchpart.Size-len(straddle)/2, straddle)     // across the end of piece 0
	msgs[20].Content = long(step-len(straddle)/2, straddle)                // across the start of piece 1
	msgs[30].Content = long(searchpart.Size-searchpart.Overlap, overlap)   // exactly the overlap
	msgs[40].Content = long(step+1, overlap)                               // just past it
	msgs[50].Content = long(searchpart.Size-len(longer)/2, longer)         // longer than the overlap
	msgs[60].Content = long(0, straddle) + straddle + long(step, straddle) // in many pieces of one text
	_, _, err := st.Append(ctx, "agent-1", msgs...)
	require.NoError(t, err)
	for _, c := range []struct {
		q    string
		seqs []int64
	}{
		{"assertionerror: BOUNDARY", []int64{11, 21, 61}},
		{overlap, []int64{31, 41}},
		{longer, []int64{51}},
	} {
		found, err := st.Search(ctx, "agent-1", c.q, 0, 0)
		require.NoError(t, err, "%.40q", c.q)
		var seqs []int64
		for _, r := range found {
			seqs = append(seqs, r.Seq)
		}
		assert.Equal(t, c.seqs, seqs, "%.40q", c.q)
		found, err = st.Search(ctx, "agent-1", c.q, c.seqs[0], 1)
		require.NoError(t, err, "%.40q", c.q)
		if len(c.seqs) > 1 {
			require.Len(t, found, 1, "%.40q after its first", c.q)
			assert.Equal(t, c.seqs[1], found[0].Seq, "%.40q after its first", c.q)
		}
	}
	db := rawDB(t, st.Path())
	var rows int
	require.NoError(t, db.QueryRow(`SELECT count(*) FROM message_search`).Scan(&rows))
	assert.Greater(t, rows, 300+6, "the long texts are in pieces")

	// Deleting the session deletes every piece.
	require.NoError(t, st.Delete(ctx, "agent-1"))
	require.NoError(t, db.QueryRow(`SELECT count(*) FROM message_search WHERE message_search MATCH '"ass" AND "ert" AND "ion"'`).Scan(&rows))
	assert.Zero(t, rows, "pieces left in the index")
}
