package redact

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

func TestJSONSpansFindTheJSONInsideText(t *testing.T) {
	tests := []struct {
		name, in string
		want     []string
	}{
		{"a log line's payload", `12:00 INFO request {"a": "b", "n": [1, 2]} done`, []string{`{"a": "b", "n": [1, 2]}`}},
		{"two objects and an array of strings", `x={"a":"1"} y=["p","q"] z={}`, []string{`{"a":"1"}`, `["p","q"]`}},
		{"a JSON text whole", `[{"a": "\u0026"}]`, []string{`[{"a": "\u0026"}]`}},
		{"pretty-printed over lines", "Response:\n{\n  \"token\": \"x\"\n}\nDone", []string{"{\n  \"token\": \"x\"\n}"}},
		{"what a cut-off value held whole", `{"headers": {"Cookie": "a=b"}, "body": "trunc`, []string{`{"Cookie": "a=b"}`}},
		{"a broken value, then a whole one", `{"a" {"b": "c"}`, []string{`{"b": "c"}`}},
		{"no string, no span", `arr[0] = [1, 2.5e3, true, null] {}`, nil},
		{"brackets that are not JSON", `if [ -f x ]; then echo ${HOME}; fi [INFO] {x}`, nil},
		{"escapes JSON has not", `{"a": "\x41"} {"b": "\u12"}`, nil},
		{"raw control characters in a string", "{\"a\": \"line\nbreak\"}", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, sp := range jsonSpans(tt.in) {
				got = append(got, tt.in[sp.start:sp.end])
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

// stringForm is what String makes of a text.
type stringForm struct{ name, in, want string }

// checkStringForms checks each form, and that String changes its result no
// further.
func checkStringForms(t *testing.T, tests []stringForm) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := String(tt.in)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
			if String(got) != got {
				t.Errorf("not idempotent: got %v, want %v", String(got), got)
			}
		})
	}
}

// Issue 23: String reads JSON inside text as JSON does, escapes and all.
func TestStringReadsJSONInsideText(t *testing.T) {
	tests := []stringForm{
		{"an escaped query separator",
			`PUT {"url":"https://a.blob.core.windows.net/c?sv=2022\u0026sig=Zm9vYmFy%2B\u0026se=2030"}`,
			`PUT {"url":"https://a.blob.core.windows.net/c?sv=2022&sig=[REDACTED]&se=2030"}`},
		{"an escaped colon",
			`got {"h":"Cookie\u003a sid=C00kie9"}`,
			`got {"h":"Cookie: sid=[REDACTED]"}`},
		{"headers as Go's http.Header encodes them",
			`req {"Authorization":["Basic dXNlcjpwYXNz"],"Accept":["*/*"]}`,
			`req {"Authorization":["Basic [REDACTED]"],"Accept":["*/*"]}`},
		{"a value under a secret key goes whole",
			`saved {"password": "correct horse", "user": "bob"}`,
			`saved {"password": "[REDACTED]", "user": "bob"}`},
		{"escapes of a cut-off object, read as text",
			`cut {"url":"https:\/\/u:Pw0rd9@h.example\/x?a=1\u0026token=T0k3n9`,
			`cut {"url":"https:\/\/u:[REDACTED]@h.example\/x?a=1\u0026token=[REDACTED]`},
	}
	checkStringForms(t, tests)
}

// Issue 10 of 23: a line break written as " ⏎ " (a summary's open tasks, a
// message quoted on one line) is read as the line break it stands for, and
// kept.
func TestStringReadsJoinedLines(t *testing.T) {
	tests := []stringForm{
		{".netrc",
			"- [ ] machine h.example ⏎ login ci ⏎ password Pw0rd99x\n- [ ] next",
			"- [ ] machine h.example ⏎ login ci ⏎ password [REDACTED]\n- [ ] next"},
		{"a spaced assignment before the next line",
			"aws_secret_access_key = Zk3+Ab9/Qw7xLm2Np8Rt5Vy1Uc4Ei6Oa0Sd3Fg7H ⏎ region = eu",
			"aws_secret_access_key = [REDACTED] ⏎ region = eu"},
		{"a cut-off key",
			"-----BEGIN EC PRIVATE KEY----- ⏎ MHcCAQEEIIrYSSNQFaA2Hwf1duRSxKtLYX5CB04fSeQ6tF1aY/PuoAoGCCqGSM49 ⏎ (cut)",
			"-----BEGIN EC PRIVATE KEY-----[REDACTED] ⏎ (cut)"},
		{"prose on one line is left alone",
			"ran the tests ⏎ token_count: 17 ⏎ all passed",
			"ran the tests ⏎ token_count: 17 ⏎ all passed"},
	}
	checkStringForms(t, tests)
}

// FuzzJSONSpans: the spans are in order, do not overlap, are each a valid
// JSON object or array holding a string, and a JSON text of that kind is
// found whole.
func FuzzJSONSpans(f *testing.F) {
	for _, s := range []string{`x {"a":"b"} y`, `[[["a"]]`, `{"a" {"b": "c"}`, `[1,{"k":"v"},"s"`, `{"a":"\u00e9"}{"b":["c"]}`, `{{{{`, `[[[[`, `"a":{"b":"c"}}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		end := 0
		for _, sp := range jsonSpans(s) {
			if sp.start < end || sp.end <= sp.start || sp.end > len(s) {
				t.Fatalf("span %v out of order or bounds (previous ended at %d) in %q", sp, end, s)
			}
			v := s[sp.start:sp.end]
			if !json.Valid([]byte(v)) || (v[0] != '{' && v[0] != '[') || !strings.Contains(v, `"`) {
				t.Fatalf("span %q of %q is not a JSON object or array holding a string", v, s)
			}
			end = sp.end
		}
		text := strings.TrimSpace(s)
		if json.Valid([]byte(text)) && text != "" && (text[0] == '{' || text[0] == '[') && strings.Contains(text, `"`) {
			if spans := jsonSpans(text); len(spans) != 1 || spans[0] != (span{0, len(text)}) {
				t.Fatalf("the JSON text %q is found as %v", text, spans)
			}
		}
	})
}
