package genai

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	sdk "google.golang.org/genai"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/internal/msgtest"
	"github.com/contextkit/compact/tokens"
)

// windows are the context windows the properties compact at: small enough
// that every transcript compacts, some only a little.
var windows = []int{1500, 4000, 16000}

func TestEveryTranscriptRoundTripsUnchanged(t *testing.T) {
	all := allTranscripts(t)
	for _, name := range msgtest.Names(all) {
		t.Run(name, func(t *testing.T) {
			h := fromTranscript(t, all[name])
			requireIdentical(t, h, roundTrip(t, h))

			// The JSON an agent stores and reads back converts the same way.
			again := decode(t, string(encode(t, h)))
			requireIdentical(t, again, roundTrip(t, again))

			// So does the OpenAI-style history FromMessages reads.
			plain, err := FromMessages(all[name])
			require.NoError(t, err)
			requireIdentical(t, plain, roundTrip(t, plain))
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
	for _, name := range msgtest.Names(all) {
		h := fromTranscript(t, all[name])
		for _, window := range windows {
			t.Run(fmt.Sprintf("%s/window=%d", name, window), func(t *testing.T) {
				out, res := compress(t, newEngine(window), h)
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
// reports, against the contracts: both shapes valid, the system
// instruction kept (plus a note), every part of every converted message
// outside the summarised range back as the same part, contents in order,
// and the last content the same.
func requireCompactionContracts(t *testing.T, in, out History, res *compact.Result) {
	t.Helper()
	if res == nil {
		return
	}
	require.NoError(t, compact.Validate(res.Messages), "the engine's output is a valid request")
	require.NoError(t, Validate(out), "the restored history has the Gemini API's shape")

	conv, err := Convert(in)
	require.NoError(t, err)
	if in.System != nil {
		require.GreaterOrEqual(t, len(out.System.Parts), len(in.System.Parts))
		for i, p := range in.System.Parts {
			require.Same(t, p, out.System.Parts[i], "system part %d is kept", i)
		}
		require.LessOrEqual(t, len(out.System.Parts), len(in.System.Parts)+1, "at most one note is added")
	}

	pruned := map[int]bool{}
	for _, p := range res.Pruned {
		pruned[p.Index] = true
	}
	type place struct{ content, part int }
	where := map[string][]place{} // a part's JSON -> where it is in out, in order
	for k, c := range out.Contents {
		for i, p := range c.Parts {
			j := jsonOf(t, p)
			where[j] = append(where[j], place{k, i})
		}
	}
	at := 0 // the output content the last kept part was found in
	for i, p := range conv.pieces {
		summarised := i >= res.SummarizedFrom && i <= res.SummarizedTo && i != res.Lifted
		if p.content == systemContent || summarised || pruned[i] {
			continue
		}
		for _, idx := range p.idx {
			j := jsonOf(t, conv.parts[p.content][idx])
			found := false
			for n, pl := range where[j] {
				if pl.content >= at {
					at, found = pl.content, true
					where[j] = append(where[j][:n:n], where[j][n+1:]...)
					break
				}
			}
			require.True(t, found, "part %d of content %d (converted message %d) is back verbatim and in order", idx, p.content, i)
		}
	}
	// The last content is the same value, or its parts with the summary in
	// a text part before them (compact.WithUserFirst).
	last, got := in.Contents[len(in.Contents)-1], out.Contents[len(out.Contents)-1]
	require.True(t, reflect.DeepEqual(last, got) || sharesLast(t, last, got), "the last content is the same value:\n%s\n%s",
		jsonOf(t, last), jsonOf(t, got))
	// The history opens on a user content of its own, never on the
	// package's continuation turn: the summary is the user's.
	require.NotContains(t, jsonOf(t, out.Contents[0]), continuationText)
}

// sharesLast reports whether got is last with a summary in a text part
// before its parts (compact.WithUserFirst), in place of the summary last
// may lead with: the same role and, after that part, the same parts.
func sharesLast(t *testing.T, last, got *sdk.Content) bool {
	own := func(parts []*sdk.Part) []*sdk.Part {
		if len(parts) > 0 && parts[0] != nil && strings.HasPrefix(parts[0].Text, "[Context handoff]") {
			return parts[1:]
		}
		return parts
	}
	return last != nil && got != nil && last.Role == got.Role && len(got.Parts) > 0 &&
		len(own(got.Parts)) == len(got.Parts)-1 && jsonOf(t, own(got.Parts)) == jsonOf(t, own(last.Parts))
}
