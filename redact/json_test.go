package redact

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/contextkit/compact/internal/secrettest"
)

func TestJSONExactForms(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"issue 17: spaced assignment in a shell command",
			`{"command": "echo aws_secret_access_key = Zk3+Ab9/Qw7xLm2Np8Rt5Vy1Uc4Ei6Oa0Sd3Fg7H"}`,
			`{"command": "echo aws_secret_access_key = [REDACTED]"}`},
		{"issue 17: Databricks token in a command",
			`{"command": "echo token = dapi0123456789abcdef0123456789abcdef"}`,
			`{"command": "echo token = dapi[REDACTED]"}`},
		{"a value under a secret key goes whole, however it reads",
			`{"api_key": "correct horse battery staple", "region": "eu"}`,
			`{"api_key": "[REDACTED]", "region": "eu"}`},
		{"numbers under a secret key become the marker, still JSON",
			`{"pin": 1, "password": 123456, "token": null, "secret": true}`,
			`{"pin": 1, "password": "[REDACTED]", "token": null, "secret": true}`},
		{"name-value records",
			`[{"name": "DB_PASSWORD", "value": "p4ssw0rd!"}, {"name": "REGION", "value": "eu"}, {"Value": "s3cr3t-v", "Key": "apiKey"}]`,
			`[{"name": "DB_PASSWORD", "value": "[REDACTED]"}, {"name": "REGION", "value": "eu"}, {"Value": "[REDACTED]", "Key": "apiKey"}]`},
		{"arrays under a secret key",
			`{"tokens": ["abc"], "api_key": ["k1-abcdef", "k2-ghijkl"]}`,
			`{"tokens": ["abc"], "api_key": ["[REDACTED]", "[REDACTED]"]}`},
		{"headers keep their scheme and attributes",
			`{"headers": {"Authorization": "Bearer abc123def456", "Set-Cookie": "id=a3f9; Path=/"}}`,
			`{"headers": {"Authorization": "Bearer [REDACTED]", "Set-Cookie": "id=[REDACTED]; Path=/"}}`},
		{"a key that is a secret",
			`{"ghp_NZYW2mZp0zVZomHFwUbbYrEqmSM9wCZ7Uw9x": "read"}`,
			`{"ghp_[REDACTED]": "read"}`},
		{"JSON inside a string",
			`{"body": "{\"client_secret\": \"cs_8f7e6d5c\", \"scope\": \"read\"}"}`,
			`{"body": "{\"client_secret\": \"[REDACTED]\", \"scope\": \"read\"}"}`},
		{"placeholders and masks stay",
			`{"password": "${DB_PASSWORD}", "token": "****", "api_key": "", "secret": "<your secret>"}`,
			`{"password": "${DB_PASSWORD}", "token": "****", "api_key": "", "secret": "<your secret>"}`},
		{"layout and escapes of untouched strings are kept",
			"{\n  \"path\": \"a\\/b \\u00e9\",\n  \"cmd\": \"export TOKEN=abc123xyz\"\n}",
			"{\n  \"path\": \"a\\/b \\u00e9\",\n  \"cmd\": \"export TOKEN=[REDACTED]\"\n}"},
		{"HTML characters stay readable",
			`{"command": "curl -u admin:Adm1nPass https://h/api && echo <done>"}`,
			`{"command": "curl -u admin:[REDACTED] https://h/api && echo <done>"}`},
		{"JSON lines among text",
			"starting\n{\"msg\": \"login\", \"password\": \"hunter22\"}\ndone password=hunter22\n",
			"starting\n{\"msg\": \"login\", \"password\": \"[REDACTED]\"}\ndone password=[REDACTED]\n"},
		{"text that is not JSON is redacted as text",
			"export DB_PASSWORD=hunter2 {",
			"export DB_PASSWORD=[REDACTED] {"},
		{"issue 23: header values in arrays, as Go's http.Header encodes them",
			`{"Authorization": ["Basic dXNlcjpwYXNz"], "Cookie": ["sid=ab12cd34; theme=dark"], "Accept": ["*/*"]}`,
			`{"Authorization": ["Basic [REDACTED]"], "Cookie": ["sid=[REDACTED]; theme=[REDACTED]"], "Accept": ["*/*"]}`},
		{"issue 23: the value of an object under a secret's name (terraform output -json)",
			`{"db_password": {"sensitive": true, "type": "string", "value": "Tf0ut-pw"}, "region": {"value": "eu"}}`,
			`{"db_password": {"sensitive": true, "type": "string", "value": "[REDACTED]"}, "region": {"value": "eu"}}`},
		{"issue 23: an argument list read as the command line it makes",
			`{"argv": ["docker", "login", "-u", "ci", "-p", "Dck3rPw9", "ghcr.io"], "env": ["mysql", "-uroot", "-pS3cret9"]}`,
			`{"argv": ["docker", "login", "-u", "ci", "-p", "[REDACTED]", "ghcr.io"], "env": ["mysql", "-uroot", "-p[REDACTED]"]}`},
		{"issue 23: an argument list with no credential command keeps its values",
			`{"argv": ["docker", "run", "-p", "8080:80", "nginx"], "words": ["-p", "password", "hunter2"]}`,
			`{"argv": ["docker", "run", "-p", "8080:80", "nginx"], "words": ["-p", "password", "hunter2"]}`},
		{"a bare JSON string",
			`"Authorization: Bearer abc123def456"`,
			`"Authorization: Bearer [REDACTED]"`},
		{"", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := JSON(tt.in)
			if got != tt.want {
				t.Errorf("got %v, want %v", got, tt.want)
			}
			if JSON(got) != got {
				t.Errorf("not idempotent: got %v, want %v", JSON(got), got)
			}
			if json.Valid([]byte(tt.in)) {
				if !json.Valid([]byte(got)) {
					t.Errorf("invalid JSON: %s", got)
				}
			}
		})
	}
}

