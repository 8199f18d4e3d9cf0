package openaigo

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/responses"
	"github.com/stretchr/testify/require"
)

// everyItemJSON is a Responses history with every input item type the SDK
// defines, in an order the API accepts: instructions (a developer message
// with a prompt cache breakpoint, additional tools, a configuration
// update), a user message with images and files, a turn of reasoning, text
// and every kind of call the host answers, their outputs, a turn of hosted
// calls (web and file search, image generation, code interpreter, MCP) and
// of the calls answered only sometimes (an MCP approval request, a client
// tool search, a program), their outputs, a compaction item with a trigger
// and a reference after it, and a last user message.
const everyItemJSON = `[
 {"type":"message","role":"developer","content":[{"type":"input_text","text":"Follow the repository's style.","prompt_cache_breakpoint":{"mode":"explicit","ttl":"1h"}}]},
 {"type":"additional_tools","role":"developer","tools":[{"type":"function","name":"deploy","parameters":{"type":"object"},"strict":true}]},
 {"type":"configuration_update","reasoning":{"effort":"high"}},
 {"type":"message","role":"user","content":[
  {"type":"input_text","text":"Check the notes against the screenshot."},
  {"type":"input_image","image_url":"data:image/png;base64,iVBORw0KGgo=","detail":"low"},
  {"type":"input_image","file_id":"file-img","detail":"auto"},
  {"type":"input_file","file_id":"file-abc","filename":"notes.pdf"},
  {"type":"input_file","file_data":"JVBERi0xLjQK","filename":"spec.pdf"}]},
 {"type":"reasoning","id":"rs_1","summary":[{"type":"summary_text","text":"Read the notes first."}],"encrypted_content":"gAAAAABencryptedreasoningblob"},
 {"type":"message","role":"assistant","content":"I will read them."},
 {"type":"function_call","call_id":"call_1","name":"read_file","arguments":"{\"path\":\"NOTES.md\"}","id":"fc_1","status":"completed"},
 {"type":"custom_tool_call","call_id":"call_2","name":"grep","input":"legacy flags/"},
 {"type":"computer_call","id":"cu_1","call_id":"call_3","action":{"type":"screenshot"},"pending_safety_checks":[],"status":"completed"},
 {"type":"local_shell_call","id":"ls_1","call_id":"call_4","action":{"type":"exec","command":["ls"],"env":{}},"status":"completed"},
 {"type":"shell_call","call_id":"call_5","action":{"commands":["go test ./..."]}},
 {"type":"apply_patch_call","call_id":"call_6","operation":{"type":"update_file","path":"a.go","diff":"@@ -1 +1 @@\n-a\n+b"},"status":"completed"},
 {"type":"function_call_output","call_id":"call_1","output":"## v2\n- drop --legacy"},
 {"type":"custom_tool_call_output","call_id":"call_2","output":[{"type":"input_text","text":"flags/legacy.go:3"},{"type":"input_text","text":"flags/legacy_test.go:9"}]},
 {"type":"computer_call_output","call_id":"call_3","output":{"type":"computer_screenshot","image_url":"data:image/png;base64,AAAA"}},
 {"type":"local_shell_call_output","id":"call_4","output":"{\"stdout\":\"a.go\"}"},
 {"type":"shell_call_output","call_id":"call_5","output":[{"stdout":"ok","stderr":"warn","outcome":{"type":"exit","exit_code":0}}]},
 {"type":"apply_patch_call_output","call_id":"call_6","status":"completed","output":"patched"},
 {"type":"web_search_call","id":"ws_1","action":{"type":"search","query":"go release notes"},"status":"completed"},
 {"type":"file_search_call","id":"fs_1","queries":["legacy"],"status":"completed","results":[{"file_id":"f1","text":"legacy flag","filename":"a.md","score":0.5}]},
 {"type":"image_generation_call","id":"ig_1","result":"iVBORw0KGgo=","status":"completed"},
 {"type":"code_interpreter_call","id":"ci_1","code":"print(1)","container_id":"c1","outputs":[{"type":"logs","logs":"1"}],"status":"completed"},
 {"type":"mcp_list_tools","id":"ml_1","server_label":"gh","tools":[{"name":"issues","input_schema":{}}]},
 {"type":"mcp_call","id":"mc_1","server_label":"gh","name":"issues","arguments":"{}","output":"3 open"},
 {"type":"mcp_approval_request","id":"ma_1","server_label":"gh","name":"close","arguments":"{\"n\":3}"},
 {"type":"tool_search_call","call_id":"ts_1","arguments":{"query":"deploy"},"execution":"client"},
 {"type":"program","id":"pg_1","call_id":"pc_1","code":"tools.read()","fingerprint":"fp_1"},
 {"type":"mcp_approval_response","approval_request_id":"ma_1","approve":true},
 {"type":"tool_search_output","call_id":"ts_1","tools":[{"type":"function","name":"deploy","parameters":{"type":"object"},"strict":true}],"execution":"client"},
 {"type":"program_output","id":"po_1","call_id":"pc_1","result":"done","status":"completed"},
 {"type":"message","role":"assistant","content":[{"type":"output_text","text":"All checked.","annotations":[]}]},
 {"type":"compaction","encrypted_content":"gAAAAABencryptedcompaction","id":"cmp_1"},
 {"type":"compaction_trigger"},
 {"type":"item_reference","id":"msg_0"},
 {"type":"message","role":"user","content":"Thanks."}
]`

