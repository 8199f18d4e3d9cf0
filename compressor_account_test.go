package compact

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/contextkit/compact/internal/msg"
	"github.com/contextkit/compact/internal/sharedtest"
)

// checkAccount asserts that res.Account covers every message of in exactly
// once, in order, and that each fate agrees with r's ranges and with the
// message's place in r.Messages.
func checkAccount(in []Message, res *Result) error {
	acc := res.Account
	if res.Skipped != "" {
		if acc != nil {
			return fmt.Errorf("account of a skipped compaction: %d entries", len(acc))
		}
		return nil
	}
	if len(acc) != len(in) {
		return fmt.Errorf("account: %d entries for %d messages", len(acc), len(in))
	}
	out := res.Messages
	pruned := map[int]bool{}
	for _, c := range res.Pruned {
		pruned[c.Index] = true
	}
	inRange := func(i int) bool { return i >= res.SummarizedFrom && i <= res.SummarizedTo }
	taken := map[int]int{} // output index -> input index placed there
	summarised, carried := 0, 0
	for i, a := range acc {
		if a.Index != i || a.Role != in[i].Role || a.Tokens <= 0 {
			return fmt.Errorf("account %d: describes %+v", i, a)
		}
		if (a.Fate == fatePruned) != pruned[i] && a.Fate != fateShort {
			return fmt.Errorf("account %d: fate %s, but pruned is %v", i, a.Fate, pruned[i])
		}
		switch a.Fate {
		case fateKept, fatePruned, fateLifted, fateShort, fateRepaired:
			// The summary's message is the turn after it too, when the
			// summary is merged in front of it (WithUserFirst).
			shared := a.Output == res.SummaryIndex && !msg.IsStandaloneSummary(out[a.Output])
			if a.Output < 0 || a.Output >= len(out) || a.Output == res.SummaryIndex && !shared {
				return fmt.Errorf("account %d: %s to output %d of %d", i, a.Fate, a.Output, len(out))
			}
			if prev, ok := taken[a.Output]; ok {
				return fmt.Errorf("account %d and %d: both placed at output %d", prev, i, a.Output)
			}
			taken[a.Output] = i
		}
		switch a.Fate {
		case fateKept:
			if inRange(i) {
				return fmt.Errorf("account %d: kept, inside the summarised range %d-%d", i, res.SummarizedFrom, res.SummarizedTo)
			}
			got := out[a.Output]
			if msg.IsSystem(in[i]) && strings.HasPrefix(Text(got), Text(in[i])) && got.Role == in[i].Role {
				continue // the system prompt, maybe with the note
			}
			if !msg.EqualMessage(got, in[i]) && !isSharedWith(got, in[i]) {
				return fmt.Errorf("account %d: kept, but output %d is another message", i, a.Output)
			}
		case fateRepaired:
			got := out[a.Output]
			if got.Role != in[i].Role || msg.EqualMessage(got, in[i]) || a.Repair == 0 || a.Repair != RepairMergedSeam && !repairedAt(res, i, a.Repair) {
				return fmt.Errorf("account %d: repaired (%s), but output %d is %+v", i, a.Repair, a.Output, got)
			}
			if inRange(i) { // lifted, and repaired
				if i != res.Lifted {
					return fmt.Errorf("account %d: repaired inside the summarised range, but Lifted is %d", i, res.Lifted)
				}
				summarised++
			}
		case fatePruned:
			got := out[a.Output]
			if got.Role != in[i].Role || got.ToolCallID != in[i].ToolCallID || a.Prune == 0 {
				return fmt.Errorf("account %d: pruned (%s), but output %d is another message", i, a.Prune, a.Output)
			}
		case fateLifted:
			_, own, _ := msg.SplitMerged(in[i])
			if i != res.Lifted || !inRange(i) || !msg.EqualMessage(out[a.Output], own) && !isSharedWith(out[a.Output], own) {
				return fmt.Errorf("account %d: lifted, but Lifted is %d", i, res.Lifted)
			}
			summarised++
		case fateShort:
			if a.Output != res.Shortened || !IsRealUser(in[i]) {
				return fmt.Errorf("account %d: shortened at %d, Shortened is %d", i, a.Output, res.Shortened)
			}
			if res.Lifted == i {
				summarised++
			}
		case fateFolded, fateCarried:
			if !inRange(i) || a.Output != res.SummaryIndex {
				return fmt.Errorf("account %d: %s outside the summarised range %d-%d (output %d)", i, a.Fate, res.SummarizedFrom, res.SummarizedTo, a.Output)
			}
			if a.Fate == fateCarried {
				carried++
				if !IsRealUser(in[i]) {
					return fmt.Errorf("account %d: carried, but not a real user message", i)
				}
			}
			summarised++
		case fateMerged:
			// Joined to the turn before it at a seam: that turn's output
			// holds its text.
			// holds its text, or the summary, when that turn was folded.
			folded := a.Output == res.SummaryIndex && inRange(i)
			if a.Output < 0 || a.Output >= len(out) || !folded && !strings.Contains(Text(out[a.Output]), Text(in[i])) {
				return fmt.Errorf("account %d: merged into output %d, which does not hold it", i, a.Output)
			}
			if inRange(i) {
				summarised++
			}
		case fateDropped:
			if a.Output != -1 || in[i].Role != RoleTool || !repairedAt(res, i, RepairDroppedResult) {
				return fmt.Errorf("account %d: dropped, but output %d or no such repair", i, a.Output)
			}
			if inRange(i) {
				summarised++
			}
		default:
			return fmt.Errorf("account %d: fate %q", i, a.Fate)
		}
	}
	if res.SummaryIndex >= 0 && summarised != res.SummarizedTo-res.SummarizedFrom+1 {
		return fmt.Errorf("account: %d messages summarised, lifted, merged or dropped, the range %d-%d holds %d",
			summarised, res.SummarizedFrom, res.SummarizedTo, res.SummarizedTo-res.SummarizedFrom+1)
	}
	if carried != len(res.CarriedFrom) || carried > res.Carried {
		return fmt.Errorf("account: %d carried, CarriedFrom %v, Carried %d", carried, res.CarriedFrom, res.Carried)
	}
	return nil
}

