package openaigo

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/responses"
	"github.com/stretchr/testify/require"

	"github.com/contextkit/compact"
)

// genHistory generates a Responses history the API accepts, from seed:
// instructions, then turns of a user message and model work (reasoning
// before what it led to, text, parallel calls of every client kind,
// hosted calls) answered by outputs in any order, sometimes a provider's
// compaction item between turns, and sometimes a group of calls still
// pending at the end. Some items are typed, some raw JSON, as hosts hold
// them.
func genHistory(seed uint64) []Item {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	g := &gen{r: r}
	var items []Item
	if r.IntN(4) > 0 {
		items = append(items, g.instruction())
	}
	turns := 1 + r.IntN(12)
	for t := 0; t < turns; t++ {
		if t > 0 && r.IntN(8) == 0 {
			items = append(items, responses.ResponseInputItemParamOfCompaction(g.blob(40+r.IntN(400))))
		}
		items = append(items, g.user(t))
		steps := r.IntN(4)
		for s := 0; s <= steps; s++ {
			last := t == turns-1 && s == steps
			calls := 0
			if !last || r.IntN(3) == 0 {
				calls = r.IntN(4)
			}
			pending := last && calls > 0
			items = append(items, g.modelTurn(calls, pending)...)
		}
	}
	return items
}

// gen makes the parts of generated histories.
type gen struct {
	r     *rand.Rand
	calls int
}

func (g *gen) blob(n int) string {
	const b64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
	var b strings.Builder
	for i := 0; i < n; i++ {
		b.WriteByte(b64[g.r.IntN(len(b64))])
	}
	return b.String()
}

func (g *gen) words(n int) string {
	vocab := []string{"retry", "budget", "config", "parser", "flag", "legacy", "test", "build", "release", "notes", "cache", "token"}
	ws := make([]string, n)
	for i := range ws {
		ws[i] = vocab[g.r.IntN(len(vocab))]
	}
	return strings.Join(ws, " ")
}

func (g *gen) instruction() Item {
	if g.r.IntN(2) == 0 {
		return responses.ResponseInputItemParamOfMessage("You are a coding agent. "+g.words(8), responses.EasyInputMessageRoleSystem)
	}
	return Item{OfInputMessage: &responses.ResponseInputItemMessageParam{Role: "developer",
		Content: responses.ResponseInputMessageContentListParam{responses.ResponseInputContentParamOfInputText("Follow the style. " + g.words(6))}}}
}

func (g *gen) user(t int) Item {
	text := fmt.Sprintf("Step %d: %s", t, g.words(3+g.r.IntN(20)))
	switch g.r.IntN(3) {
	case 0:
		return responses.ResponseInputItemParamOfMessage(text, responses.EasyInputMessageRoleUser)
	case 1:
		return param.Override[Item](json.RawMessage(fmt.Sprintf(`{"type":"message","role":"user","content":[{"type":"input_text","text":%q}]}`, text)))
	}
	return responses.ResponseInputItemParamOfMessage(responses.ResponseInputMessageContentListParam{
		responses.ResponseInputContentParamOfInputText(text),
		{OfInputImage: &responses.ResponseInputImageParam{Detail: "low", ImageURL: param.NewOpt("https://example.com/shot.png")}},
	}, responses.EasyInputMessageRoleUser)
}

