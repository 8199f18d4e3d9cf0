package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/internal/msgtest"
	"github.com/contextkit/compact/internal/sharedtest"
)

// TestOddButFaithfulInputIsRead: input near the refusals that the output
// does carry faithfully is read, and comes back as it went in.
func TestOddButFaithfulInputIsRead(t *testing.T) {
	for name, in := range map[string]string{
		"an escaped surrogate pair":     `[{"role":"user","content":"\ud83d\ude00 and \uD83D\uDE00"}]`,
		"raw U+FFFD":                    "[{\"role\":\"user\",\"content\":\"raw \xef\xbf\xbd is text\"}]",
		"a NUL and escapes":             `[{"role":"user","content":"a\u0000b\/c\td\"e\\"}]`,
		"empty values":                  `[{"role":"user","name":"","content":"","refusal":null,"tool_calls":[],"function_call":null}]`,
		"a tool call index":             `[{"role":"assistant","tool_calls":[{"index":0,"id":"c","type":"function","function":{"name":"f","arguments":null}}]}]`,
		"a tool call without type":      `[{"role":"assistant","tool_calls":[{"id":"c","function":{"name":"f"}}]}]`,
		"a legacy function call":        `[{"role":"assistant","function_call":{"name":"f","arguments":"{}"}}]`,
		"an image with detail":          `[{"role":"user","content":[{"type":"image_url","image_url":{"url":"data:,x","detail":"low"}},{"type":"text"}]}]`,
		"empty fields beside the known": `[{"role":"user","content":"a","audio":null,"x":{},"y":""}]`,
		"a request":                     `{"model":"m","tools":[{"type":"function"}],"messages":[{"role":"developer","content":"d"}]}`,
		"JSONL with odd text":           "{\"role\":\"user\",\"content\":\"\\ud83d\\ude00\"}\n{\"role\":\"assistant\",\"content\":\"\\u2028\"}\n",
	} {
		t.Run(name, func(t *testing.T) {
			tr, err := decodeTranscript([]byte(in))
			require.NoError(t, err)
			checkRoundTrip(t, []byte(in), tr)
		})
	}
}

// TestEveryTranscriptRoundTrips: the project's transcripts and the shared
// ones are all read, and come back as they went in, every string byte for
// byte (checkRoundTrip).
func TestEveryTranscriptRoundTrips(t *testing.T) {
	check := func(t *testing.T, files []string) {
		for _, f := range files {
			t.Run(filepath.Base(f), func(t *testing.T) {
				data, err := os.ReadFile(f)
				require.NoError(t, err)
				tr, err := decodeTranscript(data)
				require.NoError(t, err)
				assert.Empty(t, tr.dropped)
				checkRoundTrip(t, data, tr)
			})
		}
	}
	t.Run("own", func(t *testing.T) {
		own, _ := filepath.Glob("../../testdata/transcripts/*.json")
		require.NotEmpty(t, own)
		check(t, own)
	})
	t.Run("shared", func(t *testing.T) { check(t, sharedtest.Files(t)) })
}

// checkRoundTrip checks what the command promises of a history it does
// not compact: encoded and decoded again it is the same messages, and its
// JSON is the input's, every string byte for byte, up to key order, white
// space, escapes and empty values (absent, null, "", [] and {}). The input
// side is read by losslessJSON, which marks what encoding/json would
// quietly turn into U+FFFD, so an accepted lone surrogate shows up as a
// difference instead of hiding on both sides.
func checkRoundTrip(t testing.TB, data []byte, tr *transcript) {
	t.Helper()
	for i, m := range tr.msgs {
		require.True(t, knownRoles[m.Role], "message %d: role %s accepted", i, msgtest.Excerpt(m.Role))
		require.False(t, m.Role == compact.RoleTool && m.ToolCallID == "", "message %d: tool message without tool_call_id accepted", i)
		// An absent name reads back as absent, so the comparison below
		// would not see it: a call without one is checked here.
		for k, c := range m.ToolCalls {
			require.NotEmpty(t, c.Function.Name, "message %d: tool call %d without a function name accepted", i, k)
		}
		require.False(t, m.FunctionCall != nil && m.FunctionCall.Name == "", "message %d: function_call without a name accepted", i)
	}
	out, err := encodeMessages(tr.msgs)
	require.NoError(t, err)
	again, err := decodeTranscript(out)
	require.NoError(t, err, "the encoding does not read back: %s", msgtest.Excerpt(out))
	a, _ := json.Marshal(tr.msgs)
	b, _ := json.Marshal(again.msgs)
	require.False(t, len(tr.msgs) > 0 && string(a) != string(b), "round trip changed the messages: %s", msgtest.Difference(a, b))
	require.Empty(t, again.dropped, "the output has fields it cannot read back")
	in := inputMessages(t, data, tr.format)
	var written []any
	require.NoError(t, json.Unmarshal(out, &written))
	require.Equal(t, len(in), len(written), "messages in and out")
	for i := range in {
		want, got := withoutEmpty(in[i]), withoutEmpty(written[i])
		require.True(t, reflect.DeepEqual(want, got), "message %d changed: %s", i,
			msgtest.Difference(fmt.Sprintf("%#v", want), fmt.Sprintf("%#v", got)))
	}
}