// For every transcript, at every window, the account of a forced
// compaction covers every input message exactly once, and its fates agree
// with the Result's ranges.
func TestAccountCoversEveryMessageOfEveryTranscript(t *testing.T) {
	all := allTranscripts(t)
	fates := map[string]int{}
	for _, name := range sortedNames(all) {
		in := all[name]
		for _, window := range []int{3000, 64000} { // 8000 and 16000: TestCompressPropertiesOnTranscripts
			c := New(WithContextWindow(window), WithTokenCounter(byteCounter{}))
			res, err := c.Compress(context.Background(), in, Force())
			if errors.Is(err, ErrNothingToCompress) || errors.Is(err, ErrNoSavings) {
				continue
			}
			require.NoError(t, err, "%s at %d", name, window)
			require.NoError(t, checkAccount(in, res), "%s at %d", name, window)
			for _, a := range res.Account {
				fates[a.Fate]++
			}
		}
	}
	if sharedtest.Dir() == "" {
		return // our own transcripts are too few to meet every fate
	}
	for _, f := range []string{fateKept, fateFolded, fateCarried, fateLifted, fatePruned} {
		require.Positive(t, fates[f], "no transcript gave a message the fate %s", f)
	}
}

// A repair's dropped result and merged turn are accounted as such, and
// the messages after them by where the repaired history put them.
func TestAccountFollowsRepairs(t *testing.T) {
	in := []Message{
		sys("s"),
		user("one"),
		{Role: RoleTool, ToolCallID: "orphan", Content: "answers nothing"},
		user("two"),
	}
	for i := range 12 {
		in = append(in, asst(strings.Repeat("an answer ", 40)), user(fmt.Sprintf("question %d %s", i, strings.Repeat("and more ", 30))))
	}
	in = append(in, asst("done"))
	c := New(WithRepair(true), WithTokenCounter(byteCounter{}), WithContextWindow(2000))
	res, err := c.Compress(context.Background(), in, Force())
	require.NoError(t, err)
	require.Len(t, res.Account, len(in))
	var got []string
	for _, a := range res.Account {
		got = append(got, a.Fate)
	}
	require.Equal(t, "dropped", got[2])
	require.Equal(t, "merged", got[3])
	require.Equal(t, res.Account[1].Output, res.Account[3].Output, "the merged turn goes where the turn before it went")
}

// repairedAt reports whether res lists a repair of kind k of message i.
func repairedAt(res *Result, i int, k RepairKind) bool {
	for _, rp := range res.Repairs {
		if rp.Index == i && rp.Kind == k {
			return true
		}
	}
	return false
}
