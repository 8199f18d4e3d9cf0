package langchaingo

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tmc/langchaingo/llms"

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
			msgs := fromTranscript(t, all[name])
			requireIdentical(t, msgs, roundTrip(t, msgs))

			// The JSON a host stores and reads back converts the same way.
			again := decode(t, string(encode(t, msgs)))
			requireIdentical(t, again, roundTrip(t, again))

			// So does the plain history FromMessages writes.
			plain, err := FromMessages(all[name])
			require.NoError(t, err)
			requireIdentical(t, plain, roundTrip(t, plain))
		})
	}
}

func TestEveryCompactionOfEveryTranscriptKeepsTheContracts(t *testing.T) {
	all := allTranscripts(t)
	counter, err := tokens.ForModel("gpt-4o")
	require.NoError(t, err)
	newEngine := func(window int) *compact.Compressor {
		return compact.New(compact.WithContextWindow(window), compact.WithTokenCounter(counter))
	}
	for _, name := range msgtest.Names(all) {
		msgs := fromTranscript(t, all[name])
		for _, window := range windows {
			t.Run(fmt.Sprintf("%s/window=%d", name, window), func(t *testing.T) {
				out, res := compress(t, newEngine(window), msgs)
				requireCompactionContracts(t, msgs, out, res)

				again, res2 := compress(t, newEngine(window), out)
				requireCompactionContracts(t, out, again, res2)
			})
		}
	}
}

// compress compacts msgs by force, or returns them when there is nothing
// to fold.
func compress(t *testing.T, engine compact.ContextEngine, msgs []llms.MessageContent) ([]llms.MessageContent, *compact.Result) {
	t.Helper()
	before := encode(t, msgs)
	out, res, err := Compress(context.Background(), engine, msgs, compact.Force())
	require.Equal(t, string(before), string(encode(t, msgs)), "the input is not modified")
	if err != nil {
		if !errors.Is(err, compact.ErrNoSavings) {
			require.ErrorIs(t, err, compact.ErrNothingToCompress)
		}
		return msgs, nil
	}
	return out, res
}

// requireCompactionContracts checks out, the compaction of in that res
// reports, against the contracts: the output passes Validate (when the
// input did) and its engine form compact.Validate, the leading system
// message keeps its parts (plus a note), every part of every converted
// message outside the summarised range is back, messages in order, and the
// last message is the same.
func requireCompactionContracts(t *testing.T, in, out []llms.MessageContent, res *compact.Result) {
	t.Helper()
	if res == nil {
		return
	}
	require.NoError(t, compact.Validate(res.Messages), "the engine's output is a valid request")
	if Validate(in) == nil {
		require.NoError(t, Validate(out), "the restored history has the shape providers accept")
	}
	if in[0].Role == llms.ChatMessageTypeSystem {
		require.Equal(t, in[0].Parts, out[0].Parts[:len(in[0].Parts)], "the system prompt keeps its parts")
		require.LessOrEqual(t, len(out[0].Parts), len(in[0].Parts)+1, "at most one note is added")
	}
	conv, err := Convert(in)
	require.NoError(t, err)
	pruned := map[int]bool{}
	for _, p := range res.Pruned {
		pruned[p.Index] = true
	}
	type place struct{ msg, part int }
	where := map[string][]place{}
	for k, m := range out {
		for i, p := range m.Parts {
			j := jsonOf(t, p)
			where[j] = append(where[j], place{k, i})
		}
	}
	at := 0
	for i, p := range conv.pieces {
		summarised := i >= res.SummarizedFrom && i <= res.SummarizedTo && i != res.Lifted
		if summarised || pruned[i] || (i == 0 && in[0].Role == llms.ChatMessageTypeSystem) {
			continue
		}
		for _, idx := range p.idx {
			j := jsonOf(t, conv.parts[p.msg][idx])
			found := false
			for n, pl := range where[j] {
				if pl.msg >= at {
					at, found = pl.msg, true
					where[j] = append(where[j][:n:n], where[j][n+1:]...)
					break
				}
			}
			require.True(t, found, "part %d of message %d (converted message %d) is back verbatim and in order", idx, p.msg, i)
		}
	}
	// The last message is the same value, or its parts with the summary in
	// a text part before them (compact.WithUserFirst).
	last, got := in[len(in)-1], out[len(out)-1]
	require.True(t, reflect.DeepEqual(last, got) || sharesLast(t, last, got), "the last message is the same value")
	// The history opens on a user turn when it did.
	first := func(msgs []llms.MessageContent) string {
		c, err := Convert(msgs)
		require.NoError(t, err)
		for _, v := range c.Messages {
			if v.Role != compact.RoleSystem {
				return v.Role
			}
		}
		return ""
	}
	if first(in) == compact.RoleUser {
		require.Equal(t, compact.RoleUser, first(out), "the history opened on a user turn, and still does")
	}
}

// sharesLast reports whether got is last with a summary in a text part
// before its parts (compact.WithUserFirst), in place of the summary last
// may lead with: the same role and, after that part, the same parts.
func sharesLast(t *testing.T, last, got llms.MessageContent) bool {
	own := func(parts []llms.ContentPart) []llms.ContentPart {
		if text, ok := asText(parts[0]); ok && strings.HasPrefix(text.Text, "[Context handoff]") {
			return parts[1:]
		}
		return parts
	}
	if last.Role != got.Role || len(got.Parts) == 0 || len(own(got.Parts)) != len(got.Parts)-1 {
		return false
	}
	if len(last.Parts) > 0 {
		return reflect.DeepEqual(own(got.Parts), own(last.Parts))
	}
	return len(got.Parts) == 1
}