func TestJSONLeavesLookAlikesAlone(t *testing.T) {
	for _, tt := range secrettest.LookAlikes {
		t.Run(tt.Name, func(t *testing.T) {
			if JSON(tt.In) != tt.In {
				t.Errorf("got %v, want %v", JSON(tt.In), tt.In)
			}
			wrapped := jsonObject(t, "stdout", tt.In, "command", "cat "+tt.Name)
			if JSON(wrapped) != wrapped {
				t.Errorf("got %v, want %v", JSON(wrapped), wrapped)
			}
		})
	}
}

// The rules of Cases hold inside JSON strings too: the secret goes, the
// JSON stays valid.
func TestJSONCases(t *testing.T) {
	for _, tt := range secrettest.Cases {
		t.Run(tt.Name, func(t *testing.T) {
			in := jsonObject(t, "command", tt.In, "note", "after")
			got := JSON(in)
			if !json.Valid([]byte(got)) {
				t.Errorf("invalid JSON: %s", got)
			}
			var v map[string]string
			if err := json.Unmarshal([]byte(got), &v); err != nil {
				t.Error(err)
			}
			if v["note"] != "after" {
				t.Errorf("got %v, want %v", v["note"], "after")
			}
			if v["command"] != String(tt.In) {
				t.Errorf("a JSON string is redacted as its text is: got %v, want %v", v["command"], String(tt.In))
			}
		})
	}
}

func TestJSONFuncExtendsTheRules(t *testing.T) {
	internal := func(s string) string { return strings.ReplaceAll(String(s), "corp-4471", Marker) }
	got := JSONFunc(`{"ticket": "corp-4471", "password": "hunter22", "note": "ok"}`, internal)
	if got != `{"ticket": "[REDACTED]", "password": "[REDACTED]", "note": "ok"}` {
		t.Errorf("got %v, want %v", got, `{"ticket": "[REDACTED]", "password": "[REDACTED]", "note": "ok"}`)
	}
	// A value under a secret name goes even when f keeps everything.
	keep := func(s string) string { return s }
	if JSONFunc(`{"token": "abc", "x": "token=abc"}`, keep) != `{"token": "[REDACTED]", "x": "token=abc"}` {
		t.Errorf("got %v, want %v", JSONFunc(`{"token": "abc", "x": "token=abc"}`, keep), `{"token": "[REDACTED]", "x": "token=abc"}`)
	}
}

func TestShapeIndexFits(t *testing.T) {
	// The index stores 1 + a group number in a byte.
	if len(shapeIndex.groups) >= 255 {
		t.Errorf("%v is not below %v", len(shapeIndex.groups), 255)
	}
	for i, k := range keyShapes {
		for _, earlier := range keyShapes[:i] {
			if strings.HasPrefix(k.prefix, earlier.prefix) && k.prefix != earlier.prefix && k.valid == nil && earlier.valid == nil {
				t.Errorf("%q comes after the shorter prefix %q it starts with", k.prefix, earlier.prefix)
			}
		}
	}
}

