package compact

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/contextkit/compact/internal/msgtest"
	"github.com/contextkit/compact/internal/racetest"
	"github.com/contextkit/compact/internal/sharedtest"
	"github.com/contextkit/compact/prune"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// This file checks that a summary's facts index gets the room the
// compacted request really has (issue 31): a summary leaves facts out only
// when the request has no room left for them.

// factsProbe is the facts sizer of a Compressor under test: it answers as
// the real one does and remembers the last request it measured, the one
// the summarizer is then given (less its target).
type factsProbe struct {
	inner factsSizer
	last  *SummaryRequest
}

func (f *factsProbe) factsRoom(ctx context.Context, req SummaryRequest, limit int) int {
	f.last = &req
	return f.inner.factsRoom(ctx, req, limit)
}

// probedCompressor returns a Compressor with opts whose facts sizer is a
// factsProbe.
func probedCompressor(opts ...Option) (*Compressor, *factsProbe) {
	c := New(opts...)
	probe := &factsProbe{inner: c.facts}
	c.facts = probe
	return c, probe
}

// leftOut returns the Left out line of a summary's Facts section, or "",
// and how many facts it counts of the kinds the facts budget grows for:
// all but referenced paths, which may be paths only mentioned in prose or
// output, for which it never grows (see extractive.FactsRoom).
func leftOut(summary string) (line string, n int) {
	facts, _, _ := strings.Cut(summary, "\n## ")
	for _, line := range strings.Split(facts, "\n") {
		if rest, ok := strings.CutPrefix(line, "- Left out:"); ok {
			for _, kind := range strings.Split(rest, ",") {
				count, name, _ := strings.Cut(strings.TrimSpace(kind), " ")
				if k, err := strconv.Atoi(count); err == nil && name != "referenced paths" {
					n += k
				}
			}
			return line, n
		}
	}
	return "", 0
}

// checkFactsRoom asserts that the summary of res, a compaction of in by c,
// leaves facts out only when the request has no room for them.
//
// The room is what the usable window leaves the summary's body once the
// rest of the request is in (res.TokensAfter less the body: the kept
// messages as the cheap tier left them, the summary's prefix, the carried
// messages). A summary is cut at twice its target, so the largest target
// the request has room for is half of that; and the facts budget never
// grows past a third of the threshold or half of what is folded (see
// WithSummaryTokens). "No room" means: the summarizer, given that target
// on the same request, still leaves something out; or that target is no
// more than the least summary (minSummaryTokens), which every summary gets.
func checkFactsRoom(c *Compressor, probe *factsProbe, in []Message, res *Result) error {
	line, lost := leftOut(res.Summary)
	if line == "" {
		return nil
	}
	st := c.Status()
	folded := 0
	for i := res.SummarizedFrom; i <= res.SummarizedTo; i++ {
		if i != res.Lifted {
			folded += c.cfg.counter.CountMessage(in[i])
		}
	}
	body := c.cfg.counter.CountText(res.Summary)
	room := min(st.Threshold/factsCapDivisor, folded/2, st.Usable-(res.TokensAfter-body))
	if room <= minSummaryTokens {
		return nil
	}
	if probe.last == nil {
		return fmt.Errorf("%q with room for a %d-token target, and the facts never measured", line, room)
	}
	req := *probe.last
	req.TargetTokens = room
	fuller, err := c.cfg.summarizer.Summarize(context.Background(), req)
	if err != nil {
		return err
	}
	if _, n := leftOut(fuller); n < lost {
		return fmt.Errorf("%q in a %d-token summary, the request %d of %d usable tokens; a %d-token target leaves out %d facts, not %d",
			line, body, res.TokensAfter, st.Usable, room, n, lost)
	}
	return nil
}

// factsPrefixes returns the prefix lengths of msgs the property samples:
// even ones spread over the conversation (the whole of it last), and the
// two that end one and two messages after its largest tool result, which
// the pressure pass never touches in the first (the last two messages
// stay) and may demote in the second.
func factsPrefixes(msgs []Message, even int) []int {
	var out []int
	for j := 1; j <= even; j++ {
		out = append(out, len(msgs)*j/even)
	}
	largest, size := -1, 0
	for i, m := range msgs {
		if n := len(Text(m)); m.Role == RoleTool && n > size {
			largest, size = i, n
		}
	}
	for _, k := range []int{largest + 2, largest + 3} {
		if largest >= 0 && k <= len(msgs) {
			out = append(out, k)
		}
	}
	return out
}

// Whenever a summary's Facts section leaves something out, the compacted
// request has no room left for it (see checkFactsRoom): over prefixes of
// every shared transcript, and of all of them joined, at 8,000, 16,000
// and 32,000 tokens, with and without prices.
func TestFactsLeftOutOnlyWithoutRoom(t *testing.T) {
	all := sharedTranscripts(t)
	if len(all) == 0 {
		sharedtest.Missing(t)
	}
	var parts [][]Message
	for _, name := range sortedNames(all) {
		parts = append(parts, all[name])
	}
	all["joined"], _ = RepairToolPairs(Join(parts...)) // as msgtest.SharedChain joins them
	even, evenJoined, sample := 4, 4, false
	if testing.Short() || racetest.Enabled {
		// A sample (the race detector adds nothing here, and slows it):
		// fewer prefixes, and prices or none by turns.
		even, evenJoined, sample = 1, 2, true
	}
	tc := newCounter(t, "o200k_base") // one memo for every compaction
	checked, leftOuts := 0, 0
	for _, name := range sortedNames(all) {
		in := all[name]
		prefixes := factsPrefixes(in, even)
		if name == "joined" {
			prefixes = factsPrefixes(in, evenJoined)
		}
		for i, k := range prefixes {
			prefix, _ := RepairToolPairs(in[:k]) // calls still running at the cut
			if Validate(prefix) != nil {
				continue
			}
			for j, window := range []int{8_000, 16_000, 32_000} {
				for _, priced := range []bool{false, true} {
					if sample && priced != ((i+j)%2 == 1) {
						continue
					}
					opts := []Option{WithContextWindow(window), WithTokenCounter(tc)}
					if priced {
						opts = append(opts, WithPricing(sonnetPrices(t)))
					}
					c, probe := probedCompressor(opts...)
					res, err := c.Compress(context.Background(), prefix, Force())
					if err != nil {
						continue // nothing to fold: no summary
					}
					checked++
					if line, _ := leftOut(res.Summary); line != "" {
						leftOuts++
					}
					assert.NoError(t, checkFactsRoom(c, probe, prefix, res), "%s[:%d] at %d tokens, priced %v", name, k, window, priced)
				}
			}
		}
	}
	t.Logf("%d compactions checked, %d left facts out", checked, leftOuts)
	require.Positive(t, checked)
}

