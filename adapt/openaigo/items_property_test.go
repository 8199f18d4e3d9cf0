package openaigo

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/responses"
	"github.com/stretchr/testify/require"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/internal/align"
	"github.com/contextkit/compact/internal/racetest"
	"github.com/contextkit/compact/prune"
	"github.com/contextkit/compact/tokens"
)

// generatedSeeds is how many generated histories the properties run over:
// 120, or 40 under the race detector, which makes them several times
// slower (they run no goroutines of their own).
func generatedSeeds() uint64 {
	if racetest.Enabled {
		return 40
	}
	return 120
}

func TestEveryGeneratedHistoryRoundTripsUnchanged(t *testing.T) {
	for seed := uint64(0); seed < generatedSeeds(); seed++ {
		items := genHistory(seed)
		requireSameItems(t, items, roundTripItems(t, items))
	}
}

// engines are the Compressors the properties compact with at a window:
// the defaults, and pruning with short arguments (so that the engine
// changes the calls and outputs it keeps, and the images of old user
// turns).
func engines(counter tokens.Counter) map[string]func(window int) compact.ContextEngine {
	return map[string]func(int) compact.ContextEngine{
		"defaults": func(window int) compact.ContextEngine {
			return compact.New(compact.WithContextWindow(window), compact.WithTokenCounter(counter))
		},
		"pruning": func(window int) compact.ContextEngine {
			return compact.New(compact.WithContextWindow(window), compact.WithTokenCounter(counter),
				compact.WithPruning(true), compact.WithPruneOptions(prune.WithKeepToolUses(1), prune.WithArgumentChars(60)))
		},
	}
}

func TestEveryCompactionOfAGeneratedHistoryKeepsTheContracts(t *testing.T) {
	counter, err := tokens.ForModel("gpt-4o")
	require.NoError(t, err)
	for seed := uint64(0); seed < generatedSeeds(); seed++ {
		items := genHistory(seed)
		for name, newEngine := range engines(counter) {
			for _, window := range windows {
				t.Run(fmt.Sprintf("seed=%d/%s/window=%d", seed, name, window), func(t *testing.T) {
					engine := func() compact.ContextEngine { return newEngine(window) }
					out, res := compressItemsT(t, engine(), items)
					requireItemContracts(t, items, out, res)
					again, res2 := compressItemsT(t, engine(), out)
					requireItemContracts(t, out, again, res2)
				})
			}
		}
	}
}

func TestEveryTranscriptAsResponsesItemsRoundTripsAndCompacts(t *testing.T) {
	all := allTranscripts(t)
	counter, err := tokens.ForModel("gpt-4o")
	require.NoError(t, err)
	for _, name := range sortedNames(all) {
		var msgs []compact.Message
		require.NoError(t, json.Unmarshal(all[name], &msgs))
		plain, err := ItemsFromMessages(msgs)
		require.NoError(t, err, name)
		items := withReasoning(plain)
		t.Run(name, func(t *testing.T) {
			requireSameItems(t, plain, roundTripItems(t, plain))
			requireSameItems(t, items, roundTripItems(t, items))
			require.NoError(t, ValidateItems(items))
			require.NoError(t, compact.Validate(itemViews(t, plain)), "the items read as a valid chat history")
			for _, newEngine := range engines(counter) {
				for _, window := range windows {
					out, res := compressItemsT(t, newEngine(window), items)
					requireItemContracts(t, items, out, res)
					again, res2 := compressItemsT(t, newEngine(window), out)
					requireItemContracts(t, out, again, res2)
				}
			}
		})
	}
}

