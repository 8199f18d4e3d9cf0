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
	"github.com/contextkit/compact/internal/sharedtest"
	"github.com/stretchr/testify/require"
)

// checkKept asserts the contracts of a compaction that keeps tail verbatim
// at the end ("compress here" and "summarize up to here"): the contracts
// every compaction keeps, with as many summaries as the tail already held
// plus the new one, and the tail byte-identical, the first of its messages
// maybe with the summary merged in front of it (see WithUserFirst).
func checkKept(in, tail []Message, res *Result) error {
	out := res.Messages
	if err := checkCommon(in, res); err != nil {
		return err
	}
	k := len(out) - len(tail)
	if k < 0 || !reflect.DeepEqual(out[k+1:], tail[1:]) ||
		!reflect.DeepEqual(out[k], tail[0]) && !(k == res.SummaryIndex && isSharedWith(out[k], tail[0])) {
		return fmt.Errorf("the kept tail (%d messages) is not byte-identical at the end", len(tail))
	}
	if !reflect.DeepEqual(out[len(out)-1], in[len(in)-1]) && !(len(tail) == 1 && k == res.SummaryIndex) {
		return errors.New("final message not verbatim at the end")
	}
	if want := 1 + countSummaries(tail); countSummaries(out) != want {
		return fmt.Errorf("%d summaries in the output, want %d", countSummaries(out), want)
	}
	return nil
}

// checkFrom asserts the contracts of "summarize from here" at index: the
// messages before the summarised range verbatim, a range that only ever
// grows backwards from the index, and a pending group at the end verbatim.
func checkFrom(in []Message, index int, res *Result) error {
	out := res.Messages
	if err := checkCommon(in, res); err != nil {
		return err
	}
	sysEnd := 0
	for sysEnd < len(in) && msg.IsSystem(in[sysEnd]) {
		sysEnd++
	}
	from := res.SummarizedFrom
	if from < sysEnd || from > max(msg.AlignCut(in, index, 0), sysEnd) {
		return fmt.Errorf("summarised from %d for index %d", from, index)
	}
	if !reflect.DeepEqual(out[sysEnd:from], in[sysEnd:from]) {
		return fmt.Errorf("the messages before %d are not verbatim", from)
	}
	p := pendingStart(in)
	if !reflect.DeepEqual(out[len(out)-(len(in)-p):], in[p:]) {
		return errors.New("the pending group at the end is not verbatim")
	}
	// The new summary, and the earlier ones kept verbatim: before the range,
	// or in the pending group, which no compaction may fold.
	if want := 1 + countSummaries(in[:from]) + countSummaries(in[p:]); countSummaries(out) != want {
		return fmt.Errorf("%d summaries in the output, want %d", countSummaries(out), want)
	}
	return nil
}

// checkCommon asserts what every partial compaction keeps: a valid history
// with no seam compaction created, the system prompt, the latest real user
// message, nothing lost outside the reported range, a summary where the
// Result says, counts of the whole history, and a saving.
func checkCommon(in []Message, res *Result) error {
	out := res.Messages
	if err := Validate(out); err != nil {
		return fmt.Errorf("output invalid: %w", err)
	}
	for i := 1; i < len(out); i++ {
		if msg.Clashes(out[i-1], out[i]) && !hasSeam(in, out[i-1], out[i]) {
			return fmt.Errorf("compaction created a %s-%s pair at %d: %s", out[i-1].Role, out[i].Role, i, roles(out))
		}
	}
	if len(in) > 0 && msg.IsSystem(in[0]) {
		if out[0].Role != in[0].Role || !strings.HasPrefix(Text(out[0]), Text(in[0])) ||
			strings.Count(Text(out[0]), CompactionNote) > 1 {
			return errors.New("system prompt changed")
		}
	}
	if err := checkUserFirst(in, res); err != nil {
		return err
	}
	// Verbatim as it was, or as it was before another tool merged a summary
	// into it (that summary is folded into the new one).
	if u := msg.LastIndex(in, 0, IsRealUser); u >= 0 {
		if _, own, _ := msg.SplitMerged(in[u]); !containsEqual(out, in[u]) && !containsEqual(out, own) {
			return fmt.Errorf("latest real user message %d lost", u)
		}
	}
	pruned := map[int]bool{}
	for _, c := range res.Pruned {
		pruned[c.Index] = true
	}
	for i, m := range in {
		if (i < res.SummarizedFrom || i > res.SummarizedTo) && i > 0 && !containsEqual(out, m) && !pruned[i] {
			return fmt.Errorf("message %d is neither in the output nor in the summarised range nor reported pruned", i)
		}
	}
	if res.SummaryIndex < 0 || res.SummaryIndex >= len(out) || !IsSummary(out[res.SummaryIndex]) {
		return fmt.Errorf("no summary at the reported index %d", res.SummaryIndex)
	}
	if res.MessagesBefore != len(in) || res.MessagesAfter != len(out) {
		return fmt.Errorf("messages %d -> %d reported as %d -> %d", len(in), len(out), res.MessagesBefore, res.MessagesAfter)
	}
	if res.TokensAfter >= res.TokensBefore {
		return fmt.Errorf("grew: %d -> %d tokens", res.TokensBefore, res.TokensAfter)
	}
	return nil
}

// skippable reports the errors a partial compaction may rightly return on
// an arbitrary history.
func skippable(err error) bool {
	return errors.Is(err, ErrNothingToCompress) || errors.Is(err, ErrNoSavings) || errors.Is(err, ErrInvalidBoundary)
}

func testCompressor() *Compressor {
	return New(WithContextWindow(4000), WithTokenCounter(byteCounter{}))
}