// A forced compaction of a coding session whose last tool result (about
// 5,600 tokens of verbose test output) sits in the tail, over the usable
// window: the pressure pass demotes it, and the summary gets the room that
// frees, so it keeps every fact. (Before, the summary was sized as if the
// result were still whole: 128 tokens, every fact left out, in a request
// using 1,170 of its 6,000 usable tokens.) testdata/facts/demoted_tail.json
// is written for this test.
func TestFactsGetTheRoomADemotedTailFrees(t *testing.T) {
	in := msgtest.Load(t, filepath.Join("testdata", "facts", "demoted_tail.json"))
	for _, priced := range []bool{false, true} {
		t.Run(fmt.Sprintf("priced %v", priced), func(t *testing.T) {
			opts := []Option{WithContextWindow(8_000)}
			if priced {
				opts = append(opts, WithPricing(sonnetPrices(t)))
			}
			c, probe := probedCompressor(opts...)
			res, err := c.Compress(context.Background(), in, Force())
			require.NoError(t, err)
			require.Len(t, res.Pruned, 1)
			require.Equal(t, prune.Demoted, res.Pruned[0].Kind)
			require.True(t, res.Fits)
			line, _ := leftOut(res.Summary)
			assert.Empty(t, line, "facts left out in a request of %d of %d usable tokens", res.TokensAfter, c.Status().Usable)
			assert.NoError(t, checkFactsRoom(c, probe, in, res))
			for _, fact := range []string{"/srv/ledger/store/sql.go", "unknown field Amount2", "Daily(2024-03-01) = 199999, want 200000"} {
				assert.True(t, strings.Contains(res.Summary, fact), "%q missing from %s", fact, msgtest.Excerpt(res.Summary))
			}
		})
	}
}

// tightSession is a session whose long system prompt (about 2,500 tokens)
// leaves a summary at an 8,000-token window little room, with forty
// failing tool rounds, each passing two identifiers, and a short user turn
// every ten of them.
func tightSession() []Message {
	in := []Message{sys("You are a support agent. " + strings.Repeat("Follow the airline policy to the letter. ", 312)),
		user("Rebook every reservation on my account.")}
	for i := range 40 {
		if i%10 == 5 {
			in = append(in, asst("Shall I go on?"), user("Yes, go on."))
		}
		in = append(in, msgtest.ToolRound(fmt.Sprintf("c%d", i), "update_reservation",
			fmt.Sprintf(`{"reservation_id":"R%05dX","payment_id":"gift_card_%07d"}`, i, i),
			strings.Repeat("{\"seat\": \"12A\", \"status\": \"held\"}\n", 3)+
				fmt.Sprintf("Error: payment method gift_card_%07d has no balance", i))...)
	}
	return append(in, asst("Every reservation failed to rebook."))
}

// The carried user messages take what they take of the room, not their
// budget: the tight session, compacted without prices (so its three short
// user turns are carried verbatim), keeps as many facts as the room
// holds. (Before, the whole carry budget, about 1,100 tokens, was taken
// off the room whatever the carried turns took: 86 facts left out where
// the room kept all but 62.)
func TestFactsRoomCountsWhatIsCarriedNotItsBudget(t *testing.T) {
	in := tightSession()
	c, probe := probedCompressor(WithContextWindow(8_000))
	res, err := c.Compress(context.Background(), in, Force())
	require.NoError(t, err)
	require.Positive(t, res.Carried)
	line, _ := leftOut(res.Summary)
	require.NotEmpty(t, line, "forty failures need more than the room: the case tests nothing")
	assert.NoError(t, checkFactsRoom(c, probe, in, res))
}

// A summary gets the whole room the request has, so it is cut at that
// room as well as at twice its target: a model summarizer that writes
// four times its target still hands back a request that fits.
func TestSummaryIsCutAtTheRoomTheRequestHas(t *testing.T) {
	var target int
	long := SummarizerFunc(func(_ context.Context, req SummaryRequest) (string, error) {
		target = req.TargetTokens
		return strings.Repeat("The agent tried again. ", req.TargetTokens), nil // about four tokens each
	})
	c := New(WithContextWindow(8_000), WithSummarizer(long))
	res, err := c.Compress(context.Background(), tightSession(), Force())
	require.NoError(t, err)
	body := c.cfg.counter.CountText(res.Summary)
	require.Greater(t, 2*target, c.Status().Usable-(res.TokensAfter-body), "twice the target fits the room: the case tests nothing")
	assert.True(t, res.Fits, "%d tokens of %d usable", res.TokensAfter, c.Status().Usable)
	assert.Less(t, body, 2*target)
}
