package openaigo_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/responses"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/adapt/openaigo"
)

// itemHistory is a Responses conversation of a reasoning model: a system
// prompt, a question, three rounds of reasoning and a function call and a
// custom call answered, and a follow-up.
func itemHistory() []responses.ResponseInputItemUnionParam {
	items := []responses.ResponseInputItemUnionParam{
		responses.ResponseInputItemParamOfMessage("You are a coding agent.", responses.EasyInputMessageRoleSystem),
		responses.ResponseInputItemParamOfMessage("Where is the retry budget set?", responses.EasyInputMessageRoleUser),
	}
	long := strings.Repeat("// retry helpers: wait, back off, give up after the budget.\n", 40)
	for i := 1; i <= 3; i++ {
		a, b := fmt.Sprintf("call_%da", i), fmt.Sprintf("call_%db", i)
		reasoning := responses.ResponseInputItemParamOfReasoning(fmt.Sprintf("rs_%d", i),
			[]responses.ResponseReasoningItemSummaryParam{{Text: "Look at the next file."}})
		reasoning.OfReasoning.EncryptedContent = param.NewOpt(strings.Repeat("gAAAAB", 50))
		out := responses.ResponseInputItemParamOfFunctionCallOutput(long)
		out.OfFunctionCallOutput.CallID = param.NewOpt(a)
		items = append(items, reasoning,
			responses.ResponseInputItemParamOfFunctionCall(fmt.Sprintf(`{"path":"retry%d.go"}`, i), a, "read_file"),
			responses.ResponseInputItemParamOfCustomToolCall(b, "DefaultBudget", "grep"),
			out,
			responses.ResponseInputItemParamOfCustomToolCallOutput(b, "grep: no matches"))
	}
	return append(items,
		responses.ResponseInputItemParamOfMessage("Helpers only so far; nothing sets the budget.", responses.EasyInputMessageRoleAssistant),
		responses.ResponseInputItemParamOfMessage("Then check config/defaults.go.", responses.EasyInputMessageRoleUser))
}

// describeItems prints each item's type (and a message's role).
func describeItems(items []responses.ResponseInputItemUnionParam) {
	for _, u := range items {
		var w struct{ Type, Role string }
		data, _ := json.Marshal(u)
		_ = json.Unmarshal(data, &w)
		if w.Type == "" {
			w.Type = "message" // the SDK's helpers leave a message's type out
		}
		fmt.Println(" ", strings.TrimSpace(w.Type+" "+w.Role))
	}
}

func ExampleCompressItems() {
	items := itemHistory()
	engine := compact.New(compact.WithContextWindow(2000))
	out, res, err := openaigo.CompressItems(context.Background(), engine, items, compact.Force())
	if err != nil {
		fmt.Println("carry on with the history as it is:", err)
		return
	}
	fmt.Printf("%d items -> %d:\n", len(items), len(out))
	describeItems(out)
	fmt.Println("summarised items", res.SummarizedFrom, "to", res.SummarizedTo)
	fmt.Println("valid request:", openaigo.ValidateItems(out) == nil)
	// Output:
	// 19 items -> 9:
	//   message system
	//   message user
	//   reasoning
	//   function_call
	//   custom_tool_call
	//   function_call_output
	//   custom_tool_call_output
	//   message assistant
	//   message user
	// summarised items 1 to 11
	// valid request: true
}

func ExampleConvertItems() {
	conv, err := openaigo.ConvertItems(itemHistory()[:7])
	if err != nil {
		panic(err)
	}
	for i, m := range conv.Messages {
		from, to := conv.Items(i)
		line := fmt.Sprintf("items %d-%d: %s", from, to-1, m.Role)
		for _, c := range m.ToolCalls {
			line += " " + c.Function.Name + "(" + c.Function.Arguments + ")"
		}
		fmt.Println(line)
	}
	// Output:
	// items 0-0: system
	// items 1-1: user
	// items 2-4: assistant read_file({"path":"retry1.go"}) grep(DefaultBudget)
	// items 5-5: tool
	// items 6-6: tool
}

func ExampleItemConversion_Restore() {
	items := itemHistory()
	conv, err := openaigo.ConvertItems(items)
	if err != nil {
		panic(err)
	}
	// An engine that shortens the first custom call's input and keeps the
	// rest of the turn.
	msgs := compact.Clone(conv.Messages)
	msgs[2].ToolCalls[1].Function.Arguments = "Default…"
	restored, err := conv.Restore(msgs)
	if err != nil {
		panic(err)
	}
	fmt.Println("custom input:", restored[4].OfCustomToolCall.Input)
	fmt.Println("reasoning unchanged:", restored[2].OfReasoning.ID == items[2].OfReasoning.ID)
	// Output:
	// custom input: Default…
	// reasoning unchanged: true
}

func ExampleItemConversion_Items() {
	conv, err := openaigo.ConvertItems(itemHistory())
	if err != nil {
		panic(err)
	}
	from, to := conv.Items(2) // the first turn of the model
	fmt.Println(len(conv.Messages), "messages;", "the first turn is items", from, "to", to-1)
	// Output:
	// 13 messages; the first turn is items 2 to 4
}

