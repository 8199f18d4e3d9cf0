package extractive

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// decodeArgsCases are arguments decodeArgs reads itself and ones it hands
// to json.Unmarshal.
var decodeArgsCases = []string{
	``, `{}`, ` { } `, `{"command":"ls -la"}`, `{"path": "a.go", "line": 42, "ok": true, "x": null, "f": false}`,
	`{"cmd":"echo \"hi\"\nprintf '\\t'\u00e9\/"}`, `{"a":"é ✓"}`, `{"a":"\ud83d\ude00"}`, `{"a":"\ud800"}`,
	`{"a":1e999}`, `{"a":-0.5e-3}`, `{"a":01}`, `{"a":1.}`, `{"a":{"b":1}}`, `{"a":[1,2]}`, `null`, `[]`,
	`{"a":"b",}`, `{"a":"b"} x`, `{"a":"b" "c":"d"}`, `{"a":"x","a":"y"}`, "{\"a\":\"\xff\"}", "{\"a\":\"\t\"}",
	`{"a":"\x"}`, `{"a":"\u12"}`, `{"a":tru}`, `{"a":truex}`, `{a:1}`, `{"a":"b"`, `{"a"}`, `"s"`, `{"\u0041":1}`,
	`{"a":{"b":[1,"x",{"c":null}],"d":[]},"e":{}}`, `{"a":[]}`, `{"a":[1,]}`, `{"a":[1 2]}`, `{"a":{"b"}}`, `{"a":[`,
	`{"todos":[{"id":"1","status":"done","content":"x"}]}`,
	`{"a":` + strings.Repeat("[", 70) + strings.Repeat("]", 70) + `}`,
	`{"a":` + strings.Repeat("[", 63) + strings.Repeat("]", 63) + `}`,
}

func TestDecodeArgsIsUnmarshal(t *testing.T) {
	for _, s := range decodeArgsCases {
		checkDecodeArgs(t, s)
	}
}

// FuzzDecodeArgs holds decodeArgs to json.Unmarshal into a map[string]any.
func FuzzDecodeArgs(f *testing.F) {
	for _, s := range decodeArgsCases {
		f.Add(s)
	}
	f.Fuzz(checkDecodeArgs)
}

func checkDecodeArgs(t *testing.T, s string) {
	var want map[string]any
	if json.Unmarshal([]byte(s), &want) != nil {
		want = nil
	}
	if got := decodeArgs(s); !reflect.DeepEqual(got, want) {
		t.Fatalf("decodeArgs(%q) = %#v, want %#v", s, got, want)
	}
}
