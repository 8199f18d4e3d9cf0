package genai

import (
	"time"

	sdk "google.golang.org/genai"
)

// everyPartJSON is a request body with every kind of part the Gemini API
// takes, in the places it takes them: a system instruction of two parts;
// text, an inline image, inline audio, file data with video metadata and a
// media resolution; parallel function calls, the first with its thought
// signature and no id (paired by name), answered in one user content with
// a multimodal response and a text after the responses; thoughts with
// signatures, a signature-only part; code execution; server-side tool
// calls; part metadata; an id-carrying call answered by id.
const everyPartJSON = `{
 "systemInstruction": {"role": "user", "parts": [
  {"text": "You are a careful release engineer."},
  {"text": "Answer in English."}
 ]},
 "contents": [
  {"role": "user", "parts": [
   {"text": "Check these release notes against the screenshot and the call recording."},
   {"inlineData": {"mimeType": "image/png", "data": "iVBORw0KGgo=", "displayName": "shot.png"}},
   {"inlineData": {"mimeType": "audio/wav", "data": "UklGRg=="}},
   {"fileData": {"fileUri": "https://generativelanguage.googleapis.com/v1beta/files/abc123", "mimeType": "application/pdf", "displayName": "notes.pdf"}},
   {"fileData": {"fileUri": "gs://bucket/demo.mp4", "mimeType": "video/mp4"}, "videoMetadata": {"startOffset": "10s", "endOffset": "40s", "fps": 2},
    "mediaResolution": {"level": "MEDIA_RESOLUTION_LOW"}}
  ]},
  {"role": "model", "parts": [
   {"text": "Two files to read; read both at once.", "thought": true, "thoughtSignature": "EqQBCgIYAhIM"},
   {"text": "Reading both files."},
   {"functionCall": {"name": "read_file", "args": {"path": "CHANGELOG.md"}}, "thoughtSignature": "Cq0CAdHtim9x"},
   {"functionCall": {"name": "read_file", "args": {"path": "flags.go", "lines": [1, 40]}}}
  ]},
  {"role": "user", "parts": [
   {"functionResponse": {"name": "read_file", "response": {"output": "## v2\n- drop --legacy"}}},
   {"functionResponse": {"name": "read_file", "response": {"error": "open flags.go: no such file"},
    "parts": [{"inlineData": {"mimeType": "image/jpeg", "data": "/9j/4AAQ"}}], "willContinue": false, "scheduling": "WHEN_IDLE"}},
   {"text": "The flags live in cmd/flags.go now."}
  ]},
  {"role": "model", "parts": [
   {"executableCode": {"language": "PYTHON", "code": "print(len(open('cmd/flags.go').read()))"}},
   {"codeExecutionResult": {"outcome": "OUTCOME_OK", "output": "1024\n"}},
   {"toolCall": {"id": "srv_1", "toolType": "GOOGLE_SEARCH_WEB", "args": {"query": "legacy flag removal"}}},
   {"toolResponse": {"id": "srv_1", "toolType": "GOOGLE_SEARCH_WEB", "response": {"results": ["Removing flags"]}}},
   {"text": "The notes match the code.", "partMetadata": {"source": "search"}},
   {"text": "", "thoughtSignature": "EmwKAhgBEgy3"}
  ]},
  {"role": "user", "parts": [{"text": "Run the linter on cmd/."}]},
  {"role": "model", "parts": [
   {"functionCall": {"id": "call_7", "name": "lint", "args": {"dir": "cmd/"}}}
  ]},
  {"role": "user", "parts": [
   {"functionResponse": {"id": "call_7", "name": "lint", "response": {"issues": 0, "ok": true}}}
  ]},
  {"role": "model", "parts": [{"text": "v2 removes --legacy; flags moved to cmd/flags.go; lint is clean."}]}
 ]
}`

// everyPart is a history built in Go with the SDK's constructors and
// fields: what an agent holds after a few turns.
func everyPart() History {
	call := sdk.NewPartFromFunctionCall("read_file", map[string]any{"path": "a.go"})
	call.ThoughtSignature = []byte("sig-1")
	failed := sdk.NewPartFromFunctionResponse("read_file", map[string]any{"error": "permission denied"})
	fps := 1.0
	video := sdk.NewPartFromURI("gs://bucket/clip.mp4", "video/mp4")
	video.VideoMetadata = &sdk.VideoMetadata{StartOffset: 2 * time.Second, EndOffset: 9 * time.Second, FPS: &fps}
	return History{
		System: sdk.NewContentFromText("You are a coding agent.", sdk.RoleUser),
		Contents: []*sdk.Content{
			sdk.NewContentFromParts([]*sdk.Part{sdk.NewPartFromText("Read a.go and b.go."),
				sdk.NewPartFromBytes([]byte{0x89, 'P', 'N', 'G'}, "image/png"), video}, sdk.RoleUser),
			sdk.NewContentFromParts([]*sdk.Part{{Text: "both at once", Thought: true}, call,
				sdk.NewPartFromFunctionCall("read_file", map[string]any{"path": "b.go"})}, sdk.RoleModel),
			sdk.NewContentFromParts([]*sdk.Part{
				sdk.NewPartFromFunctionResponse("read_file", map[string]any{"output": "package a"}), failed}, sdk.RoleUser),
			sdk.NewContentFromParts([]*sdk.Part{sdk.NewPartFromText("b.go is unreadable."),
				{ThoughtSignature: []byte("end")}}, sdk.RoleModel),
		},
	}
}