// modelTurn is one response's output and, unless pending, the outputs of
// its calls.
func (g *gen) modelTurn(calls int, pending bool) []Item {
	var out, outputs []Item
	if g.r.IntN(3) > 0 {
		id := fmt.Sprintf("rs_%d", g.r.Uint32())
		if g.r.IntN(2) == 0 {
			out = append(out, param.Override[Item](json.RawMessage(fmt.Sprintf(
				`{"type":"reasoning","id":%q,"summary":[],"encrypted_content":%q}`, id, g.blob(100+g.r.IntN(2000))))))
		} else {
			rs := responses.ResponseInputItemParamOfReasoning(id, []responses.ResponseReasoningItemSummaryParam{{Text: g.words(6)}})
			rs.OfReasoning.EncryptedContent = param.NewOpt(g.blob(100 + g.r.IntN(2000)))
			out = append(out, rs)
		}
	}
	if g.r.IntN(5) == 0 {
		out = append(out, param.Override[Item](json.RawMessage(fmt.Sprintf(
			`{"type":"web_search_call","id":"ws_%d","action":{"type":"search","query":%q},"status":"completed"}`, g.r.Uint32(), g.words(2)))))
	}
	if calls == 0 || g.r.IntN(3) == 0 {
		text := g.words(2 + g.r.IntN(30))
		if g.r.IntN(2) == 0 {
			out = append(out, responses.ResponseInputItemParamOfMessage(text, responses.EasyInputMessageRoleAssistant))
		} else {
			out = append(out, Item{OfOutputMessage: &responses.ResponseOutputMessageParam{ID: fmt.Sprintf("msg_%d", g.r.Uint32()), Status: "completed",
				Content: []responses.ResponseOutputMessageContentUnionParam{{OfOutputText: &responses.ResponseOutputTextParam{
					Text: text, Annotations: []responses.ResponseOutputTextAnnotationUnionParam{}}}}}})
		}
	}
	for c := 0; c < calls; c++ {
		g.calls++
		id := fmt.Sprintf("call_%d", g.calls)
		call, output := g.callPair(id)
		out = append(out, call)
		outputs = append(outputs, output)
	}
	if pending {
		return out
	}
	g.r.Shuffle(len(outputs), func(i, j int) { outputs[i], outputs[j] = outputs[j], outputs[i] })
	return append(out, outputs...)
}

// callPair is a call of a random kind and its output, long now and then.
func (g *gen) callPair(id string) (Item, Item) {
	result := g.words(5 + g.r.IntN(40))
	if g.r.IntN(4) == 0 {
		result = strings.Repeat(result+"\n", 10+g.r.IntN(60))
	}
	switch g.r.IntN(7) {
	case 6:
		args, _ := json.Marshal(map[string]string{"path": "pkg/" + g.words(1) + ".go", "content": g.words(40 + g.r.IntN(200))})
		fco := responses.ResponseInputItemParamOfFunctionCallOutput("written")
		fco.OfFunctionCallOutput.CallID = param.NewOpt(id)
		return responses.ResponseInputItemParamOfFunctionCall(string(args), id, "write_file"), fco
	case 0:
		return responses.ResponseInputItemParamOfCustomToolCall(id, "grep "+g.words(1+g.r.IntN(60)), "grep"),
			responses.ResponseInputItemParamOfCustomToolCallOutput(id, result)
	case 1:
		return param.Override[Item](json.RawMessage(fmt.Sprintf(`{"type":"shell_call","call_id":%q,"action":{"commands":["go test ./..."]},"status":"completed"}`, id))),
			param.Override[Item](json.RawMessage(fmt.Sprintf(`{"type":"shell_call_output","call_id":%q,"output":[{"stdout":%q,"stderr":"","outcome":{"type":"exit","exit_code":0}}]}`, id, result)))
	case 2:
		return param.Override[Item](json.RawMessage(fmt.Sprintf(`{"type":"apply_patch_call","call_id":%q,"operation":{"type":"update_file","path":"a.go","diff":"-a\n+b"},"status":"completed"}`, id))),
			param.Override[Item](json.RawMessage(fmt.Sprintf(`{"type":"apply_patch_call_output","call_id":%q,"status":"completed","output":%q}`, id, result)))
	case 3:
		fco := responses.ResponseInputItemParamOfFunctionCallOutput(responses.ResponseFunctionCallOutputItemListParam{
			{OfInputText: &responses.ResponseInputTextContentParam{Text: result}}})
		fco.OfFunctionCallOutput.CallID = param.NewOpt(id)
		return responses.ResponseInputItemParamOfFunctionCall(fmt.Sprintf(`{"path":"pkg/%s.go"}`, g.words(1)), id, "read_file"), fco
	}
	fco := responses.ResponseInputItemParamOfFunctionCallOutput(result)
	fco.OfFunctionCallOutput.CallID = param.NewOpt(id)
	return responses.ResponseInputItemParamOfFunctionCall(fmt.Sprintf(`{"path":"pkg/%s.go","lines":[1,%d]}`, g.words(1), g.r.IntN(900)), id, "read_file"), fco
}

func TestGeneratedHistoriesAreValidRequests(t *testing.T) {
	for seed := uint64(0); seed < generatedSeeds(); seed++ {
		items := genHistory(seed)
		require.NoError(t, ValidateItems(items), "seed %d", seed)
		require.NoError(t, compact.Validate(itemViews(t, items)), "seed %d", seed)
	}
}
