package session

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/contextkit/compact"
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
		if checkSessionID(id) == nil && seq > 0 {
			sid := SnapshotID(id, seq)
			gotID, gotSeq, ok := ParseSnapshotID(sid)
			if !ok || gotID != id || gotSeq != seq {
				t.Fatalf("ParseSnapshotID(%q) = %q, %d, %v; want %q, %d", sid, gotID, gotSeq, ok, id, seq)
			}
			if checkSessionID(sid) == nil {
				t.Fatalf("snapshot id %q is accepted as a live session id", sid)
			}
		}
		if gotID, gotSeq, ok := ParseSnapshotID(id); ok && SnapshotID(gotID, gotSeq) != id {
			t.Fatalf("ParseSnapshotID accepted %q, which SnapshotID writes as %q", id, SnapshotID(gotID, gotSeq))
		}
	})
}

func TestMemoryStore(t *testing.T) {
	ctx := context.Background()
	st := NewMemoryStore()

	got, err := st.Load(ctx, "agent-1")
	require.NoError(t, err)
	assert.Nil(t, got, "nothing stored yet")

	in := []compact.Message{partsMsg(compact.RoleUser, "first"), asst("second")}
	require.NoError(t, st.Save(ctx, "agent-1", in))
	in[0].MultiContent[0].Text = "changed after Save"
	got, err = st.Load(ctx, "agent-1")
	require.NoError(t, err)
	assert.Equal(t, "first", got[0].MultiContent[0].Text, "Save copies")
	got[0].MultiContent[0].Text = "changed after Load"
	again, err := st.Load(ctx, "agent-1")
	require.NoError(t, err)
	assert.Equal(t, "first", again[0].MultiContent[0].Text, "Load copies")

	for i := 1; i <= 3; i++ {
		sid, err := st.SaveSnapshot(ctx, "agent-1", []compact.Message{user(fmt.Sprint("snapshot ", i))})
		require.NoError(t, err)
		assert.Equal(t, SnapshotID("agent-1", i), sid)
	}
	snaps, err := st.Snapshots(ctx, "agent-1")
	require.NoError(t, err)
	assert.Equal(t, []string{"agent-1~snapshot-1", "agent-1~snapshot-2", "agent-1~snapshot-3"}, snaps)
	second, err := st.Load(ctx, snaps[1])
	require.NoError(t, err)
	assert.Equal(t, "snapshot 2", second[0].Content)
	live, err := st.Load(ctx, "agent-1")
	require.NoError(t, err)
	assert.Len(t, live, 2, "snapshots never touch the live history")
	missing, err := st.Load(ctx, SnapshotID("agent-1", 9))
	require.NoError(t, err)
	assert.Nil(t, missing)

	err = st.Save(ctx, snaps[0], []compact.Message{user("promoted?")})
	assert.ErrorIs(t, err, ErrInvalidID, "a snapshot is never written as a live history")
	_, err = st.SaveSnapshot(ctx, "", nil)
	assert.ErrorIs(t, err, ErrInvalidID)

	require.NoError(t, st.Save(ctx, "agent-1", nil))
	live, err = st.Load(ctx, "agent-1")
	require.NoError(t, err)
	assert.Nil(t, live)

	done, cancel := context.WithCancel(ctx)
	cancel()
	_, err = st.Load(done, "agent-1")
	assert.ErrorIs(t, err, context.Canceled)
	assert.ErrorIs(t, st.Save(done, "agent-1", nil), context.Canceled)
	_, err = st.SaveSnapshot(done, "agent-1", nil)
	assert.ErrorIs(t, err, context.Canceled)
	_, err = st.Snapshots(done, "agent-1")
	assert.ErrorIs(t, err, context.Canceled)
}

func TestMemoryStoreIsSafeForConcurrentUse(t *testing.T) {
	ctx := context.Background()
	st := NewMemoryStore()
	const goroutines, each = 8, 25
	var wg sync.WaitGroup
	for g := 0; g < goroutines; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			id := fmt.Sprint("agent-", g%2)
			for i := 0; i < each; i++ {
				_, err := st.SaveSnapshot(ctx, id, []compact.Message{user(fmt.Sprint(g, " ", i))})
				assert.NoError(t, err)
				assert.NoError(t, st.Save(ctx, id, []compact.Message{user("live")}))
				_, err = st.Load(ctx, id)
				assert.NoError(t, err)
			}
		}(g)
	}
	wg.Wait()
	for _, id := range []string{"agent-0", "agent-1"} {
		snaps, err := st.Snapshots(ctx, id)
		require.NoError(t, err)
		require.Len(t, snaps, goroutines/2*each, "no snapshot overwritten")
		seen := map[string]bool{}
		for _, sid := range snaps {
			msgs, err := st.Load(ctx, sid)
			require.NoError(t, err)
			require.Len(t, msgs, 1)
			assert.False(t, seen[msgs[0].Content])
			seen[msgs[0].Content] = true
			assert.True(t, strings.Contains(sid, id+SnapshotMarker))
		}
	}
}
