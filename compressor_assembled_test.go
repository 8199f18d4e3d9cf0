package compact

import (
	"testing"

	"github.com/contextkit/compact/internal/sharedtest"
	"github.com/contextkit/compact/tokens"
)

// assembledTokens counts what assemble would return without
// assembling it (a compaction asks for the room left twice, and for the
// tokens after): it must be the count of the assembled history, whatever
// the plan lifts, merges or adds. Over plans of every shared transcript's
// prefixes at three windows, with and without an incoming message, a
// head, prices (the note in the summary or the system prompt) and a
// user-first history.
func TestAssembledTokensCountsTheAssembly(t *testing.T) {
	all := sharedTranscripts(t)
	if len(all) == 0 {
		sharedtest.Missing(t)
	}
	incoming := Message{Role: RoleUser, Content: "and now the tests, please"}
	var lifted, merged, noted, plans int
	for _, name := range sortedNames(all) {
		history := all[name]
		for _, n := range []int{len(history) / 3, len(history)} {
			h, _ := RepairToolPairs(history[:n])
			if Validate(h) != nil || len(h) < 4 {
				continue
			}
			for _, window := range []int{8_000, 32_000, 128_000} {
				for _, head := range []int{0, 2} {
					for _, userFirst := range []bool{true, false} {
						tc := newCounter(t, tokens.EncodingO200KBase)
						c := New(WithContextWindow(window), WithTokenCounter(tc), WithHeadMessages(head),
							WithUserFirst(userFirst), WithCompactionNote("Earlier turns were summarised."))
						for _, in := range []*Message{nil, &incoming} {
							p := c.plan(h, nil, c.th, in)
							for _, priced := range []bool{false, true} {
								th := c.th
								th.priced = priced
								carried := []string{"carried"}
								summary := c.summaryText(th, "the summary", carried)
								out, _, shared := c.assemble(p, summary, in, !th.priced)
								want := tokens.CountMessages(c.tc, out)
								if got := c.assembledTokens(p, th, summary, in); got != want {
									t.Fatalf("%s[:%d] at %d (head %d, user first %v, incoming %v, priced %v): assembledTokens %d, the assembly counts %d",
										name, n, window, head, userFirst, in != nil, priced, got, want)
								}
								plans++
								if p.lift >= 0 {
									lifted++
								}
								if shared {
									merged++
								}
								if !priced && p.sysEnd > 0 {
									noted++
								}
							}
						}
					}
				}
			}
		}
	}
	if lifted == 0 || merged == 0 || noted == 0 {
		t.Fatalf("of %d plans, %d lift, %d merge the summary, %d carry the note: want each case", plans, lifted, merged, noted)
	}
}
