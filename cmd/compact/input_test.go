package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestBadInputWritesNothing feeds the command inputs it must reject: each
// exits 1 with one line naming where the problem is, creates no output
// file, and leaves an existing one as it was.
func TestBadInputWritesNothing(t *testing.T) {
	tests := []struct {
		name, input, want string
	}{
		{"not JSON", `hello`, "not JSON"},
		{"empty", "  \n", "input is empty"},
		{"truncated array", `[{"role":"user","content":"hi"},`, "message 1: not JSON"},
		{"bad JSON mid array", "[\n{\"role\":\"user\",\"content\":\"a\"},\n{\"role\":\"user\",\"content\":\"a\" \"b\"}]", "message 1: not JSON: invalid character '\"' after object key:value pair (line 3, column 30)"},
		{"data after the array", `[{"role":"user","content":"a"}] x`, "unexpected data after the array of messages"},
		{"a string", `"transcript"`, "not an array of messages but a string"},
		{"an object that is no transcript", `{"model":"gpt-4o"}`, `an object with neither a "messages" array nor a "role"`},
		{"messages not an array", `{"messages":{"role":"user"}}`, `"messages" is an object`},
		{"not an object", `[{"role":"user","content":"a"},3]`, "message 1: not a message object but a number"},
		{"no role", `[{"content":"a"}]`, "message 0: no role"},
		{"role a number", `[{"role":1,"content":"a"}]`, "message 0: role is a number"},
		{"unknown role", `[{"role":"user","content":"a"},{"role":"bot","content":"b"}]`, `message 1: unknown role "bot"`},
		{"tool without tool_call_id", `[{"role":"user","content":"a"},{"role":"tool","content":"r"}]`, "message 1: tool message has no tool_call_id"},
		{"content a number", `[{"role":"user","content":5}]`, "message 0: content is a number"},
		{"content an object", `[{"role":"user","content":{"text":"a"}}]`, "message 0: content is an object"},
		{"content a boolean", `[{"role":"user","content":true}]`, "message 0: content is a boolean"},
		{"content part of unknown type", `[{"role":"user","content":[{"type":"input_audio","input_audio":{}}]}]`, `message 0: content part 0 has type "input_audio"`},
		{"text part without text", `[{"role":"user","content":[{"type":"text","text":7}]}]`, "message 0: content part 0: text is a number"},
		{"tool_calls an object", `[{"role":"assistant","tool_calls":{}}]`, "message 0: tool_calls is an object"},
		{"arguments an object", `[{"role":"assistant","tool_calls":[{"id":"a","type":"function","function":{"name":"x","arguments":{}}}]}]`, "message 0: tool call 0: function arguments is an object"},
		{"a field in upper case", `[{"role":"user","ROLE":"bot","content":"a"}]`, `message 0: field "ROLE": message fields are lower case ("role")`},
		{"name a number", `[{"role":"user","name":3,"content":"a"}]`, "message 0: name is a number"},
		{"orphan tool result", `[{"role":"user","content":"a"},{"role":"tool","tool_call_id":"x","content":"r"}]`, `message 1: tool result "x" answers no earlier unanswered call (-repair fixes it)`},
		{"unanswered call mid history", `[{"role":"user","content":"a"},{"role":"assistant","tool_calls":[{"id":"c1","type":"function","function":{"name":"bash","arguments":"{}"}}]},{"role":"user","content":"b"}]`, `message 1: tool call "c1" (bash) is never answered`},
		{"JSONL bad line", "{\"role\":\"user\",\"content\":\"a\"}\n\n{\"role\":\"assistant\",\"content\":{}}\n", "message 1 (line 3): content is an object"},
		{"JSONL broken line", "{\"role\":\"user\",\"content\":\"a\"}\n{\"role\":\n", "message 1 (line 2): not JSON"},

		// Strings encoding/json would turn into U+FFFD, in any field.
		{"lone surrogate in the system prompt", `[{"role":"system","content":"be \ud800 brief"},{"role":"user","content":"hi"}]`, `message 0: content: a lone UTF-16 surrogate \ud800, which would come back as U+FFFD`},
		{"lone low surrogate in the last message", `[{"role":"user","content":"a"},{"role":"user","content":"last \udfff"}]`, `message 1: content: a lone UTF-16 surrogate \udfff`},
		{"high surrogate before a letter", `[{"role":"user","content":"\ud83d\u0041"}]`, `message 0: content: a lone UTF-16 surrogate \ud83d`},
		{"high surrogate ending the string", `[{"role":"user","content":"x\ud83d"}]`, `message 0: content: a lone UTF-16 surrogate \ud83d`},
		{"surrogates in the wrong order", `[{"role":"user","content":"\ude00\ud83d"}]`, `message 0: content: a lone UTF-16 surrogate \ude00`},
		{"lone surrogate in a text part", `[{"role":"user","content":[{"type":"text","text":"ok"},{"type":"text","text":"\udc00"}]}]`, `message 0: content[1].text: a lone UTF-16 surrogate \udc00`},
		{"lone surrogate in tool arguments", `[{"role":"assistant","tool_calls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{\"a\":\"\ud800\"}"}}]}]`, `message 0: tool_calls[0].function.arguments: a lone UTF-16 surrogate \ud800`},
		{"lone surrogate in a tool call id", `[{"role":"user","content":"a"},{"role":"tool","tool_call_id":"c\udbff","content":"r"}]`, `message 1: tool_call_id: a lone UTF-16 surrogate \udbff`},
		{"lone surrogate in a name", `[{"role":"user","name":"\ud800","content":"a"}]`, `message 0: name: a lone UTF-16 surrogate`},
		{"lone surrogate in a key", `[{"role":"user","content":"a","x\ud800":null}]`, `message 0: a key has a lone UTF-16 surrogate \ud800`},
		{"lone surrogate in a JSONL line", "{\"role\":\"user\",\"content\":\"a\"}\n{\"role\":\"user\",\"content\":\"\\ud800\"}\n", `message 1 (line 2): content: a lone UTF-16 surrogate \ud800`},
		{"lone surrogate around the messages", `{"model":"\ud800","messages":[{"role":"user","content":"a"}]}`, `model: a lone UTF-16 surrogate \ud800`},
		{"invalid UTF-8", "[{\"role\":\"user\",\"content\":\"raw \xff byte\"}]", "message 0: content: invalid UTF-8 (byte 0xff), which would come back as U+FFFD"},
		{"invalid UTF-8 in JSONL", "{\"role\":\"user\",\"content\":\"\xc3\"}\n", "message 0 (line 1): content: invalid UTF-8 (byte 0xc3)"},

		// A tool call the output would write without a name.
		{"tool call without a name", `[{"role":"user","content":"a"},{"role":"assistant","tool_calls":[{"id":"c","type":"function","function":{"arguments":"{}"}}]},{"role":"tool","tool_call_id":"c","content":"r"}]`, "message 1: tool call 0 has no function name"},
		{"tool call with an empty name", `[{"role":"assistant","tool_calls":[{"id":"c","type":"function","function":{"name":"","arguments":"{}"}}]}]`, "message 0: tool call 0 has no function name"},
		{"tool call with a null name", `[{"role":"assistant","tool_calls":[{"id":"c","type":"function","function":{"name":null}}]}]`, "message 0: tool call 0 has no function name"},
		{"function_call without a name", `[{"role":"assistant","function_call":{"arguments":"{}"}}]`, "message 0: function_call has no function name"},
		{"function_call a string", `[{"role":"assistant","function_call":"f"}]`, "message 0: function_call is a string; want an object"},
		{"tool call function a string", `[{"role":"assistant","tool_calls":[{"id":"c","function":"f"}]}]`, "message 0: tool call 0 has no function object"},

		// Keys given twice: only the last would be kept.
		{"content twice", `[{"role":"user","content":"a","content":"b"}]`, `message 0: key "content" appears twice; only the last would be kept`},
		{"text twice in a part", `[{"role":"user","content":[{"type":"text","text":"a","text":"b"}]}]`, `message 0: content[0]: key "text" appears twice`},
		{"arguments twice", `[{"role":"assistant","tool_calls":[{"id":"c","type":"function","function":{"name":"f","arguments":"1","arguments":"2"}}]}]`, `message 0: tool_calls[0].function: key "arguments" appears twice`},
		{"messages twice", `{"messages":[{"role":"user","content":"a"}],"messages":[{"role":"user","content":"b"}]}`, `key "messages" appears twice`},

		// Values the output has no place for.
		{"unknown message field", `[{"role":"user","content":"a","audio":{"id":"x"}}]`, `message 0: field "audio" cannot be carried into the output`},
		{"unknown part field", `[{"role":"user","content":[{"type":"text","text":"a","cache_control":{"type":"ephemeral"}}]}]`, `message 0: content part 0: field "cache_control" cannot be carried into the output`},
		{"unknown image_url field", `[{"role":"user","content":[{"type":"image_url","image_url":{"url":"u","size":3}}]}]`, `message 0: content part 0: field "size" cannot be carried`},
		{"text in an image part", `[{"role":"user","content":[{"type":"image_url","image_url":{"url":"u"},"text":"caption"}]}]`, `message 0: content part 0: field "text" cannot be carried`},
		{"unknown tool call field", `[{"role":"assistant","tool_calls":[{"id":"c","type":"function","function":{"name":"f"},"extra":1}]}]`, `message 0: tool call 0: field "extra" cannot be carried`},
		{"unknown function field", `[{"role":"assistant","tool_calls":[{"id":"c","type":"function","function":{"name":"f","strict":true}}]}]`, `message 0: tool call 0: field "strict" cannot be carried`},
		{"MultiContent beside content", `[{"role":"user","content":"a","MultiContent":[{"type":"text","text":"b"}]}]`, `message 0: field "MultiContent" cannot be carried`},
		{"a part field in upper case", `[{"role":"user","content":[{"type":"text","Text":"a"}]}]`, `message 0: content part 0: field "Text": part fields are lower case ("text")`},
		{"image without a url", `[{"role":"user","content":[{"type":"image_url","image_url":{"url":""}}]}]`, "message 0: content part 0: image_url has no url"},
		{"a null part", `[{"role":"user","content":[null]}]`, "message 0: content part 0 is null; want an object"},

		// Other kinds where strings (or whole numbers) are expected.
		{"refusal a number", `[{"role":"assistant","refusal":1}]`, "message 0: refusal is a number; want a string"},
		{"reasoning a boolean", `[{"role":"assistant","content":"a","reasoning_content":false}]`, "message 0: reasoning_content is a boolean; want a string"},
		{"tool_call_id a number", `[{"role":"user","content":"a"},{"role":"tool","tool_call_id":7,"content":"r"}]`, "message 1: tool_call_id is a number; want a string"},
		{"tool call type a number", `[{"role":"assistant","tool_calls":[{"id":"c","type":1,"function":{"name":"f"}}]}]`, "message 0: tool call 0: type is a number; want a string"},
		{"tool call index a fraction", `[{"role":"assistant","tool_calls":[{"index":1.5,"id":"c","type":"function","function":{"name":"f"}}]}]`, "message 0: tool call 0: index is the number 1.5; want a whole number"},
		{"tool call index a string", `[{"role":"assistant","tool_calls":[{"index":"0","id":"c","type":"function","function":{"name":"f"}}]}]`, "message 0: tool call 0: index is a string; want a whole number"},
		{"image detail a number", `[{"role":"user","content":[{"type":"image_url","image_url":{"url":"u","detail":1}}]}]`, "message 0: content part 0: image_url detail is a number; want a string"},
		{"a part type a number", `[{"role":"user","content":[{"type":1,"text":"a"}]}]`, `message 0: content part 0 has type ""`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			in := writeFile(t, dir, "in.json", tt.input)
			out, rep := filepath.Join(dir, "out.json"), filepath.Join(dir, "rep.json")
			r := runCLI(t, "", in, "-o", out, "-json-report", rep, "-force")
			assert.Equal(t, 1, r.code)
			assert.True(t, strings.HasPrefix(r.stderr, "compact: "+in+": "+tt.want), "stderr %q\nwant it to start %q", r.stderr, tt.want)
			assert.Equal(t, 1, strings.Count(r.stderr, "\n"), "one line: %q", r.stderr)
			assert.NoFileExists(t, out)
			assert.NoFileExists(t, rep)
			entries, _ := os.ReadDir(dir)
			assert.Len(t, entries, 1, "no temporary file left behind")

			// An existing output is left as it was.
			writeFile(t, dir, "out.json", "previous")
			writeFile(t, dir, "rep.json", "previous report")
			r = runCLI(t, "", in, "-o", out, "-json-report", rep, "-force")
			assert.Equal(t, 1, r.code)
			assert.Equal(t, "previous", readFile(t, out))
			assert.Equal(t, "previous report", readFile(t, rep))

			// The same through standard input.
			r = runCLI(t, tt.input, "-", "-force")
			assert.Equal(t, 1, r.code)
			assert.Empty(t, r.stdout)
			assert.Contains(t, r.stderr, tt.want)
		})
	}
}

