package session

import (
	"testing"

	"github.com/contextkit/compact"
	"github.com/stretchr/testify/require"
)

// FuzzAdopt gives RecordCompaction's check any indexes and account over a real
// history: it never panics, refuses only with ErrMismatch, and what it
// accepts is a valid history that keeps every message appended after the
// input, once and in order.
func FuzzAdopt(f *testing.F) {
	hist := agentHistory("fuzz", 6)
	sumMsg := compact.Message{Role: compact.RoleUser, Content: compact.PrefixSummary("The provider's summary.")}
	reply := compact.Message{Role: compact.RoleAssistant, Content: "Carrying on."}
	f.Add(len(hist), 1, 1, len(hist)-1, 2, true, uint8(0), 0)
	f.Add(len(hist)+1, 1, 1, len(hist), 0, true, uint8(1), 3)
	f.Add(3, -7, -1, -1, 1, false, uint8(2), -4)
	f.Add(0, 5, 9, 2, 2, true, uint8(3), 99)
	f.Fuzz(func(t *testing.T, before, at, from, to, appended int, account bool, fate uint8, output int) {
		appended = min(max(appended, 0), 2)
		in := append(compact.Clone(hist), []compact.Message{sumMsg, reply}[:appended]...)
		k := min(max(before, -1), len(hist))
		res := &compact.Result{
			Messages:       []compact.Message{hist[0], sumMsg, reply},
			MessagesBefore: before, SummaryIndex: at, SummarizedFrom: from, SummarizedTo: to,
		}
		if account && k > 0 {
			for j := 0; j < k; j++ {
				res.Account = append(res.Account, compact.MessageFate{Index: j, Fate: "folded", Output: 1})
			}
			res.Account[0].Fate = []string{"kept", "pruned", "lifted", "folded"}[fate%4]
			res.Account[0].Output = output
		}
		orig := compact.Clone(res.Messages)
		out, err := adopt(in, res)
		if err != nil {
			require.ErrorIs(t, err, ErrMismatch, "refused with another error")
			return
		}
		require.True(t, sameRun(orig, res.Messages), "adopt modified the Result it was given")
		if out.Skipped != "" {
			return
		}
		require.NoError(t, compact.Validate(out.Messages), "accepted a history that is no request")
		tail := in[res.MessagesBefore:]
		got := out.Messages[len(out.Messages)-len(tail):]
		require.False(t, len(out.Messages) < len(tail) || !sameRun(got, tail), "the %d messages appended after the input are not the history's end", len(tail))
	})
}
