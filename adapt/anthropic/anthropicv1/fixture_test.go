package anthropicv1

import (
	"encoding/json"

	sdk "github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/packages/param"
)

// everyBlockJSON is a request body with every kind of block the Messages
// API takes, in the places it takes them: parallel tool_use blocks, one
// user turn answering them with is_error set on one, images by base64 and
// URL, documents of every source, thinking and redacted thinking, citations,
// cache_control at several levels, server tool blocks, a search result and
// a container upload. (A block type the SDK does not know cannot be in it:
// the SDK decodes a content list holding one as no blocks at all. The
// tests build such a block with param.Override instead.)
const everyBlockJSON = `{
 "system": [
  {"type": "text", "text": "You are a careful release engineer.", "cache_control": {"type": "ephemeral", "ttl": "1h"}},
  {"type": "text", "text": "Answer in English."}
 ],
 "messages": [
  {"role": "user", "content": [
   {"type": "text", "text": "Check these release notes against the screenshot.", "cache_control": {"type": "ephemeral"}},
   {"type": "document", "title": "notes.pdf", "context": "draft", "citations": {"enabled": true},
    "source": {"type": "base64", "media_type": "application/pdf", "data": "JVBERi0xLjQK"}},
   {"type": "document", "source": {"type": "text", "media_type": "text/plain", "data": "v2 drops the legacy flag."}},
   {"type": "document", "source": {"type": "url", "url": "https://example.com/notes.pdf"}},
   {"type": "document", "source": {"type": "file", "file_id": "file_011"}},
   {"type": "document", "source": {"type": "content", "content": [{"type": "text", "text": "chunk one"}]}},
   {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}},
   {"type": "image", "source": {"type": "url", "url": "https://example.com/shot.png"}},
   {"type": "image", "source": {"type": "file", "file_id": "file_012"}}
  ]},
  {"role": "assistant", "content": [
   {"type": "thinking", "thinking": "Two files to read; read both at once.", "signature": "EqQBCgIYAhIM"},
   {"type": "redacted_thinking", "data": "EmwKAhgBEgy3va3pzix"},
   {"type": "text", "text": "Reading both files.", "citations": [
    {"type": "char_location", "cited_text": "v2", "document_index": 1, "start_char_index": 0, "end_char_index": 2, "document_title": null}]},
   {"type": "tool_use", "id": "toolu_01", "name": "read_file", "input": {"path": "CHANGELOG.md"}},
   {"type": "tool_use", "id": "toolu_02", "name": "read_file", "input": {"path": "flags.go", "lines": [1, 40]},
    "cache_control": {"type": "ephemeral", "ttl": "5m"}}
  ]},
  {"role": "user", "content": [
   {"type": "tool_result", "tool_use_id": "toolu_01", "content": [{"type": "text", "text": "## v2\n- drop --legacy"}]},
   {"type": "tool_result", "tool_use_id": "toolu_02", "is_error": true, "cache_control": {"type": "ephemeral"},
    "content": [{"type": "text", "text": "open flags.go: no such file"},
                {"type": "image", "source": {"type": "base64", "media_type": "image/jpeg", "data": "/9j/4AAQ"}}]},
   {"type": "text", "text": "The flags live in cmd/flags.go now."}
  ]},
  {"role": "assistant", "content": [
   {"type": "server_tool_use", "id": "srvtoolu_01", "name": "web_search", "input": {"query": "legacy flag removal"}},
   {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_01", "content": [
    {"type": "web_search_result", "title": "Removing flags", "url": "https://example.com/flags", "encrypted_content": "Eo8B", "page_age": "2 days"}]},
   {"type": "text", "text": "The notes match the code."}
  ]},
  {"role": "user", "content": [
   {"type": "search_result", "source": "https://example.com/kb", "title": "KB 12", "content": [{"type": "text", "text": "Flags are in cmd/."}]},
   {"type": "container_upload", "file_id": "file_013"},
   {"type": "text", "text": "Summarise what changed."}
  ]},
  {"role": "assistant", "content": [{"type": "text", "text": "v2 removes --legacy; flags moved to cmd/flags.go."}]}
 ]
}`

// everyBlock is a history built in Go with the SDK's constructors and
// fields: what an agent holds after a few turns.
func everyBlock() History {
	cc := sdk.CacheControlEphemeralParam{TTL: sdk.CacheControlEphemeralTTLTTL1h}
	read1 := sdk.NewToolUseBlock("toolu_a", map[string]any{"path": "a.go"}, "read_file")
	read2 := sdk.NewToolUseBlock("toolu_b", json.RawMessage(`{"path": "b.go"}`), "read_file")
	read2.OfToolUse.CacheControl = cc
	failed := sdk.NewToolResultBlock("toolu_b", "permission denied", true)
	failed.OfToolResult.CacheControl = cc
	text := sdk.NewTextBlock("Read a.go and b.go.")
	text.OfText.Citations = []sdk.TextCitationParamUnion{{OfCharLocation: &sdk.CitationCharLocationParam{
		CitedText: "a.go", DocumentTitle: param.NewOpt("tree"), EndCharIndex: 4}}}
	return History{
		System: []sdk.TextBlockParam{{Text: "You are a coding agent.", CacheControl: cc}},
		Messages: []sdk.MessageParam{
			sdk.NewUserMessage(text, sdk.NewImageBlock(sdk.URLImageSourceParam{URL: "https://example.com/a.png"})),
			sdk.NewAssistantMessage(sdk.NewThinkingBlock("sig", "both at once"), read1, read2),
			sdk.NewUserMessage(sdk.NewToolResultBlock("toolu_a", "package a", false), failed),
			sdk.NewAssistantMessage(sdk.NewRedactedThinkingBlock("opaque"), sdk.NewTextBlock("b.go is unreadable.")),
		},
	}
}
