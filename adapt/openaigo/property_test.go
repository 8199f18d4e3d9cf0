package openaigo

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/stretchr/testify/require"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/internal/align"
	"github.com/contextkit/compact/tokens"
)

// windows are the context windows the properties compact at: small enough
// that every transcript compacts, some only a little.
var windows = []int{1500, 4000, 16000}

func TestEveryTranscriptRoundTripsUnchanged(t *testing.T) {
	all := allTranscripts(t)
	for _, name := range sortedNames(all) {
		t.Run(name, func(t *testing.T) {
			decoded := decode(t, string(all[name]))
			requireIdentical(t, decoded, roundTrip(t, decoded))
			msgs := decorate(t, decode(t, string(all[name])))
			requireIdentical(t, msgs, roundTrip(t, msgs))

			// A go-openai history converted with FromMessages round-trips too,
			// and reads as the history it came from.
			var plain []compact.Message
			require.NoError(t, json.Unmarshal(all[name], &plain))
			from, err := FromMessages(plain)
			require.NoError(t, err)
			requireIdentical(t, from, roundTrip(t, from))
			require.Equal(t, len(plain), len(from))
			require.NoError(t, compact.Validate(viewsOf(t, from)))
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
		msgs := decorate(t, decode(t, string(all[name])))
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

// compress compacts msgs by force, or returns msgs when there is nothing
// to fold.
func compress(t *testing.T, engine compact.ContextEngine, msgs []openai.ChatCompletionMessageParamUnion) ([]openai.ChatCompletionMessageParamUnion, *compact.Result) {
	t.Helper()
	before := encode(t, msgs)
	out, res, err := Compress(context.Background(), engine, msgs, compact.Force())
	require.Equal(t, before, encode(t, msgs), "the input is not modified")
	if err != nil {
		if !errors.Is(err, compact.ErrNoSavings) {
			require.ErrorIs(t, err, compact.ErrNothingToCompress)
		}
		return msgs, nil
	}
	return out, res
}

// requireCompactionContracts checks out, the compaction of in that res
// reports: a valid request; the first message (the system prompt) kept or
// extended; every message outside the summarised range, but a pruned one,
// back as the same value and in order; the last message the same.
func requireCompactionContracts(t *testing.T, in, out []openai.ChatCompletionMessageParamUnion, res *compact.Result) {
	t.Helper()
	if res == nil {
		return
	}
	require.NoError(t, compact.Validate(res.Messages))
	require.NoError(t, Validate(out), "the restored history is a valid request")
	require.Equal(t, len(res.Messages), len(out), "one message for each of the engine's")

	if in[0].OfSystem != nil && !reflect.DeepEqual(in[0], out[0]) {
		got := jsonOf(t, out[0])
		var prefix string
		if arr := in[0].OfSystem.Content.OfArrayOfContentParts; arr != nil {
			prefix = strings.TrimSuffix(jsonOf(t, arr), "]")
		} else {
			prefix = strings.TrimSuffix(jsonOf(t, in[0].OfSystem.Content.OfString.Value), `"`)
		}
		require.Contains(t, got, prefix, "the system prompt is kept, with a note at most")
	}

	pruned := map[int]bool{}
	for _, p := range res.Pruned {
		pruned[p.Index] = true
	}
	at := 0
	for i := range in {
		summarised := i >= res.SummarizedFrom && i <= res.SummarizedTo && i != res.Lifted
		if i == 0 || summarised || pruned[i] {
			continue
		}
		for at < len(out) && !reflect.DeepEqual(in[i], out[at]) && !sharesWith(t, out[at], in[i]) {
			at++
		}
		require.Less(t, at, len(out), "message %d is back as the same value, in order", i)
		at++
	}
	last := out[len(out)-1]
	require.True(t, reflect.DeepEqual(in[len(in)-1], last) || sharesWith(t, last, in[len(in)-1]), "the last message is the same value")
	if first := firstTurn(in); first.OfUser != nil {
		require.NotNil(t, firstTurn(out).OfUser, "the history opened on a user turn, and still does")
	}
}

// sharesWith reports whether o is the user message m with a summary merged
// in front of its content (compact.WithUserFirst): m's own content, each
// without the summary it may carry, and every other field the same.
func sharesWith(t *testing.T, o, m openai.ChatCompletionMessageParamUnion) bool {
	if o.OfUser == nil || m.OfUser == nil {
		return false
	}
	own := func(u openai.ChatCompletionUserMessageParam) string {
		if parts := u.Content.OfArrayOfContentParts; parts != nil {
			if len(parts) > 0 && parts[0].OfText != nil && strings.HasPrefix(parts[0].OfText.Text, "[Context handoff]") {
				u.Content.OfArrayOfContentParts = parts[1:]
			}
		} else {
			u.Content.OfString = param.NewOpt(align.OwnText(u.Content.OfString.Value))
		}
		return jsonOf(t, u)
	}
	return compact.IsSummary(viewsOf(t, []openai.ChatCompletionMessageParamUnion{o})[0]) && own(*o.OfUser) == own(*m.OfUser)
}
