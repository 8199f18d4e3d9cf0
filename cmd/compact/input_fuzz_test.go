package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/contextkit/compact/internal/msgtest"
	"github.com/stretchr/testify/require"
)

// oddInputs are inputs encoding/json reads without a word but changes on
// the way, and their neighbours that must still be read: seeds for the
// fuzz target.
var oddInputs = []string{
	`[{"role":"system","content":"be \ud800 brief"},{"role":"user","content":"hi"}]`,
	`[{"role":"user","content":"a"},{"role":"user","content":"last \udfff"}]`,
	`[{"role":"user","content":"\ud83d\ude00 paired"}]`,
	`[{"role":"user","content":"\ud83d\u0041"}]`,
	`[{"role":"user","content":"\ude00\ud83d"}]`,
	"[{\"role\":\"user\",\"content\":\"raw \xff byte\"}]",
	"[{\"role\":\"user\",\"content\":\"raw \xef\xbf\xbd is fine\"}]",
	`[{"role":"user","content":[{"type":"text","text":"\udc00"}]}]`,
	`[{"role":"user","content":"a","x\ud800":null}]`,
	`[{"role":"user","content":"a","content":"b"}]`,
	`{"messages":[{"role":"user","content":"a"}],"messages":[{"role":"user","content":"b"}]}`,
	`{"model":"\ud800","messages":[{"role":"user","content":"a"}]}`,
	`[{"role":"user","content":"a"},{"role":"assistant","tool_calls":[{"id":"c","type":"function","function":{"arguments":"{}"}}]},{"role":"tool","tool_call_id":"c","content":"r"}]`,
	`[{"role":"assistant","tool_calls":[{"id":"c","type":"function","function":{"name":"","arguments":"{}"}}]}]`,
	`[{"role":"assistant","tool_calls":[{"id":"c\ud800","type":"function","function":{"name":"f","arguments":"{\"a\":\"\ud800\"}"}}]}]`,
	`[{"role":"assistant","tool_calls":[{"index":0,"id":"c","type":"function","function":{"name":"f"}}]}]`,
	`[{"role":"assistant","tool_calls":[{"index":1.5,"id":"c","type":"function","function":{"name":"f"}}]}]`,
	`[{"role":"assistant","function_call":{"arguments":"{}"}}]`,
	`[{"role":"user","content":[{"type":"text","text":"a","cache_control":{"type":"ephemeral"}}]}]`,
	`[{"role":"user","content":[{"type":"text","text":"a","cache_control":null}],"audio":null,"annotations":[]}]`,
	`[{"role":"user","content":[{"type":"image_url","image_url":{"url":""}}]}]`,
	`[{"role":"user","content":[{"type":"text","Text":"a"}]}]`,
	`[{"role":"user","content":"a","MultiContent":[{"type":"text","text":"b"}]}]`,
	`[{"role":"user","name":"","content":"","refusal":null,"tool_calls":[]}]`,
	"{\"role\":\"user\",\"content\":\"a\"}\n{\"role\":\"user\",\"content\":\"\\ud800\"}\n",
}

// FuzzDecodeTranscript feeds the decoder arbitrary bytes. It never panics;
// a refusal is an *inputError of one line, naming the message when the
// input is an array of messages; and whatever it accepts comes back from
// the command's encoder as it went in (see checkRoundTrip).
func FuzzDecodeTranscript(f *testing.F) {
	for _, s := range []string{
		`[{"role":"user","content":"hi"}]`,
		`{"messages":[{"role":"system","content":"s"},{"role":"user","content":[{"type":"text","text":"a"}]}]}`,
		"{\"role\":\"user\",\"content\":\"a\"}\n{\"role\":\"assistant\",\"content\":null,\"tool_calls\":[{\"id\":\"c\",\"type\":\"function\",\"function\":{\"name\":\"f\",\"arguments\":\"{}\"}}]}\n{\"role\":\"tool\",\"tool_call_id\":\"c\",\"content\":\"r\"}",
		`[{"role":"bot"}]`, `[1,2]`, `{"a":1}`, `"x"`, `[`, ``, `[{"role":"user","content":5}]`,
	} {
		f.Add([]byte(s))
	}
	for _, s := range oddInputs {
		f.Add([]byte(s))
	}
	own, _ := filepath.Glob("../../testdata/transcripts/*.json")
	for _, p := range own {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		tr, err := decodeTranscript(data)
		if err != nil {
			checkRefusal(t, data, err)
			return
		}
		checkRoundTrip(t, data, tr)
	})
}

// checkRefusal checks that err, the decoder's refusal of data, is one line
// that says where: a message, when data is an array of messages.
func checkRefusal(t *testing.T, data []byte, err error) {
	t.Helper()
	var ie *inputError
	require.ErrorAs(t, err, &ie)
	msg := err.Error()
	require.False(t, strings.ContainsAny(msg, "\n\r") || !utf8.ValidString(msg), "error is not one clean line: %s", msgtest.Excerpt(msg))
	require.False(t, ie.index >= 0 && !strings.HasPrefix(msg, fmt.Sprintf("message %d", ie.index)), "error %s does not start with its message", msgtest.Excerpt(msg))
	var elems []json.RawMessage
	if trimmed := bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")); json.Unmarshal(trimmed, &elems) == nil &&
		len(elems) > 0 && ie.index < 0 {
		require.Failf(t, "an array of messages refused without naming one", "%s", msgtest.Excerpt(msg))
	}
}
