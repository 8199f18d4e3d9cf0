package redact

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/contextkit/compact/internal/secrettest"
)

func TestRedactRemovesSecretsAndKeepsTheirKind(t *testing.T) {
	for _, tt := range secrettest.Cases {
		t.Run(tt.Name, func(t *testing.T) {
			got := String(tt.In)
			if !strings.Contains(got, Marker) {
				t.Errorf("%q does not contain %q", got, Marker)
			}
			for _, g := range tt.Gone {
				if strings.Contains(got, g) {
					t.Errorf("secret survived: %q contains %q", got, g)
				}
			}
			for _, k := range tt.Kept {
				if !strings.Contains(got, k) {
					t.Errorf("context lost: %q does not contain %q", got, k)
				}
			}
			if String(got) != got {
				t.Errorf("not idempotent: got %v, want %v", String(got), got)
			}
		})
	}
}

func TestRedactLeavesLookAlikesAlone(t *testing.T) {
	for _, tt := range secrettest.LookAlikes {
		t.Run(tt.Name, func(t *testing.T) {
			if String(tt.In) != tt.In {
				t.Errorf("got %v, want %v", String(tt.In), tt.In)
			}
		})
	}
}

func TestRedactExactForms(t *testing.T) {
	tests := []struct{ in, want string }{
		{"Authorization: Bearer abc123xyz", "Authorization: Bearer [REDACTED]"},
		{`"password": "hunter2"`, `"password": "[REDACTED]"`},
		{"https://bob:pw@host/x", "https://bob:[REDACTED]@host/x"},
		{secrettest.FakeGitHub, "ghp_[REDACTED]"},
		{secrettest.FakeJWT, "[REDACTED]"},
		{"Set-Cookie: id=a3f; Path=/", "Set-Cookie: id=[REDACTED]; Path=/"},
		{"-----BEGIN EC PRIVATE KEY-----\nMHcCAQEE\n-----END EC PRIVATE KEY-----", "-----BEGIN EC PRIVATE KEY-----[REDACTED]-----END EC PRIVATE KEY-----"},
		{"", ""},
	}
	for _, tt := range tests {
		if String(tt.in) != tt.want {
			t.Errorf("String(%q): got %v, want %v", tt.in, String(tt.in), tt.want)
		}
	}
}

func TestRedactCorpusSizes(t *testing.T) {
	// The corpus is the specification: keep it broad.
	if len(secrettest.Cases) < 40 {
		t.Errorf("%v is below %v", len(secrettest.Cases), 40)
	}
	if len(secrettest.LookAlikes) < 20 {
		t.Errorf("%v is below %v", len(secrettest.LookAlikes), 20)
	}
}

// Tool arguments are JSON: a secret inside a JSON string must go without
// breaking the JSON around it.
func TestRedactKeepsJSONValid(t *testing.T) {
	// JSON text is read as JSON: a string that loses a secret is written
	// again, without HTML escapes.
	got := String(`{"q": "a?x=1\u0026token=abc123", "cmd": "echo Authorization: Bearer abc123"}`)
	if got != `{"q": "a?x=1&token=[REDACTED]", "cmd": "echo Authorization: Bearer [REDACTED]"}` {
		t.Errorf("got %v, want %v", got, `{"q": "a?x=1&token=[REDACTED]", "cmd": "echo Authorization: Bearer [REDACTED]"}`)
	}

	for _, tt := range secrettest.Cases {
		t.Run(tt.Name, func(t *testing.T) {
			if StripControl(tt.In) != tt.In {
				t.Skip("JSON escapes control characters: nothing left to strip")
			}
			var buf strings.Builder
			enc := json.NewEncoder(&buf)
			enc.SetEscapeHTML(false) // as models write arguments
			if err := enc.Encode(map[string]string{"command": tt.In, "note": "after"}); err != nil {
				t.Fatal(err)
			}
			got := String(buf.String())
			if !json.Valid([]byte(got)) {
				t.Errorf("invalid JSON: %s", got)
			}
			if !strings.Contains(got, `"note":"after"`) {
				t.Errorf("%q does not contain %q", got, `"note":"after"`)
			}
			for _, g := range tt.Gone {
				ge, _ := json.Marshal(g)
				if strings.Contains(got, strings.Trim(string(ge), `"`)) {
					t.Errorf("secret survived: %q contains %q", got, strings.Trim(string(ge), `"`))
				}
			}
		})
	}
}

func TestRedactLongLinesOfTriggers(t *testing.T) {
	// A trigger word on a line longer than a rule's window, and rule windows
	// that reach the end of the text.
	for _, s := range []string{
		"machine " + strings.Repeat("x", 5000) + "\nlogin a\npassword b",
		"machine h login u password",
		"curl",
		strings.Repeat("curl -u a:b ", 500),
	} {
		out := String(s)
		if String(out) != out {
			t.Errorf("got %v, want %v", String(out), out)
		}
	}
	if String(strings.Repeat("curl -u a:b ", 3)) != strings.Repeat("curl -u a:[REDACTED] ", 3) {
		t.Errorf("got %v, want %v", String(strings.Repeat("curl -u a:b ", 3)), strings.Repeat("curl -u a:[REDACTED] ", 3))
	}
}