// withReasoning puts a reasoning item with encrypted content before every
// assistant turn of items (as a reasoning model writes one), the first
// plain assistant reply as an output message with an id, and a hosted web
// search in every fifth turn.
func withReasoning(items []Item) []Item {
	var out []Item
	turn := 0
	for i, u := range items {
		model := u.OfFunctionCall != nil || u.OfCustomToolCall != nil || u.OfMessage != nil && u.OfMessage.Role == responses.EasyInputMessageRoleAssistant
		prevModel := i > 0 && (items[i-1].OfFunctionCall != nil || items[i-1].OfCustomToolCall != nil ||
			items[i-1].OfMessage != nil && items[i-1].OfMessage.Role == responses.EasyInputMessageRoleAssistant)
		if model && !prevModel {
			turn++
			out = append(out, param.Override[Item](json.RawMessage(fmt.Sprintf(
				`{"type":"reasoning","id":"rs_%d","summary":[{"type":"summary_text","text":"Turn %d."}],"encrypted_content":"%s"}`,
				turn, turn, strings.Repeat("gAAAAB", 20+turn%7*40)))))
			if turn%5 == 0 {
				out = append(out, param.Override[Item](json.RawMessage(fmt.Sprintf(
					`{"type":"web_search_call","id":"ws_%d","action":{"type":"search","query":"turn %d"},"status":"completed"}`, turn, turn))))
			}
		}
		if turn == 1 && u.OfMessage != nil && u.OfMessage.Role == responses.EasyInputMessageRoleAssistant && u.OfMessage.Content.OfString.Valid() {
			u = Item{OfOutputMessage: &responses.ResponseOutputMessageParam{ID: "msg_first", Status: "completed",
				Content: []responses.ResponseOutputMessageContentUnionParam{{OfOutputText: &responses.ResponseOutputTextParam{
					Text: u.OfMessage.Content.OfString.Value, Annotations: []responses.ResponseOutputTextAnnotationUnionParam{}}}}}}
		}
		out = append(out, u)
	}
	return out
}

// compressItemsT compacts items by force, or returns items when there is
// nothing to fold.
func compressItemsT(t *testing.T, engine compact.ContextEngine, items []Item) ([]Item, *compact.Result) {
	t.Helper()
	before := encodeItems(t, items)
	out, res, err := CompressItems(context.Background(), engine, items, compact.Force())
	require.Equal(t, before, encodeItems(t, items), "the input is not modified")
	if err != nil {
		if !errors.Is(err, compact.ErrNoSavings) {
			require.ErrorIs(t, err, compact.ErrNothingToCompress)
		}
		return items, nil
	}
	return out, res
}

