package compact

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/contextkit/compact/internal/msg"
	"github.com/contextkit/compact/internal/msgtest"
	"github.com/stretchr/testify/require"
)

// checkContracts asserts the DESIGN.md contracts on one compaction of in
// into res. It returns the first broken contract, or nil.
func checkContracts(in []Message, res *Result) error {
	out := res.Messages
	if err := Validate(out); err != nil {
		return fmt.Errorf("output invalid: %w", err)
	}
	for i := 1; i < len(out); i++ {
		// Pruning alone changes messages in place, so a pair it leaves is
		// the input's own.
		inPlace := res.SummaryIndex < 0 && i < len(in) && msg.Clashes(in[i-1], in[i])
		if msg.Clashes(out[i-1], out[i]) && !hasSeam(in, out[i-1], out[i]) && !inPlace {
			return fmt.Errorf("compaction created a %s-%s pair at %d: %s", out[i-1].Role, out[i].Role, i, roles(out))
		}
	}
	if len(in) > 0 && msg.IsSystem(in[0]) {
		if out[0].Role != in[0].Role || !strings.HasPrefix(Text(out[0]), Text(in[0])) ||
			strings.Count(Text(out[0]), CompactionNote) > 1 {
			return errors.New("system prompt changed")
		}
	}
	// The final message comes back last, verbatim, unless it is an earlier
	// summary (compaction never ends a history on one; another tool might):
	// that is folded into the new summary.
	// (It may carry the new summary in front of it: see WithUserFirst.)
	if last := in[len(in)-1]; !IsSummary(last) && !hasMergedSummary(in) && !reflect.DeepEqual(out[len(out)-1], last) &&
		!isSharedWith(out[len(out)-1], last) {
		return errors.New("final message not verbatim at the end")
	}
	// The latest real user message comes back verbatim: as it was, or as it
	// was before another tool merged a summary into it.
	if u := msg.LastIndex(in, 0, IsRealUser); u >= 0 {
		_, own, _ := msg.SplitMerged(in[u])
		if !containsEqual(out, in[u]) && !containsEqual(out, own) {
			return fmt.Errorf("latest real user message %d lost", u)
		}
	}
	if err := checkUserFirst(in, res); err != nil {
		return err
	}
	pruned := make(map[int]bool, len(res.Pruned))
	for _, c := range res.Pruned {
		if c.Index < 0 || c.Index >= len(in) || pruned[c.Index] || (c.TokensBefore-c.TokensAfter) <= 0 {
			return fmt.Errorf("bad pruning report %+v", c)
		}
		pruned[c.Index] = true
	}
	for i, m := range in {
		if (i < res.SummarizedFrom || i > res.SummarizedTo) && i > 0 && !containsEqual(out, m) && !pruned[i] {
			return fmt.Errorf("message %d is neither in the output nor in the summarised range nor reported pruned", i)
		}
	}
	if err := checkAccount(in, res); err != nil {
		return err
	}
	if res.Skipped != "" {
		// Nothing was done: the history comes back as it went in.
		if !reflect.DeepEqual(in, res.Messages) || res.TokensAfter != res.TokensBefore || res.SummaryIndex != -1 ||
			len(res.Pruned) > 0 {
			return fmt.Errorf("a skipped compaction changed the history: %+v", res)
		}
		return nil
	}
	if res.SummaryIndex < 0 {
		if err := checkPruneOnly(in, res); err != nil {
			return err
		}
	} else if n := countSummaries(out); n != 1 {
		return fmt.Errorf("%d summaries in the output", n)
	}
	if res.TokensAfter >= res.TokensBefore {
		return fmt.Errorf("grew: %d -> %d tokens", res.TokensBefore, res.TokensAfter)
	}
	return nil
}

// checkPruneOnly checks a compaction that pruning alone achieved: no
// summary range, no summarizer, every message in place with its role and
// tool pairing, and exactly the reported messages changed.
func checkPruneOnly(in []Message, res *Result) error {
	out := res.Messages
	if res.SummarizedFrom != -1 || res.SummarizedTo != -1 || res.Summarizer != "" || res.Summary != "" || len(res.Pruned) == 0 {
		return fmt.Errorf("prune-only result reports a summary: %+v", res)
	}
	if len(out) < len(in) || countSummaries(out) != countSummaries(in) {
		return fmt.Errorf("prune-only result has %d messages and %d summaries for %d and %d",
			len(out), countSummaries(out), len(in), countSummaries(in))
	}
	reported := map[int]bool{}
	for _, c := range res.Pruned {
		reported[c.Index] = true
	}
	for i := range in {
		if !msgtest.SamePairing(in[i], out[i]) {
			return fmt.Errorf("message %d changed its role or tool pairing", i)
		}
		if changed := !msg.EqualMessage(in[i], out[i]); changed != reported[i] {
			return fmt.Errorf("message %d: changed %v, reported %v", i, changed, reported[i])
		}
	}
	return nil
}

// hasMergedSummary reports whether a summary in msgs shares its message
// with other content (tool calls, a real turn). Compaction never writes one;
// another tool might. Such a message is folded into the new summary with
// everything it carries, including the results of its calls, so the final
// message may be folded too.
func hasMergedSummary(msgs []Message) bool {
	for _, m := range msgs {
		if IsSummary(m) && !msg.IsStandaloneSummary(m) {
			return true
		}
	}
	return false
}

