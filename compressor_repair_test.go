package compact

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	openai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/contextkit/compact/internal/msgtest"
)

// readFileSession is the history of issue 35: a system prompt, a task, 12
// read_file calls with their 300-line results, an orphan result after the
// third pair and a user message at index 21.
func readFileSession() []Message {
	in := []Message{sys("You are a coding agent."), user("Review the package.")}
	for i := range 12 {
		id := fmt.Sprintf("call_%d", i)
		var out strings.Builder
		for l := range 300 {
			fmt.Fprintf(&out, "%d: line %d of file_%d.go\n", l, l, i)
		}
		in = append(in, call("", id, "read_file"), result(id, out.String()))
		if i == 2 {
			in = append(in, result("call_ghost", "an answer to nothing"))
		}
		if i == 8 {
			in = append(in, user("Also check b.go."))
		}
	}
	return in
}

// Under WithRepair every index a Result reports is the caller's, as the
// Account's are, although the repair dropped a message first: the range
// folds through the message Account folds through, Lifted names the user
// message, and every fate agrees with the ranges.
func TestRepairedResultIndexesTheInput(t *testing.T) {
	in := readFileSession()
	require.Equal(t, "Also check b.go.", in[21].Content)
	c := New(WithContextWindow(8000), WithRepair(true), WithTokenCounter(byteCounter{}))
	res, err := c.Compress(context.Background(), in, Force())
	require.NoError(t, err)
	require.Len(t, res.Repairs, 1)
	assert.Equal(t, 21, res.Lifted, "the user message, not the tool result the repaired history had there")
	assert.Equal(t, fateLifted, res.Account[21].Fate)
	lastFolded := -1
	for _, a := range res.Account {
		if a.Fate == fateFolded || a.Fate == fateCarried {
			lastFolded = a.Index
		}
	}
	assert.Equal(t, lastFolded, res.SummarizedTo, "the range ends where the account's folds do")
	assert.Equal(t, fateDropped, res.Account[8].Fate)
	require.NoError(t, checkAccount(in, res))
	for _, ch := range res.Pruned {
		assert.Equal(t, fatePruned, res.Account[ch.Index].Fate, "pruned message %d", ch.Index)
	}
	for _, i := range res.CarriedFrom {
		assert.Equal(t, fateCarried, res.Account[i].Fate, "carried message %d", i)
	}
}

// FuzzCompressRepaired: on random histories, valid or not, a forced
// compaction under WithRepair reports why it could not run or returns a
// valid history whose Result indexes the caller's messages: the account
// covers every input message once and agrees with the ranges.
func FuzzCompressRepaired(f *testing.F) {
	msgtest.Seeds(f)
	f.Add([]byte{0, 1, 4, 5, 5, 1, 4, 12, 3, 1, 4, 12, 3, 2, 3, 1, 3, 2, 3, 1})
	f.Fuzz(func(t *testing.T, data []byte) {
		data = knownRoles(data[:min(len(data), maxFuzzMessages)])
		in := randomHistory(data)
		if len(in) == 0 {
			return
		}
		if work, _ := RepairToolPairs(in); Validate(work) != nil {
			return // broken beyond pairing: refused, as Validate says
		}
		c := New(WithContextWindow(400), WithTokenCounter(byteCounter{}), WithRepair(true), WithHeadMessages(int(data[0]%4)))
		for _, opts := range [][]CompressOption{{Force()}, nil} {
			res, err := c.Compress(context.Background(), in, opts...)
			if err != nil {
				require.True(t, errors.Is(err, ErrNothingToCompress) || errors.Is(err, ErrNoSavings), "unexpected error: %v", err)
				continue
			}
			require.NoError(t, Validate(res.Messages))
			require.NoError(t, checkAccount(in, res), "in: %s\nout: %s", roles(in), roles(res.Messages))
			require.NoError(t, checkUserFirst(in, res))
		}
	})
}

// A repair that removes an unanswered call, or writes a placeholder, or
// merges the turn after a message into it, does not leave that message
// "kept": its fate says it was repaired, and how.
func TestRepairedMessagesAreNotKept(t *testing.T) {
	noID := Message{Role: RoleAssistant, ToolCalls: []openai.ToolCall{{Type: openai.ToolTypeFunction, Function: openai.FunctionCall{Name: "bash"}}}}
	in := []Message{
		sys("s"),
		user("start"),
		call("", "c1", "bash"), // never answered
		user("go on"),
		noID,                              // its call has no id
		result("", "a result with no id"), // answers nothing
		asst("done"),
	}
	c := New(WithRepair(true), WithTokenCounter(byteCounter{}))
	res, err := c.Compress(context.Background(), in) // far under the threshold: the repair alone
	require.NoError(t, err)
	require.Empty(t, res.Skipped)
	fates := map[int]MessageFate{}
	for _, a := range res.Account {
		fates[a.Index] = a
	}
	for _, i := range []int{2, 4} {
		a := fates[i]
		assert.Equal(t, fateRepaired, a.Fate, "message %d", i)
		assert.Equal(t, "removed unanswered tool call", a.Repair.String(), "message %d", i)
		assert.True(t, strings.HasPrefix(Text(res.Messages[a.Output]), "[tool call removed: it was never answered]"), "message %d", i)
	}
	assert.Equal(t, fateDropped, fates[5].Fate)
	assert.Equal(t, fateMerged, fates[6].Fate, "the removal brought two assistant turns together")
	assert.Equal(t, fateKept, fates[1].Fate)
	require.NoError(t, checkAccount(in, res))
}

// Under the threshold, a history WithRepair had to repair is not skipped:
// the caller gets the repair, with the account of what it did, and the
// engine counts no compaction. One that needs no repair is skipped and
// comes back as it was.
func TestARepairUnderTheThresholdIsReportedAsARepair(t *testing.T) {
	c := New(WithRepair(true))
	in := []Message{{Role: RoleTool, ToolCallID: "ghost", Content: "x"}, asst("ok")}
	res, err := c.Compress(context.Background(), in)
	require.NoError(t, err)
	assert.Empty(t, res.Skipped, "a repair is not a skip")
	assert.Equal(t, []Message{asst("ok")}, res.Messages)
	assert.Equal(t, 2, res.MessagesBefore)
	require.Len(t, res.Repairs, 1)
	require.Len(t, res.Account, 2)
	assert.Equal(t, fateDropped, res.Account[0].Fate)
	assert.Equal(t, MessageFate{Index: 1, Role: RoleAssistant, Tokens: res.Account[1].Tokens, Fate: fateKept, Output: 0}, res.Account[1])
	assert.Equal(t, -1, res.SummaryIndex)
	assert.Zero(t, c.Status().Compressions)
	require.NoError(t, checkAccount(in, res))

	valid := []Message{user("hi"), asst("ok")}
	res, err = c.Compress(context.Background(), valid)
	require.NoError(t, err)
	assert.NotEmpty(t, res.Skipped)
	assert.Nil(t, res.Account)
	assert.Equal(t, valid, res.Messages)
}
