package compact

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/contextkit/compact/internal/msg"
)

// chat is a plain chat of n exchanges whose turns take about size bytes,
// after a system prompt, then a short one: it ends with the assistant's
// answer, and the protected tail starts on the user's short question.
func chat(n, size int) []Message {
	in := []Message{sys("You are a helpful assistant.")}
	for i := range n {
		in = append(in, user(fmt.Sprintf("question %d %s", i, strings.Repeat("q", size))),
			asst(fmt.Sprintf("answer %d %s", i, strings.Repeat("a", size))))
	}
	return append(in, user("And the last one?"), asst("Done."))
}

// firstTurn is the first message of msgs after the system messages.
func firstTurn(t *testing.T, msgs []Message) Message {
	t.Helper()
	for _, m := range msgs {
		if !msg.IsSystem(m) {
			return m
		}
	}
	require.Fail(t, "no turn after the system messages")
	return Message{}
}

// The first message after the system prompt that a compaction hands back
// is a user turn (contract 10), in the three shapes where the summary used
// to open the history as an assistant turn: a compaction of a compacted
// history (the head has decayed to the system prompt), a first compaction
// that keeps no head, and a small window whose history ends with an
// assistant turn. The summary is merged in front of the user turn after
// it; IsSummary and IsRealUser both recognise the message, and compacting
// again yields one summary.
func TestTheFirstTurnIsTheUsers(t *testing.T) {
	ctx := context.Background()
	newC := func(opts ...Option) *Compressor {
		return New(append([]Option{WithTokenCounter(byteCounter{}), WithContextWindow(16000)}, opts...)...)
	}
	c := newC()
	first, err := c.Compress(ctx, chat(12, 1000), Force())
	require.NoError(t, err)
	require.Equal(t, RoleUser, first.Messages[1].Role, "the head keeps the task")
	grown := append(Clone(first.Messages), chat(5, 1000)[1:]...)
	pasted := chat(12, 1000)
	pasted[1] = user("Here is the file:\n" + strings.Repeat("x", 3000)) // longer than the head may keep
	tests := []struct {
		name string
		c    *Compressor
		in   []Message
	}{
		{"compacted again", c, grown},
		{"no head", newC(WithHeadMessages(0)), chat(12, 1000)},
		{"a 4k window ending with an answer", newC(WithContextWindow(4000)), pasted},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := tt.c.Compress(ctx, tt.in, Force())
			require.NoError(t, err)
			require.NoError(t, checkContracts(tt.in, res), "%s", roles(res.Messages))
			m := firstTurn(t, res.Messages)
			assert.Equal(t, RoleUser, m.Role, "%s", roles(res.Messages))
			require.Equal(t, m, res.Messages[res.SummaryIndex], "the summary opens the history")
			assert.True(t, IsSummary(m) && IsRealUser(m), "a summary merged in front of a real user turn")
			_, own, _ := msg.SplitMerged(m)
			assert.True(t, containsEqual(tt.in, own), "the user turn's own content, verbatim")

			again, err := tt.c.Compress(ctx, append(Clone(res.Messages), chat(4, 1000)[1:]...), Force())
			require.NoError(t, err)
			assert.Equal(t, 1, countSummaries(again.Messages), "one summary, never a stack")
			assert.Equal(t, RoleUser, firstTurn(t, again.Messages).Role)
		})
	}
}

// WithUserFirst(false) keeps the shape of earlier versions: the summary an
// assistant turn of its own before the user turn.
func TestWithUserFirstFalseKeepsTheAssistantSummary(t *testing.T) {
	c := New(WithTokenCounter(byteCounter{}), WithContextWindow(16000), WithHeadMessages(0), WithUserFirst(false))
	in := chat(12, 1000)
	res, err := c.Compress(context.Background(), in, Force())
	require.NoError(t, err)
	require.NoError(t, Validate(res.Messages))
	require.NoError(t, checkAccount(in, res))
	m := firstTurn(t, res.Messages)
	assert.Equal(t, RoleAssistant, m.Role)
	assert.True(t, msg.IsStandaloneSummary(m))
	assert.Equal(t, RoleUser, res.Messages[res.SummaryIndex+1].Role)
	for _, a := range res.Account {
		if a.Fate == fateKept || a.Fate == fateLifted {
			assert.NotEqual(t, res.SummaryIndex, a.Output, "the summary shares its message with no kept message")
		}
	}
}

// "/compress here N", "summarize up to here" and "summarize from here"
// hand back a history that opens on a user turn too, through the
// Compressor's range ability and through any other engine.
func TestPartialCompactionsOpenOnAUserTurn(t *testing.T) {
	ctx := context.Background()
	in := chat(12, 600)
	newC := func() *Compressor { return New(WithTokenCounter(byteCounter{}), WithContextWindow(4000)) }
	for _, e := range []ContextEngine{newC(), plainEngine{newC()}} {
		here, err := CompressHere(ctx, e, in, 2)
		require.NoError(t, err)
		assert.Equal(t, RoleUser, firstTurn(t, here.Messages).Role, "here (%T): %s", e, roles(here.Messages))
		_, tail, _ := SplitExchanges(in, 2)
		require.NoError(t, checkKept(in, tail, here))

		before, err := CompressBefore(ctx, e, in, 15)
		require.NoError(t, err)
		assert.Equal(t, RoleUser, firstTurn(t, before.Messages).Role, "before (%T): %s", e, roles(before.Messages))
		_, tail, _ = SplitAt(in, 15)
		require.NoError(t, checkKept(in, tail, before))
	}
	from, err := CompressFrom(ctx, newC(), in, 1)
	require.NoError(t, err)
	assert.Equal(t, RoleUser, firstTurn(t, from.Messages).Role, "from: %s", roles(from.Messages))
	require.NoError(t, checkFrom(in, 1, from))
}