// hasSeam reports whether a and b (either maybe with the summary merged
// in front of it) are neighbours in in already.
func hasSeam(in []Message, a, b Message) bool {
	same := func(m, o Message) bool { return msg.EqualMessage(m, o) || isSharedWith(o, m) }
	for i := 1; i < len(in); i++ {
		if same(in[i-1], a) && same(in[i], b) {
			return true
		}
	}
	return false
}

// containsEqual reports whether msgs hold m, as it is or with a summary
// merged in front of it (see WithUserFirst).
func containsEqual(msgs []Message, m Message) bool {
	for _, o := range msgs {
		if msg.EqualMessage(o, m) || isSharedWith(o, m) {
			return true
		}
	}
	return false
}

// checkUserFirst asserts contract 10: a summary that opens the history
// (after the system messages) is a user turn of its own or shares the user
// turn after it, and a history that opened on a user turn still does.
func checkUserFirst(in []Message, res *Result) error {
	first := func(msgs []Message) int {
		i := 0
		for i < len(msgs) && msg.IsSystem(msgs[i]) {
			i++
		}
		return i
	}
	out := res.Messages
	f := first(out)
	if f == len(out) || out[f].Role == RoleUser {
		return nil
	}
	if f == res.SummaryIndex {
		return fmt.Errorf("the summary opens the history as a %s turn: %s", out[f].Role, roles(out))
	}
	if g := first(in); g < len(in) && in[g].Role == RoleUser {
		return fmt.Errorf("the history opened on a user turn, its compaction on a %s turn: %s", out[f].Role, roles(out))
	}
	return nil
}

func countSummaries(msgs []Message) int {
	n := 0
	for _, m := range msgs {
		if IsSummary(m) {
			n++
		}
	}
	return n
}

// Every transcript, compacted at several small windows and then compacted
// again, keeps every contract; the input is never modified and the output
// is the same each time.
func TestCompressPropertiesOnTranscripts(t *testing.T) {
	all := allTranscripts(t)
	for _, name := range sortedNames(all) {
		in := all[name]
		for _, window := range []int{3000, 8000, 16000} {
			t.Run(fmt.Sprintf("%s/%d", name, window), func(t *testing.T) {
				before := Clone(in)
				c := New(WithContextWindow(window), WithTokenCounter(byteCounter{}))
				res, err := c.Compress(context.Background(), in, Force())
				if errors.Is(err, ErrNothingToCompress) || errors.Is(err, ErrNoSavings) {
					t.Skip(err)
				}
				require.NoError(t, err)
				require.NoError(t, checkContracts(in, res), "first pass")
				require.True(t, reflect.DeepEqual(before, in), "input modified")
				again, err := New(WithContextWindow(window), WithTokenCounter(byteCounter{})).Compress(context.Background(), in, Force())
				require.NoError(t, err, "not deterministic")
				require.True(t, reflect.DeepEqual(again.Messages, res.Messages), "not deterministic")
				second, err := c.Compress(context.Background(), res.Messages, Force())
				if errors.Is(err, ErrNothingToCompress) || errors.Is(err, ErrNoSavings) {
					return
				}
				require.NoError(t, err, "second pass")
				require.NoError(t, checkContracts(res.Messages, second), "second pass")
			})
		}
	}
}

// FuzzCompress: on random valid histories, a forced compaction either
// reports why it could not run or keeps every contract.
func FuzzCompress(f *testing.F) {
	msgtest.Seeds(f)
	f.Add([]byte{0, 1, 4, 12, 3, 1, 4, 12, 3, 1, 4, 12, 3, 2, 3, 1, 3, 2, 3, 1})
	f.Fuzz(func(t *testing.T, data []byte) {
		data = knownRoles(data[:min(len(data), maxFuzzMessages)])
		in, _ := RepairToolPairs(withSummary(data, randomHistory(data)))
		if Validate(in) != nil || len(in) == 0 {
			return
		}
		opts := []Option{WithContextWindow(400), WithTokenCounter(byteCounter{}), WithHeadMessages(int(data[0] % 4))}
		// Without prices, with them (the note in the summary, pruning by
		// its cost), and in economy mode.
		switch data[0] / 4 % 3 {
		case 1:
			opts = append(opts, WithModel("claude-sonnet-4-5"))
		case 2:
			opts = append(opts, WithModel("gpt-5"), WithEconomy(true))
		}
		compressAndCheck(t, New(opts...), in, Force())
	})
}

// compressAndCheck compacts in and fails t unless the input is untouched
// and the compaction either reports why it could not run or keeps every
// contract.
func compressAndCheck(t *testing.T, c *Compressor, in []Message, opts ...CompressOption) {
	t.Helper()
	before := Clone(in)
	res, err := c.Compress(context.Background(), in, opts...)
	require.True(t, reflect.DeepEqual(before, in), "input modified")
	if err != nil {
		require.True(t, errors.Is(err, ErrNothingToCompress) || errors.Is(err, ErrNoSavings), "unexpected error: %v", err)
		return
	}
	require.NoError(t, checkContracts(in, res), "in:  %s\nout: %s", roles(in), roles(res.Messages))
}
