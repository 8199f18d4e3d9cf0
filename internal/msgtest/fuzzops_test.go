package msgtest

import (
	"testing"

	"github.com/contextkit/compact/internal/msg"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSplitOpsKeepsAnInputWithoutOpsWhole(t *testing.T) {
	body, ops := SplitOps([]byte(`[{"role":"user"}]`))
	assert.Equal(t, `[{"role":"user"}]`, string(body))
	assert.Empty(t, ops)
	body, ops = SplitOps(WithOps(`[]`, OpReuseID, 3))
	assert.Equal(t, `[]`, string(body))
	assert.Equal(t, []byte{OpReuseID, 3}, ops)
}

func TestMutateMessagesReachesWhatJSONCannotSay(t *testing.T) {
	in := []Message{User("q"), Call("", "c1", "f"), Result("c1", "a"), User("again"), Call("", "c2", "f"), Result("c2", "b")}
	before := msg.Clone(in)

	out := MutateMessages(in, []byte{OpReuseID, 3})
	assert.Equal(t, before, in, "the input is not modified")
	assert.Equal(t, "c1", out[4].ToolCalls[0].ID, "the later call takes the earlier id")
	assert.Equal(t, "c1", out[5].ToolCallID, "and so does its result")
	require.NoError(t, msg.Validate(out), "the history stays valid")

	out = MutateMessages(in, []byte{OpBothContents, 0})
	assert.NotEmpty(t, out[0].Content)
	assert.NotEmpty(t, out[0].MultiContent, "a message with both contents")
	assert.Error(t, msg.Validate(out))
}

func TestPartAtCountsPartsOverTheHistory(t *testing.T) {
	sizes := []int{1, 0, 3}
	size := func(k int) int { return sizes[k] }
	var got [][2]int
	for where := range 5 {
		k, i, ok := PartAt(len(sizes), size, where)
		require.True(t, ok)
		got = append(got, [2]int{k, i})
	}
	assert.Equal(t, [][2]int{{0, 0}, {2, 0}, {2, 1}, {2, 2}, {0, 0}}, got)
	_, _, ok := PartAt(2, func(int) int { return 0 }, 3)
	assert.False(t, ok)
}