// FuzzJSON: JSON never panics, is idempotent, returns valid UTF-8 with no
// control characters, keeps valid JSON valid, and loses a generated secret
// planted anywhere in a JSON document: as a value, in a command, under a
// secret name, inside JSON held in a string.
func FuzzJSON(f *testing.F) {
	f.Add(`{"command": "ls"}`, uint8(0), uint8(0), []byte("seed"))
	f.Add(`[1, {"a": [true, null, "x"]}]`, uint8(3), uint8(1), []byte{1, 2})
	f.Add(`{"env": {"HOME": "/root"}}`, uint8(7), uint8(2), []byte{9})
	f.Add(`"plain"`, uint8(11), uint8(3), []byte{})
	f.Add("not json {", uint8(5), uint8(4), []byte{7, 7})
	f.Add(`{"a":"\u001b[31mred\u001b[0m"}`, uint8(2), uint8(5), []byte{3})
	for _, c := range secrettest.Cases[:10] {
		f.Add(jsonQuote(c.In), uint8(1), uint8(0), []byte(c.Name))
	}
	f.Fuzz(func(t *testing.T, doc string, kind, where uint8, seed []byte) {
		once := JSON(doc)
		if twice := JSON(once); twice != once {
			t.Fatalf("not idempotent:\n in    %q\n once  %q\n twice %q", doc, once, twice)
		}
		if !utf8.ValidString(once) || StripControl(once) != once {
			t.Fatalf("JSON(%q) = %q: invalid UTF-8 or control characters", doc, once)
		}
		if json.Valid([]byte(StripControl(doc))) && !json.Valid([]byte(once)) {
			t.Fatalf("JSON(%q) = %q: valid JSON made invalid", doc, once)
		}

		secret, core := secrettest.Makers[int(kind)%len(secrettest.Makers)](seed)
		planted := plant(doc, secret, where)
		if !json.Valid([]byte(planted)) {
			t.Fatalf("test bug: planted document is not JSON: %s", planted)
		}
		out := JSON(planted)
		if !json.Valid([]byte(out)) {
			t.Fatalf("JSON(%s) = %s: invalid JSON", planted, out)
		}
		if strings.Count(out, jsonEscaped(core)) > strings.Count(doc, jsonEscaped(core)) {
			t.Fatalf("secret %q survived in %s", core, out)
		}
	})
}

// plant returns a JSON document holding secret at a place where selects,
// beside doc (as a string when doc is not JSON).
func plant(doc, secret string, where uint8) string {
	other := jsonQuote(doc)
	if json.Valid([]byte(doc)) {
		other = doc
	}
	switch where % 6 {
	case 0:
		return `{"command": ` + jsonQuote("cd /srv && "+secret) + `, "other": ` + other + `}`
	case 1:
		return `[` + other + `, ` + jsonQuote(secret) + `]`
	case 2:
		return `{"env": {"API_TOKEN": ` + jsonQuote(secret) + `}, "other": ` + other + `}`
	case 3:
		return `{"payload": ` + jsonQuote(`{"input": `+jsonQuote(secret)+`}`) + `, "other": ` + other + `}`
	case 4:
		return `{"stdout": ` + jsonQuote("line one\n"+secret+"\nline three") + `, "exit": 0, "other": ` + other + `}`
	}
	return `{"args": ["--verbose", ` + jsonQuote(secret) + `], "other": ` + other + `}`
}

func jsonQuote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// jsonEscaped is s as it reads inside a JSON string literal.
func jsonEscaped(s string) string {
	q := jsonQuote(s)
	return q[1 : len(q)-1]
}

// BenchmarkJSON measures JSON over the shared transcripts read as JSON
// documents (every message, content and argument a string to redact), and
// over the same text when it is not JSON (each file cut in two).
func BenchmarkJSON(b *testing.B) {
	text := redactBenchText(b)
	docs := strings.Split(text, "\n[\n")
	b.Run("documents", func(b *testing.B) {
		b.SetBytes(int64(len(text)))
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			for _, d := range docs {
				JSON(d)
			}
		}
	})
	b.Run("text", func(b *testing.B) {
		b.SetBytes(int64(len(text)))
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			JSON(text[1:])
		}
	})
}

// FuzzUnescapeJSON: unescapeJSON decodes a JSON string literal as
// encoding/json does.
func FuzzUnescapeJSON(f *testing.F) {
	for _, s := range []string{`"a\nb"`, `"\u00e9\ud83d\ude00"`, `"\ud800x"`, `"\udc00\ud800"`, `"\\\/\"\b\f\r\t"`, `"\ud83d\u0041"`, "\"\xff\\n\""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, lit string) {
		var want string
		if len(lit) < 2 || lit[0] != '"' || lit[len(lit)-1] != '"' || !utf8.ValidString(lit) || json.Unmarshal([]byte(lit), &want) != nil {
			return // not one valid string literal (invalid UTF-8 is StripControl's)
		}
		if got := unescapeJSON(lit[1 : len(lit)-1]); got != want {
			t.Fatalf("unescapeJSON(%s) = %q, encoding/json says %q", lit, got, want)
		}
	})
}

func TestRunCacheHoldsEveryBodyClass(t *testing.T) {
	classes := map[*byteClass]bool{}
	for _, k := range keyShapes {
		classes[k.body] = true
	}
	if len(classes) > maxCachedClasses {
		t.Errorf("a class past the cache is measured again at every candidate: %v is above %v", len(classes), maxCachedClasses)
	}
}