// On every transcript, "/compress here N" for N = 1, 2, 3 keeps the last N
// exchanges byte-identical, through the Compressor's range ability and
// through the path any other engine takes; "summarize up to here" and
// "summarize from here" at a few points keep their contracts too. The
// input is never modified.
func TestPartialPropertiesOnTranscripts(t *testing.T) {
	all := allTranscripts(t)
	checked := 0
	for _, name := range sortedNames(all) {
		in := all[name]
		before := Clone(in)
		t.Run(name, func(t *testing.T) {
			for _, keep := range []int{1, 2, 3} {
				_, tail, err := SplitExchanges(in, keep)
				if err != nil {
					continue
				}
				for _, e := range []ContextEngine{testCompressor(), plainEngine{testCompressor()}} {
					res, err := CompressHere(context.Background(), e, in, keep)
					if skippable(err) {
						continue
					}
					require.NoError(t, err, "here %d (%T)", keep, e)
					require.NoError(t, checkKept(in, tail, res), "here %d (%T)", keep, e)
					checked++
				}
			}
			for _, index := range []int{len(in) / 4, len(in) / 2, 3 * len(in) / 4} {
				if res, err := CompressFrom(context.Background(), testCompressor(), in, index); err == nil {
					require.NoError(t, checkFrom(in, index, res), "from %d", index)
					checked++
				} else {
					require.True(t, skippable(err), "from %d: %v", index, err)
				}
				_, tail, err := SplitAt(in, index)
				if err != nil {
					continue
				}
				if res, err := CompressBefore(context.Background(), testCompressor(), in, index); err == nil {
					require.NoError(t, checkKept(in, tail, res), "before %d", index)
					checked++
				} else {
					require.True(t, skippable(err), "before %d: %v", index, err)
				}
			}
			require.True(t, reflect.DeepEqual(before, in), "input modified")
		})
	}
	t.Logf("%d partial compactions checked", checked)
	if checked < 20 && len(sharedTranscripts(t)) == 0 {
		sharedtest.Missing(t)
	}
	require.GreaterOrEqual(t, checked, 20, "partial compactions that ran; fewer and the property is barely tested")
}

// knownRoles drops the bytes that make randomHistory write a message of
// an unknown role, which no compaction accepts (FuzzCompress covers that),
// so that most fuzz inputs become histories a compaction can work on.
func knownRoles(data []byte) []byte {
	out := make([]byte, 0, len(data))
	for _, b := range data {
		if b%13 != 11 {
			out = append(out, b)
		}
	}
	return out
}

// withSummary puts an earlier summary into about half the histories, in
// either role, at a place the data picks: partial compaction must fold it
// or keep it, never stack another on it by accident.
func withSummary(data []byte, msgs []Message) []Message {
	if len(data) < 2 || data[1]&1 == 0 {
		return msgs
	}
	role := RoleAssistant
	if data[1]&2 != 0 {
		role = RoleUser
	}
	at := int(data[1]>>2) % (len(msgs) + 1)
	out := append(Clone(msgs[:at]), summ(role, "earlier work"))
	return append(out, msgs[at:]...)
}

// FuzzPartial: on random valid histories and a random N or index, every
// partial compaction either reports why it could not run or keeps every
// contract, and never modifies its input.
func FuzzPartial(f *testing.F) {
	msgtest.Seeds(f)
	f.Add([]byte{1, 4, 12, 3, 1, 4, 12, 3, 1, 4, 12, 3, 2, 3, 1, 3, 2, 3, 1, 4, 12, 3, 1, 4, 12, 3, 2, 1, 3})
	f.Add([]byte{0, 1, 3, 1, 1, 3, 1, 3, 1, 3, 1, 3, 1, 3, 1, 3, 1, 3, 1, 3, 1, 3, 1, 3, 1, 3, 1, 3, 4})
	f.Fuzz(func(t *testing.T, data []byte) {
		data = knownRoles(data[:min(len(data), maxFuzzMessages)])
		in, _ := RepairToolPairs(withSummary(data, randomHistory(data)))
		if Validate(in) != nil || len(in) == 0 {
			return
		}
		before := Clone(in)
		keep := int(data[0] % 5)
		index := int(data[len(data)-1]) % len(in)
		newEngine := func(plain bool) ContextEngine {
			c := New(WithContextWindow(400), WithTokenCounter(byteCounter{}), WithHeadMessages(int(data[0]%4)))
			if plain {
				return plainEngine{c}
			}
			return c
		}
		check := func(what string, err, broken error) {
			t.Helper()
			require.True(t, reflect.DeepEqual(before, in), "%s: input modified", what)
			require.False(t, err != nil && !skippable(err), "%s: unexpected error: %v", what, err)
			require.False(t, err == nil && broken != nil, "%s: %v\nin: %s", what, broken, roles(in))
		}
		for _, plain := range []bool{false, true} {
			what := fmt.Sprintf("here %d (plain engine %v)", keep, plain)
			res, err := CompressHere(context.Background(), newEngine(plain), in, keep)
			if err == nil {
				_, tail, _ := SplitExchanges(in, keep)
				check(what, nil, checkKept(in, tail, res))
			}
			check(what, err, nil)

			what = fmt.Sprintf("before %d (plain engine %v)", index, plain)
			res, err = CompressBefore(context.Background(), newEngine(plain), in, index)
			if err == nil {
				_, tail, _ := SplitAt(in, index)
				check(what, nil, checkKept(in, tail, res))
			}
			check(what, err, nil)
		}
		res, err := CompressFrom(context.Background(), newEngine(false), in, index)
		if err == nil {
			check(fmt.Sprintf("from %d", index), nil, checkFrom(in, index, res))
		}
		check(fmt.Sprintf("from %d", index), err, nil)
	})
}