// requireItemContracts checks out, the compaction of in that res reports:
// a valid request; every item outside the summarised range, but a pruned
// one, back as the same value and in order; every reasoning item of the
// output one of the input's, right before the item it preceded there; the
// last item the same; at most one summary (ours or the provider's).
func requireItemContracts(t *testing.T, in, out []Item, res *compact.Result) {
	t.Helper()
	if res == nil {
		return
	}
	require.NoError(t, ValidateItems(out), "the compacted history is a valid request")
	require.Equal(t, len(out), res.MessagesAfter)
	require.Equal(t, len(in), res.MessagesBefore)

	inConv, err := ConvertItems(in)
	require.NoError(t, err)
	pruned := map[int]bool{}
	for _, p := range res.Pruned {
		from, to := p.Index, p.Index+1
		for j := range inConv.spans {
			if inConv.spans[j].from == p.Index {
				from, to = inConv.Items(j)
			}
		}
		for i := from; i < to; i++ {
			pruned[i] = true
		}
	}
	at := 0
	for i := range in {
		summarised := i >= res.SummarizedFrom && i <= res.SummarizedTo && !liftedItem(inConv, res.Lifted, i)
		if summarised || pruned[i] || i < inConv.firstItem(inConv.spans[0]) {
			continue
		}
		if i == 0 || inConv.sorted.kinds[i] == kindInstruction && i < len(in) && isLead(inConv, i) {
			continue // the system prompt may carry the note
		}
		for at < len(out) && !sameOrShared(t, in[i], out[at]) {
			at++
		}
		require.Less(t, at, len(out), "item %d (%s) is back as the same value, in order", i, inConv.itemType(i))
		at++
	}
	require.True(t, sameOrShared(t, in[len(in)-1], out[len(out)-1]), "the last item is the same value")
	if u := inConv.latestUser(len(inConv.views)); u >= 0 {
		for _, item := range inConv.original(u) {
			require.True(t, slices.ContainsFunc(out, func(o Item) bool { return sameOrShared(t, item, o) }),
				"the latest real user message comes back verbatim")
		}
	}

	if res.Account != nil {
		require.Len(t, res.Account, len(in), "the account has every input item")
		for i, f := range res.Account {
			require.Equal(t, i, f.Index, "once each, in order")
			require.Less(t, f.Output, len(out))
			if f.Fate == "kept" || f.Fate == "lifted" {
				require.True(t, sameOrShared(t, in[i], out[f.Output]) || isLead(inConv, i),
					"item %d, %s, is at its output index", i, f.Fate)
			}
		}
	}

	outConv, err := ConvertItems(out)
	require.NoError(t, err)
	if l := inConv.leadEnd(); l < len(inConv.views) && inConv.views[l].Role == compact.RoleUser {
		l = outConv.leadEnd()
		require.True(t, l == len(outConv.views) || outConv.views[l].Role == compact.RoleUser,
			"the history opened on a user turn, and still does (compact.WithUserFirst)")
	}
	summaries := 0
	for _, v := range outConv.views {
		if compact.IsSummary(v) {
			summaries++
		}
	}
	require.LessOrEqual(t, summaries, 1, "one summary at most, ours or the provider's")
	for i, w := range outConv.wires {
		if w.Type != typeReasoning {
			continue
		}
		j := indexOf(in, out[i])
		require.GreaterOrEqual(t, j, 0, "reasoning item %d of the output is one of the input's", i)
		require.Less(t, i+1, len(out))
		require.Less(t, j+1, len(in))
		require.True(t, reflect.DeepEqual(in[j+1], out[i+1]), "reasoning item %d stays before the item it preceded", i)
	}
}

func liftedItem(c *ItemConversion, lifted, i int) bool {
	if lifted < 0 {
		return false
	}
	for j := range c.spans {
		if c.spans[j].from == lifted {
			return i >= c.spans[j].from && i < c.spans[j].to
		}
	}
	return false
}

// isLead reports whether item i belongs to the leading instructions.
func isLead(c *ItemConversion, i int) bool {
	lead := c.leadEnd()
	return lead > 0 && i < c.spans[lead-1].to
}

func indexOf(items []Item, u Item) int {
	for i := range items {
		if reflect.DeepEqual(items[i], u) {
			return i
		}
	}
	return -1
}

// sameOrShared reports whether out is in, or in with a summary merged in
// front of its content (compact.WithUserFirst): a leading text part, or
// its string after the summary; every other field the same. A summary
// merged into in is not compared: the message's own content is, an empty
// list reading as no content (a summary merged into a user item with none
// is a list of the summary alone).
func sameOrShared(t testing.TB, in, out Item) bool {
	t.Helper()
	if reflect.DeepEqual(in, out) {
		return true
	}
	var both []map[string]any
	if json.Unmarshal([]byte(encodeItems(t, []Item{in, out})), &both) != nil || len(both) != 2 {
		return false
	}
	for _, m := range both {
		switch c := m["content"].(type) {
		case string:
			if strings.HasPrefix(c, "[Context handoff]") {
				if _, own, ok := strings.Cut(c, "[End of context handoff]"+align.LeadSep); ok {
					m["content"] = own
				} else if strings.HasSuffix(c, "[End of context handoff]") {
					m["content"] = "" // merged into an empty string
				}
			}
		case []any:
			if len(c) == 0 {
				break
			}
			if first, ok := c[0].(map[string]any); ok && strings.HasPrefix(fmt.Sprint(first["text"]), "[Context handoff]") {
				m["content"] = c[1:]
			}
		}
		if c, ok := m["content"].([]any); ok && len(c) == 0 {
			delete(m, "content") // no content of its own: a list of none, or none
		}
	}
	return reflect.DeepEqual(both[0], both[1])
}