// TestInputFormats reads the same history in every format the command
// takes and writes the same output for each.
func TestInputFormats(t *testing.T) {
	const a = `{"role":"system","content":"Be brief."}`
	const b = `{"role":"user","content":"Read main.go"}`
	const c = `{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"read","arguments":"{\"path\":\"main.go\"}"}}]}`
	const d = `{"role":"tool","tool_call_id":"c1","content":[{"type":"text","text":"package main"}]}`
	want := runCLI(t, "["+strings.Join([]string{a, b, c, d}, ",")+"]", "-")
	require.Equal(t, 0, want.code, want.stderr)
	require.Len(t, decodeOutput(t, want.stdout), 4)

	inputs := map[string]string{
		"indented array":  "[\n  " + strings.Join([]string{a, b, c, d}, ",\n  ") + "\n]\n",
		"byte order mark": "\xef\xbb\xbf[" + strings.Join([]string{a, b, c, d}, ",") + "]",
		"JSONL":           strings.Join([]string{a, b, c, d}, "\n") + "\n",
		"JSONL with CRLF": strings.Join([]string{a, b, c, d}, "\r\n\r\n"),
		"logged request":  `{"model":"gpt-4o","temperature":0,"messages":[` + strings.Join([]string{a, b, c, d}, ",") + `]}`,
	}
	for name, in := range inputs {
		t.Run(name, func(t *testing.T) {
			got := runCLI(t, in, "-")
			require.Equal(t, 0, got.code, got.stderr)
			assert.Equal(t, want.stdout, got.stdout)
		})
	}
	t.Run("a single message", func(t *testing.T) {
		got := runCLI(t, b, "-")
		require.Equal(t, 0, got.code, got.stderr)
		assert.Len(t, decodeOutput(t, got.stdout), 1)
	})
}

