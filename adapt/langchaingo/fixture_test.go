package langchaingo

import "github.com/tmc/langchaingo/llms"

// everyPartJSON is a history, as langchaingo encodes one, with every part
// type in every place langchaingo's providers take it: a system prompt of
// two parts; a human message with text, an image URL with its detail and
// binary data (an image and a PDF); AI messages with text and parallel
// tool calls; a tool message answering two calls at once and one
// answering one; a generic message and a deprecated function message.
const everyPartJSON = `[
 {"role": "system", "parts": [{"type": "text", "text": "You are a careful release engineer."}, {"type": "text", "text": "Answer in English."}]},
 {"role": "human", "parts": [
  {"type": "text", "text": "Check these release notes against the screenshot."},
  {"type": "image_url", "image_url": {"url": "https://example.com/shot.png", "detail": "high"}},
  {"type": "binary", "binary": {"mime_type": "image/png", "data": "iVBORw0KGgo="}},
  {"type": "binary", "binary": {"mime_type": "application/pdf", "data": "JVBERi0xLjQK"}}
 ]},
 {"role": "ai", "parts": [
  {"type": "text", "text": "Reading both files."},
  {"type": "tool_call", "tool_call": {"id": "call_1", "type": "function", "function": {"name": "read_file", "arguments": "{\"path\":\"CHANGELOG.md\"}"}}},
  {"type": "tool_call", "tool_call": {"id": "call_2", "type": "function", "function": {"name": "read_file", "arguments": "{\"path\":\"flags.go\",\"lines\":[1,40]}"}}}
 ]},
 {"role": "tool", "parts": [
  {"type": "tool_response", "tool_response": {"tool_call_id": "call_1", "name": "read_file", "content": "## v2\n- drop --legacy"}},
  {"type": "tool_response", "tool_response": {"tool_call_id": "call_2", "name": "read_file", "content": "open flags.go: no such file"}}
 ]},
 {"role": "ai", "parts": [
  {"type": "tool_call", "tool_call": {"id": "call_3", "type": "function", "function": {"name": "grep", "arguments": "{\"pattern\":\"legacy\"}"}}}
 ]},
 {"role": "tool", "parts": [{"type": "tool_response", "tool_response": {"tool_call_id": "call_3", "name": "grep", "content": "cmd/flags.go:12: legacy"}}]},
 {"role": "generic", "text": "A reviewer says: the notes look right."},
 {"role": "function", "parts": [{"type": "tool_response", "tool_response": {"tool_call_id": "", "name": "lint", "content": "0 issues"}}]},
 {"role": "ai", "text": "v2 removes --legacy; flags moved to cmd/flags.go."},
 {"role": "human", "text": "Summarise what changed."}
]`

// everyPart is a history built in Go, pointer parts included (they
// implement llms.ContentPart too).
func everyPart() []llms.MessageContent {
	return []llms.MessageContent{
		llms.TextParts(llms.ChatMessageTypeSystem, "You are a coding agent."),
		{Role: llms.ChatMessageTypeHuman, Parts: []llms.ContentPart{llms.TextPart("Read a.go."),
			llms.ImageURLWithDetailPart("data:image/png;base64,AAAA", "low"), llms.BinaryPart("image/jpeg", []byte{0xff, 0xd8})}},
		{Role: llms.ChatMessageTypeAI, Parts: []llms.ContentPart{
			&llms.ToolCall{ID: "c1", Type: "function", FunctionCall: &llms.FunctionCall{Name: "read_file", Arguments: `{"path":"a.go"}`}}}},
		{Role: llms.ChatMessageTypeTool, Parts: []llms.ContentPart{&llms.ToolCallResponse{ToolCallID: "c1", Name: "read_file", Content: "package a"}}},
		{Role: llms.ChatMessageTypeAI, Parts: []llms.ContentPart{&llms.TextContent{Text: "a.go is a package."}}},
	}
}