func ExampleValidateItems() {
	items := itemHistory()
	fmt.Println(openaigo.ValidateItems(items))
	fmt.Println(openaigo.ValidateItems(append(items[:5:5], items[6:]...))) // call_1a loses its output
	fmt.Println(openaigo.ValidateItems(append(items[:3:3], items[5:]...))) // the reasoning loses its call
	// Output:
	// <nil>
	// item 3 (function_call): tool call "call_1a" (read_file) is never answered
	// item 2 (reasoning): reasoning item "rs_1" is followed by no message or call of its turn
}

func ExampleItemsFromMessages() {
	items, err := openaigo.ItemsFromMessages([]compact.Message{
		{Role: compact.RoleSystem, Content: "Be brief."},
		{Role: compact.RoleUser, Content: "Hi."},
	})
	if err != nil {
		panic(err)
	}
	body, _ := json.Marshal(items)
	fmt.Println(string(body))
	// Output:
	// [{"content":"Be brief.","role":"system","type":"message"},{"content":"Hi.","role":"user","type":"message"}]
}

func ExampleDecodeItems() {
	// A stored history: a message as the SDK's helpers write it (no type),
	// and an output message with its id, which the SDK's own decoder drops.
	stored := `[{"role":"user","content":"Hi."},
		{"type":"message","role":"assistant","id":"msg_1","status":"completed","content":[{"type":"output_text","text":"Hello.","annotations":[]}]}]`
	items, err := openaigo.DecodeItems([]byte(stored))
	if err != nil {
		panic(err)
	}
	body, _ := json.Marshal(items)
	fmt.Println(string(body))
	// Output:
	// [{"role":"user","content":"Hi."},{"type":"message","role":"assistant","id":"msg_1","status":"completed","content":[{"type":"output_text","text":"Hello.","annotations":[]}]}]
}

func ExampleShouldCompressItems() {
	for _, window := range []int{128_000, 1_000} {
		ok, err := openaigo.ShouldCompressItems(compact.New(compact.WithContextWindow(window)), itemHistory())
		fmt.Println(window, ok, err)
	}
	// Output:
	// 128000 false <nil>
	// 1000 true <nil>
}

func ExampleUsageFromResponse() {
	var resp responses.Response // as Responses.New returns it
	resp.Usage.InputTokens, resp.Usage.OutputTokens, resp.Usage.TotalTokens = 31200, 400, 31600
	resp.Usage.InputTokensDetails.CachedTokens = 30000
	u := openaigo.UsageFromResponse(resp.Usage)
	fmt.Println(u.PromptTokens, u.CachedTokens, u.CompletionTokens)
	// Output:
	// 31200 30000 400
}

func ExampleNewNativeEngine() {
	// A local stand-in for the API's compaction endpoint: it keeps the
	// user messages and adds one compaction item, as the API does.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"id":"cmp_1","object":"response.compaction","created_at":1,"output":[
			{"type":"message","role":"user","content":[{"type":"input_text","text":"Where is the retry budget set?"}]},
			{"type":"message","role":"user","content":[{"type":"input_text","text":"Then check config/defaults.go."}]},
			{"type":"compaction","encrypted_content":"gAAAAB..."}],
			"usage":{"input_tokens":1900,"output_tokens":300,"total_tokens":2200}}`)
	}))
	defer srv.Close()
	client := openai.NewClient(option.WithAPIKey("key"), option.WithBaseURL(srv.URL))

	engine := openaigo.NewNativeEngine(client.Responses, "gpt-5",
		compact.New(compact.WithContextWindow(2000)), // the fallback, and the threshold
		openaigo.WithTimeout(30*time.Second))
	out, res, err := openaigo.CompressItems(context.Background(), engine, itemHistory())
	if err != nil {
		panic(err)
	}
	describeItems(out)
	fmt.Println("by", res.Summarizer, "fallback:", res.Fallback, "cost:", engine.LastUsage().TotalTokens, "tokens")
	// Output:
	//   message system
	//   message user
	//   message user
	//   compaction
	// by openai:/responses/compact fallback: false cost: 2200 tokens
}

func ExampleItemsFromOutput() {
	// A response as Responses.New returns it (here decoded from its JSON).
	var resp responses.Response
	_ = json.Unmarshal([]byte(`{"id":"resp_1","object":"response","status":"completed","output":[
		{"type":"reasoning","id":"rs_1","summary":[],"encrypted_content":"gAAAAB..."},
		{"type":"function_call","id":"fc_1","call_id":"call_1","name":"read_file","arguments":"{\"path\":\"go.mod\"}","status":"completed"}]}`), &resp)

	input := []responses.ResponseInputItemUnionParam{
		responses.ResponseInputItemParamOfMessage("What does go.mod require?", responses.EasyInputMessageRoleUser)}
	input = append(input, openaigo.ItemsFromOutput(resp.Output)...)
	describeItems(input)
	fmt.Println("reasoning kept:", input[1].OfReasoning.EncryptedContent.Value)
	// Output:
	//   message user
	//   reasoning
	//   function_call
	// reasoning kept: gAAAAB...
}