// inputMessages returns the messages of data, read by losslessJSON, in the
// format the decoder found.
func inputMessages(t testing.TB, data []byte, format string) []any {
	t.Helper()
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	var msgs []any
	switch format {
	case formatArray:
		msgs = losslessJSON(t, data).([]any)
	case formatRequest:
		msgs = losslessJSON(t, data).(map[string]any)["messages"].([]any)
	case formatJSONL:
		for _, line := range bytes.Split(data, []byte("\n")) {
			if line = bytes.TrimSpace(line); len(line) > 0 {
				msgs = append(msgs, losslessJSON(t, line))
			}
		}
	default:
		require.Failf(t, "unknown format", "%q", format)
	}
	return msgs
}

// losslessJSON decodes data generically after rewriting, inside string
// literals, every lone surrogate escape and every byte that is not UTF-8
// into a marker ("\u0000lone-d800", "\u0000byte-ff") that encoding/json
// keeps as it is.
func losslessJSON(t testing.TB, data []byte) any {
	t.Helper()
	var b bytes.Buffer
	inString := false
	for i := 0; i < len(data); {
		c := data[i]
		switch {
		case !inString:
			inString = c == '"'
			b.WriteByte(c)
			i++
		case c == '"':
			inString = false
			b.WriteByte(c)
			i++
		case c == '\\' && i+1 < len(data) && data[i+1] == 'u':
			u := unit(data, i)
			switch {
			case u >= 0xd800 && u < 0xdc00 && unit(data, i+6) >= 0xdc00 && unit(data, i+6) < 0xe000:
				b.Write(data[i : i+12]) // a pair
				i += 12
			case u >= 0xd800 && u < 0xe000:
				fmt.Fprintf(&b, `\u0000lone-%04x`, u)
				i += 6
			default:
				b.Write(data[i : i+6])
				i += 6
			}
		case c == '\\':
			b.Write(data[i : i+2])
			i += 2
		default:
			r, size := utf8.DecodeRune(data[i:])
			if r == utf8.RuneError && size == 1 {
				fmt.Fprintf(&b, `\u0000byte-%02x`, c)
			} else {
				b.Write(data[i : i+size])
			}
			i += size
		}
	}
	key, dup := duplicateKey(b.Bytes())
	require.False(t, dup, "accepted input has the key %s twice in one object", msgtest.Excerpt(key))
	var v any
	require.NoError(t, json.Unmarshal(b.Bytes(), &v), "accepted input does not decode generically")
	return v
}

// duplicateKey returns a key that some object in data, valid JSON, has
// twice: a generic decode keeps the last and would not tell.
func duplicateKey(data []byte) (string, bool) {
	type frame struct {
		keys     map[string]bool // nil in an array
		valueDue bool            // the next token is a value, not a key
	}
	var stack []*frame
	dec := json.NewDecoder(bytes.NewReader(data))
	for {
		tok, err := dec.Token()
		if err != nil {
			return "", false
		}
		top := (*frame)(nil)
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		if d, ok := tok.(json.Delim); ok && (d == '}' || d == ']') {
			stack = stack[:len(stack)-1]
			continue
		}
		if top != nil && top.keys != nil && !top.valueDue {
			key := tok.(string)
			if top.keys[key] {
				return key, true
			}
			top.keys[key] = true
			top.valueDue = true
			continue
		}
		if top != nil {
			top.valueDue = false
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, &frame{keys: map[string]bool{}})
		case json.Delim('['):
			stack = append(stack, &frame{})
		}
	}
}

// unit returns the code unit of the \uXXXX escape at data[at:], or -1.
func unit(data []byte, at int) int {
	if at+6 > len(data) || data[at] != '\\' || data[at+1] != 'u' {
		return -1
	}
	u, err := strconv.ParseUint(string(data[at+2:at+6]), 16, 16)
	if err != nil {
		return -1
	}
	return int(u)
}

// withoutEmpty drops, at every depth, object fields that are null, "", []
// or {}: go-openai writes none of them, and to the API they say nothing.
func withoutEmpty(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, x := range v {
			x = withoutEmpty(x)
			if !isEmptyValue(x) {
				out[k] = x
			}
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = withoutEmpty(x)
		}
		return out
	}
	return v
}

func isEmptyValue(v any) bool {
	switch v := v.(type) {
	case nil:
		return true
	case string:
		return v == ""
	case []any:
		return len(v) == 0
	case map[string]any:
		return len(v) == 0
	}
	return false
}
