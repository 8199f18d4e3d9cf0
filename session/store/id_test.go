package store

import (
	"testing"

	"github.com/contextkit/compact/internal/msgtest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSnapshotIDs(t *testing.T) {
	assert.Equal(t, "agent-7~snapshot-3", SnapshotID("agent-7", 3))
	id, seq, ok := ParseSnapshotID("agent-7~snapshot-3")
	assert.True(t, ok)
	assert.Equal(t, "agent-7", id)
	assert.Equal(t, 3, seq)

	for _, s := range []string{
		"agent-7",              // a live id
		"agent-7~snapshot-",    // no number
		"agent-7~snapshot-03",  // not as SnapshotID writes it
		"agent-7~snapshot-0",   // sequences start at 1
		"agent-7~snapshot-3a",  // not a number
		"~snapshot-3",          // no session id
		"a\nb~snapshot-3",      // not a valid session id
		"agent-7~snapshot--3",  // negative
		"agent-7~snapshot- 3",  // space
		"agent-7~snapshot-1~x", // trailing text
	} {
		_, _, ok := ParseSnapshotID(s)
		assert.False(t, ok, "%q", s)
	}
}

// FuzzSnapshotID checks that a snapshot id round-trips, is never a valid
// live id, and that ParseSnapshotID accepts only what SnapshotID makes.
func FuzzSnapshotID(f *testing.F) {
	f.Add("agent-7", 1)
	f.Add("a~snapshot", 12)
	f.Add("x~snapshot-1", 2)
	f.Add("用户", 99)
	f.Fuzz(func(t *testing.T, id string, seq int) {
		if CheckID(id) == nil && seq > 0 {
			sid := SnapshotID(id, seq)
			gotID, gotSeq, ok := ParseSnapshotID(sid)
			require.True(t, ok && gotID == id && gotSeq == seq, "ParseSnapshotID(%s) = %s, %d, %v; want %s, %d",
				msgtest.Excerpt(sid), msgtest.Excerpt(gotID), gotSeq, ok, msgtest.Excerpt(id), seq)
			require.Error(t, CheckID(sid), "snapshot id %s is accepted as a live session id", msgtest.Excerpt(sid))
		}
		gotID, gotSeq, ok := ParseSnapshotID(id)
		require.False(t, ok && SnapshotID(gotID, gotSeq) != id, "ParseSnapshotID accepted %s, which SnapshotID writes as %s",
			msgtest.Excerpt(id), msgtest.Excerpt(SnapshotID(gotID, gotSeq)))
	})
}
