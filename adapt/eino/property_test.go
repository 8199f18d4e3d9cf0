package eino

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/schema"
	"github.com/stretchr/testify/require"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/internal/msg"
	"github.com/contextkit/compact/tokens"
)

// windows are the context windows the properties compact at: small enough
// that every transcript compacts, some only a little.
var windows = []int{1500, 4000, 16000}

func TestEveryCompactionOfEveryTranscriptKeepsTheContracts(t *testing.T) {
	all := allTranscripts(t)
	// One counter for every engine: its memo counts each message once.
	counter, err := tokens.ForModel("gpt-4o")
	require.NoError(t, err)
	for _, name := range sortedNames(all) {
		msgs := fromTranscript(t, all[name])
		for _, window := range windows {
			t.Run(fmt.Sprintf("%s/window=%d", name, window), func(t *testing.T) {
				newEngine := func() compact.ContextEngine {
					return compact.New(compact.WithContextWindow(window), compact.WithTokenCounter(counter))
				}
				out, res := compactThroughMiddleware(t, newEngine(), msgs)
				requireContracts(t, msgs, out, res)

				// Compacting the compacted history again keeps them too,
				// and leaves one summary.
				again, res2 := compactThroughMiddleware(t, newEngine(), out)
				requireContracts(t, out, again, res2)
				conv, err := Convert(again)
				require.NoError(t, err)
				summaries := 0
				for _, m := range conv.Messages {
					if compact.IsSummary(m) {
						summaries++
					}
				}
				require.LessOrEqual(t, summaries, 1, "one summary, never a stack")
			})
		}
	}
}

// recorder is an engine that remembers the last Result it returned.
type recorder struct {
	compact.ContextEngine
	mu   sync.Mutex
	last *compact.Result
}

func (r *recorder) Compress(ctx context.Context, msgs []compact.Message, opts ...compact.CompressOption) (*compact.Result, error) {
	res, err := r.ContextEngine.Compress(ctx, msgs, opts...)
	r.mu.Lock()
	r.last = res
	r.mu.Unlock()
	return res, err
}

// compactThroughMiddleware runs msgs through a Middleware's
// BeforeModelRewriteState with a forced compaction, as an agent would before
// a model call, and returns the messages the model call gets and the
// engine's Result (nil when there was nothing to fold).
func compactThroughMiddleware(t *testing.T, engine compact.ContextEngine, msgs []*schema.Message) ([]*schema.Message, *compact.Result) {
	t.Helper()
	before := encode(t, msgs)
	rec := &recorder{ContextEngine: engine}
	var failed error
	mw := NewMiddleware(rec, WithCompressOptions(compact.Force()), WithErrorHandler(func(_ context.Context, err error) error {
		failed = err
		return nil
	}))
	state := &adk.ChatModelAgentState{Messages: msgs}
	_, got, err := mw.BeforeModelRewriteState(context.Background(), state, &adk.ModelContext{})
	require.NoError(t, err)
	require.Equal(t, before, encode(t, msgs), "the input is not modified")
	if failed != nil {
		if !errors.Is(failed, compact.ErrNoSavings) {
			require.ErrorIs(t, failed, compact.ErrNothingToCompress)
		}
		require.Same(t, state, got, "a failed compaction hands the state back as it was")
		return msgs, nil
	}
	require.NotSame(t, state, got, "a compaction returns a new state")
	return got.Messages, rec.last
}

// requireContracts checks out, the compaction of in that res reports,
// against the contracts: a valid request that reads as the engine's output,
// the system prompt kept (plus a note), every message outside the
// summarised range back verbatim and in order, and the last message the
// same value.
func requireContracts(t *testing.T, in, out []*schema.Message, res *compact.Result) {
	t.Helper()
	if res == nil {
		return
	}
	require.NoError(t, compact.Validate(res.Messages), "the engine's output is a valid request")
	require.NoError(t, Validate(out), "the restored history is a valid request")
	conv, err := Convert(out)
	require.NoError(t, err)
	require.Equal(t, res.Messages, conv.Messages, "the restored history reads as the engine's output")

	if in[0].Role == schema.System {
		require.Equal(t, schema.System, out[0].Role)
		inText, outText := compact.Text(mustView(t, in[0])), compact.Text(mustView(t, out[0]))
		require.True(t, strings.HasPrefix(outText, inText), "the system prompt is kept, a note at most added")
		if outText == inText {
			require.Equal(t, encode(t, in[:1]), encode(t, out[:1]), "an unchanged system prompt is the same message")
		}
	}
	pruned := map[int]bool{}
	for _, p := range res.Pruned {
		pruned[p.Index] = true
	}
	at := 0
	for i, m := range in {
		summarised := i >= res.SummarizedFrom && i <= res.SummarizedTo && i != res.Lifted
		if (i == 0 && m.Role == schema.System) || summarised || pruned[i] {
			continue
		}
		want := encode(t, []*schema.Message{m})
		found := false
		for ; at < len(out) && !found; at++ {
			found = encode(t, []*schema.Message{out[at]}) == want || sharesWith(t, out[at], m)
		}
		require.True(t, found, "input message %d (%s) is back verbatim and in order", i, m.Role)
	}
	last := out[len(out)-1]
	require.True(t, reflect.DeepEqual(in[len(in)-1], last) || sharesWith(t, last, in[len(in)-1]), "the last message is the same value")
	// The history opens on a user turn when it did (compact.WithUserFirst).
	first := func(msgs []*schema.Message) int {
		i := 0
		for i < len(msgs) && msgs[i].Role == schema.System {
			i++
		}
		return i
	}
	if f := first(in); f < len(in) && in[f].Role == schema.User && first(out) < len(out) {
		require.Equal(t, schema.User, out[first(out)].Role, "the history opened on a user turn, and still does")
	}
}

// sharesWith reports whether o is m with a summary merged in front of its
// content (compact.WithUserFirst): m's own content after the summary, and
// every other field m's.
func sharesWith(t *testing.T, o, m *schema.Message) bool {
	_, own, ok := msg.SplitMerged(mustView(t, o))
	if !ok || !reflect.DeepEqual(own, mustView(t, m)) {
		return false
	}
	a, b := *o, *m
	a.Content, a.MultiContent, a.UserInputMultiContent = "", nil, nil
	b.Content, b.MultiContent, b.UserInputMultiContent = "", nil, nil
	return encode(t, []*schema.Message{&a}) == encode(t, []*schema.Message{&b})
}

func mustView(t *testing.T, u *schema.Message) compact.Message {
	t.Helper()
	v, _ := view(u)
	return v
}
