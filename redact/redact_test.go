package redact

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/contextkit/compact/internal/secrettest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRedactRemovesSecretsAndKeepsTheirKind(t *testing.T) {
	for _, tt := range secrettest.Cases {
		t.Run(tt.Name, func(t *testing.T) {
			got := String(tt.In)
			assert.Contains(t, got, Marker)
			for _, g := range tt.Gone {
				assert.NotContains(t, got, g, "secret survived")
			}
			for _, k := range tt.Kept {
				assert.Contains(t, got, k, "context lost")
			}
			assert.Equal(t, got, String(got), "not idempotent")
		})
	}
}

func TestRedactLeavesLookAlikesAlone(t *testing.T) {
	for _, tt := range secrettest.LookAlikes {
		t.Run(tt.Name, func(t *testing.T) {
			assert.Equal(t, tt.In, String(tt.In))
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
		assert.Equal(t, tt.want, String(tt.in), "String(%q)", tt.in)
	}
}

func TestRedactCorpusSizes(t *testing.T) {
	// The corpus is the specification: keep it broad.
	assert.GreaterOrEqual(t, len(secrettest.Cases), 40)
	assert.GreaterOrEqual(t, len(secrettest.LookAlikes), 20)
}

// Tool arguments are JSON: a secret inside a JSON string must go without
// breaking the JSON around it.
func TestRedactKeepsJSONValid(t *testing.T) {
	// JSON text is read as JSON: a string that loses a secret is written
	// again, without HTML escapes.
	got := String(`{"q": "a?x=1\u0026token=abc123", "cmd": "echo Authorization: Bearer abc123"}`)
	assert.Equal(t, `{"q": "a?x=1&token=[REDACTED]", "cmd": "echo Authorization: Bearer [REDACTED]"}`, got)

	for _, tt := range secrettest.Cases {
		t.Run(tt.Name, func(t *testing.T) {
			if StripControl(tt.In) != tt.In {
				t.Skip("JSON escapes control characters: nothing left to strip")
			}
			var buf strings.Builder
			enc := json.NewEncoder(&buf)
			enc.SetEscapeHTML(false) // as models write arguments
			require.NoError(t, enc.Encode(map[string]string{"command": tt.In, "note": "after"}))
			got := String(buf.String())
			assert.True(t, json.Valid([]byte(got)), "invalid JSON: %s", got)
			assert.Contains(t, got, `"note":"after"`)
			for _, g := range tt.Gone {
				ge, _ := json.Marshal(g)
				assert.NotContains(t, got, strings.Trim(string(ge), `"`), "secret survived")
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
		assert.Equal(t, out, String(out))
	}
	assert.Equal(t, strings.Repeat("curl -u a:[REDACTED] ", 3), String(strings.Repeat("curl -u a:b ", 3)))
}
