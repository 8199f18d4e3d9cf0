package eino

// everyKindJSON is an eino history with every field and part kind
// schema.Message holds, in the places agents put them: a system prompt as
// parts, user input parts of every media kind (URL and inline), deprecated
// MultiContent parts, parallel tool calls with index and Extra, tool results
// with tool names, one as input parts, assistant output parts with a signed
// reasoning part and an image, reasoning content, response metadata with
// usage and log probabilities, Extra maps, a tool search result, and a
// turn with reasoning alone.
const everyKindJSON = `[
 {"role": "system", "content": "", "multi_content": [{"type": "text", "text": "You are a careful release engineer."}, {"type": "text", "text": "Answer in English."}]},
 {"role": "user", "content": "Check these release notes against the screenshot.", "name": "mia",
  "user_input_multi_content": [
   {"type": "image_url", "image": {"url": "https://example.com/shot.png", "detail": "high"}},
   {"type": "image_url", "image": {"base64data": "iVBORw0KGgo=", "mime_type": "image/png"}, "extra": {"k": "v"}},
   {"type": "audio_url", "audio": {"url": "https://example.com/note.wav", "mime_type": "audio/wav"}},
   {"type": "video_url", "video": {"base64data": "AAAA", "mime_type": "video/mp4"}},
   {"type": "file_url", "file": {"url": "https://example.com/notes.pdf", "mime_type": "application/pdf", "name": "notes.pdf"}}
  ]},
 {"role": "assistant", "content": "", "reasoning_content": "Two files to read; read both at once.",
  "tool_calls": [
   {"index": 0, "id": "call_1", "type": "function", "function": {"name": "read_file", "arguments": "{\"path\":\"CHANGELOG.md\"}"}},
   {"index": 1, "id": "call_2", "type": "function", "function": {"name": "read_file", "arguments": "{\"path\":\"flags.go\",\"lines\":[1,40]}"}, "extra": {"cache": true}}
  ],
  "response_meta": {"finish_reason": "tool_calls", "usage": {"prompt_tokens": 1200, "prompt_token_details": {"cached_tokens": 800, "cache_write_tokens": 0}, "completion_tokens": 40, "total_tokens": 1240, "completion_token_details": {"reasoning_tokens": 12}}},
  "extra": {"request_id": "req_9"}},
 {"role": "tool", "content": "## v2\n- drop --legacy", "tool_call_id": "call_1", "tool_name": "read_file"},
 {"role": "tool", "content": "", "tool_call_id": "call_2", "tool_name": "read_file",
  "user_input_multi_content": [{"type": "text", "text": "open flags.go: no such file"}, {"type": "image_url", "image": {"url": "https://example.com/err.png"}}]},
 {"role": "user", "content": "The flags live in cmd/flags.go now.",
  "multi_content": [{"type": "image_url", "image_url": {"url": "https://example.com/tree.png", "detail": "low"}}, {"type": "file_url", "file_url": {"uri": "file:///repo/cmd/flags.go", "name": "flags.go"}}]},
 {"role": "assistant", "content": "",
  "assistant_output_multi_content": [
   {"type": "reasoning", "reasoning": {"text": "The notes match the code.", "signature": "EqQBCgIYAhIM"}},
   {"type": "text", "text": "The notes match the code."},
   {"type": "image_url", "image": {"url": "https://example.com/diagram.png"}},
   {"type": "audio_url", "audio": {"base64data": "UklGRg==", "mime_type": "audio/wav"}}
  ],
  "response_meta": {"finish_reason": "stop", "logprobs": {"content": [{"token": "The", "logprob": -0.1, "top_logprobs": []}]}}},
 {"role": "user", "content": "",
  "user_input_multi_content": [{"type": "tool_search_result", "tool_search_result": {"Tools": [{"Name": "grep", "Desc": "search files"}]}}, {"type": "text", "text": "Summarise what changed."}]},
 {"role": "assistant", "content": "", "reasoning_content": "Nothing left to say."},
 {"role": "user", "content": "Go on."},
 {"role": "assistant", "content": "v2 removes --legacy; flags moved to cmd/flags.go."}
]`
