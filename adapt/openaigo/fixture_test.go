package openaigo

// everyPartJSON is a Chat Completions history with every message type,
// content part and field the SDK has: developer and system prompts as
// parts and as a string, names, a prompt cache breakpoint, images with
// detail, input audio, files, an assistant turn with a refusal, an audio
// reference, a deprecated function call and parallel function and custom
// tool calls, both results, and an assistant turn whose content holds a
// refusal part.
const everyPartJSON = `[
 {"role": "developer", "name": "ops", "content": [
  {"type": "text", "text": "Follow the repository's style.", "prompt_cache_breakpoint": {"mode": "explicit", "ttl": "1h"}},
  {"type": "text", "text": "Never push."}]},
 {"role": "system", "content": "You are a release agent."},
 {"role": "user", "name": "dana", "content": [
  {"type": "text", "text": "Check the notes against the screenshot and the recording."},
  {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo=", "detail": "low"}},
  {"type": "image_url", "image_url": {"url": "https://example.com/shot.png"}},
  {"type": "input_audio", "input_audio": {"data": "UklGRiQAAABXQVZF", "format": "wav"}},
  {"type": "file", "file": {"file_id": "file-abc", "filename": "notes.pdf"}},
  {"type": "file", "file": {"file_data": "JVBERi0xLjQK"}}]},
 {"role": "assistant", "name": "agent", "content": null, "audio": {"id": "audio_abc"},
  "tool_calls": [
   {"id": "call_1", "type": "function", "function": {"name": "read_file", "arguments": "{\"path\": \"NOTES.md\"}"}},
   {"id": "call_2", "type": "custom", "custom": {"name": "grep", "input": "legacy flags/"}}]},
 {"role": "tool", "tool_call_id": "call_1", "content": "## v2\n- drop --legacy"},
 {"role": "tool", "tool_call_id": "call_2", "content": [{"type": "text", "text": "flags/legacy.go:3"}, {"type": "text", "text": "flags/legacy_test.go:9"}]},
 {"role": "assistant", "content": [{"type": "text", "text": "The notes match."}, {"type": "refusal", "refusal": "I will not push."}]},
 {"role": "assistant", "refusal": "Not that either.", "function_call": {"name": "noop", "arguments": "{}"}},
 {"role": "user", "content": "Thanks."}
]`
