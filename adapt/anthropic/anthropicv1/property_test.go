package anthropicv1

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/tokens"
)

// windows are the context windows the properties compact at: small enough
// that every transcript compacts, some only a little.
var windows = []int{1500, 4000, 16000}

func TestEveryTranscriptRoundTripsUnchanged(t *testing.T) {
	all := allTranscripts(t)
	for _, name := range sortedNames(all) {
		t.Run(name, func(t *testing.T) {
			h := fromTranscript(t, all[name])
			requireIdentical(t, h, roundTrip(t, h))

			// The JSON an agent stores and reads back converts the same way.
			again := decode(t, string(encode(t, h)))
			requireIdentical(t, again, roundTrip(t, again))
		})
	}
}

func TestEveryCompactionOfEveryTranscriptKeepsTheContracts(t *testing.T) {
	all := allTranscripts(t)
	// One counter for every engine: its memo counts each message once.
	counter, err := tokens.ForModel("gpt-4o")
	require.NoError(t, err)
	newEngine := func(window int) *compact.Compressor {
		return compact.New(compact.WithContextWindow(window), compact.WithTokenCounter(counter))
	}
	for _, name := range sortedNames(all) {
		h := fromTranscript(t, all[name])
		for _, window := range windows {
			t.Run(fmt.Sprintf("%s/window=%d", name, window), func(t *testing.T) {
				engine := newEngine(window)
				out, res := compress(t, engine, h)
				requireCompactionContracts(t, h, out, res)

				// Compacting the compacted history again keeps them too.
				again, res2 := compress(t, newEngine(window), out)
				requireCompactionContracts(t, out, again, res2)
			})
		}
	}
}

// compress compacts h by force, or returns h itself when there is nothing
// to fold.
func compress(t *testing.T, engine compact.ContextEngine, h History) (History, *compact.Result) {
	t.Helper()
	before := encode(t, h)
	out, res, err := Compress(context.Background(), engine, h, compact.Force())
	require.Equal(t, string(before), string(encode(t, h)), "the input is not modified")
	if err != nil {
		if !errors.Is(err, compact.ErrNoSavings) {
			require.ErrorIs(t, err, compact.ErrNothingToCompress)
		}
		return h, nil
	}
	return out, res
}

// requireCompactionContracts checks out, the compaction of in that res
// reports, against the contracts: both shapes valid, the system prompt kept
// (plus a note), every converted message outside the summarised range
// back as its original blocks, in order, and the last turn identical.
func requireCompactionContracts(t *testing.T, in, out History, res *compact.Result) {
	t.Helper()
	if res == nil {
		return
	}
	require.NoError(t, compact.Validate(res.Messages), "the engine's output is a valid request")
	require.NoError(t, Validate(out), "the restored history has the Messages API's shape")

	conv, err := Convert(in)
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(out.System), len(in.System))
	for i := range in.System {
		require.Equal(t, jsonOf(t, in.System[i]), jsonOf(t, out.System[i]), "system block %d is kept", i)
	}
	require.LessOrEqual(t, len(out.System), len(in.System)+1, "at most one note is added")

	pruned := map[int]bool{}
	for _, p := range res.Pruned {
		pruned[p.Index] = true
	}
	var blocks []string
	for _, m := range out.Messages {
		for _, b := range m.Content {
			blocks = append(blocks, jsonOf(t, b))
		}
	}
	at := 0
	for i, p := range conv.pieces {
		summarised := i >= res.SummarizedFrom && i <= res.SummarizedTo && i != res.Lifted
		if p.turn == systemTurn || summarised || pruned[i] {
			continue
		}
		want := in.Messages[p.turn].Content[p.from:p.to]
		found := false
		for ; at+len(want) <= len(blocks) && !found; at++ {
			found = true
			for k, b := range want {
				if blocks[at+k] != jsonOf(t, b) {
					found = false
					break
				}
			}
		}
		require.True(t, found, "converted message %d (turn %d, blocks %d-%d) is back verbatim and in order", i, p.turn, p.from, p.to)
		at += len(want) - 1
	}
	last := in.Messages[len(in.Messages)-1]
	require.True(t, reflect.DeepEqual(last, out.Messages[len(out.Messages)-1]) || sharesLast(t, in, out),
		"the last turn is the same value:\n%s\n%s", jsonOf(t, last), jsonOf(t, out.Messages[len(out.Messages)-1]))
	// The history opens on the user's turn, never on this package's
	// continuation turn: the summary is the user's (compact.WithUserFirst).
	require.NotContains(t, jsonOf(t, turnsOf(t, out)[0]), continuationText)
}

// sharesLast reports whether out's last turn is in's with a summary block
// before its own blocks (compact.WithUserFirst), each without a summary it
// may lead with.
func sharesLast(t *testing.T, in, out History) bool {
	own := func(h History) (string, []string) {
		turns := turnsOf(t, h)
		last := turns[len(turns)-1]
		var blocks []string
		for _, b := range last.Content {
			blocks = append(blocks, string(b))
		}
		if len(blocks) > 0 && strings.Contains(blocks[0], `"text":"[Context handoff]`) {
			blocks = blocks[1:]
		}
		return last.Role, blocks
	}
	r1, b1 := own(in)
	r2, b2 := own(out)
	return r1 == r2 && reflect.DeepEqual(b1, b2) && len(turnsOf(t, out)[len(turnsOf(t, out))-1].Content) == len(b2)+1
}

func jsonOf(t testing.TB, v any) string {
	t.Helper()
	data, err := json.Marshal(v)
	require.NoError(t, err)
	return string(data)
}