// typedItems decodes data item by item with the SDK's own decoder, so that
// every item is typed (its variant set).
func typedItems(t testing.TB, data string) []Item {
	t.Helper()
	var raws []json.RawMessage
	require.NoError(t, json.Unmarshal([]byte(data), &raws))
	out := make([]Item, 0, len(raws))
	for i, raw := range raws {
		var u Item
		require.NoError(t, json.Unmarshal(raw, &u), "item %d", i)
		out = append(out, u)
	}
	return out
}

// sdkBuiltItems are items as a host builds them with the SDK: the typed
// variants a decoder never picks (an input message with a status, an
// output message with an id), the helpers' messages with no type, and items
// a host made from a response with ToParam, which hold raw JSON.
func sdkBuiltItems() []Item {
	return []Item{
		{OfInputMessage: &responses.ResponseInputItemMessageParam{Role: "system", Status: "completed",
			Content: responses.ResponseInputMessageContentListParam{responses.ResponseInputContentParamOfInputText("You are a release agent.")}}},
		responses.ResponseInputItemParamOfMessage("Where is the retry budget set?", responses.EasyInputMessageRoleUser),
		param.Override[Item](json.RawMessage(`{"type":"reasoning","id":"rs_9","summary":[],"encrypted_content":"gAAAAABraw"}`)),
		{OfOutputMessage: &responses.ResponseOutputMessageParam{ID: "msg_9", Status: "completed", Phase: "commentary",
			Content: []responses.ResponseOutputMessageContentUnionParam{
				{OfOutputText: &responses.ResponseOutputTextParam{Text: "Looking.", Annotations: []responses.ResponseOutputTextAnnotationUnionParam{}}},
				{OfRefusal: &responses.ResponseOutputRefusalParam{Refusal: "Not the secrets."}}}}},
		responses.ResponseInputItemParamOfFunctionCall(`{"path":"retry.go"}`, "call_9", "read_file"),
		param.Override[Item](json.RawMessage(`{"type":"function_call_output","call_id":"call_9","output":"const Budget = 3","x-trace":"abc"}`)),
		responses.ResponseInputItemParamOfMessage("Thanks.", responses.EasyInputMessageRoleUser),
	}
}

// everyVariant reports which variant fields of the union no item of items
// sets, by name.
func missingVariants(items []Item) []string {
	set := map[string]bool{}
	for _, u := range items {
		v := reflect.ValueOf(u)
		for i := 0; i < v.NumField(); i++ {
			if f := v.Field(i); f.Kind() == reflect.Pointer && !f.IsNil() {
				set[v.Type().Field(i).Name] = true
			}
		}
	}
	var missing []string
	t := reflect.TypeOf(Item{})
	for i := 0; i < t.NumField(); i++ {
		if f := t.Field(i); f.Type.Kind() == reflect.Pointer && !set[f.Name] {
			missing = append(missing, f.Name)
		}
	}
	return missing
}