func TestRequestModelPicksTheEncoding(t *testing.T) {
	dir := t.TempDir()
	in := `{"model":"gpt-4-0613","messages":[{"role":"user","content":"hello"}]}`
	rep := filepath.Join(dir, "rep.json")
	r := runCLI(t, in, "-", "-json-report", rep)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, "cl100k_base", decodeReport(t, rep)["encoding"])
	assert.Equal(t, "request", decodeReport(t, rep)["format"])

	r = runCLI(t, in, "-", "-json-report", rep, "-model", "gpt-4o")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, "o200k_base", decodeReport(t, rep)["encoding"], "-model wins over the request's model")
}

// TestEmptyFieldsAreDroppedAndNamed: a field the output has no place for
// is read when it carries nothing (null, "", [] or {}: the API reads them
// as absent), and the command names it.
func TestEmptyFieldsAreDroppedAndNamed(t *testing.T) {
	in := `[{"role":"user","content":[{"type":"text","text":"a","cache_control":null}],"audio":null,"annotations":[]}]`
	r := runCLI(t, in, "-")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stderr, "fields not carried into the output: [annotations audio content[].cache_control]")
}

func TestPosition(t *testing.T) {
	data := []byte("ab\ncde\nf")
	for _, tt := range []struct {
		off       int64
		line, col int
	}{{1, 1, 1}, {2, 1, 2}, {4, 2, 1}, {6, 2, 3}, {8, 3, 1}, {0, 1, 1}, {99, 3, 2}} {
		line, col := position(data, tt.off)
		assert.Equal(t, [2]int{tt.line, tt.col}, [2]int{line, col}, "offset %d", tt.off)
	}
}
