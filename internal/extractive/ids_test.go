package extractive

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestIsIdentifier(t *testing.T) {
	tests := []struct {
		key, value string
		want       bool
		why        string
	}{
		// What counts.
		{"reservation_id", "ZFA04Y", true, "a record locator"},
		{"reservation_id", "HATHAU", true, "a record locator of letters only"},
		{"code", "4OG6T3", true, "six upper-case letters and digits anywhere"},
		{"user_id", "mia_li_3668", true, "a name_1234 id"},
		{"payment_id", "credit_card_4421486", true, "a payment id"},
		{"flight_number", "HAT082", true, "letters and digits"},
		{"commit", "9fceb02", true, "a short SHA"},
		{"sha", "e83c5163316f89bfbde7d9ab23ca2e25604af290", true, "a full SHA"},
		{"ref", "#4588", true, "an issue reference"},
		{"issue", "GH-1234", true, "a tracker key"},
		{"order_id", "W2378156", true, "an order id"},
		{"model", "gpt-4o", true, "mixed letters and digits name an entity wherever they appear"},
		{"ticket", "HELPDESK", true, "any token under a key that says it holds an id"},
		{"customerId", "abc", false, "three letters are too few to tell from a setting"},
		{"customerId", "acme-corp", true, "a camelCase id key"},

		// What does not.
		{"origin", "JFK", false, "an airport code has no digit and is no locator"},
		{"cabin", "economy", false, "a plain word"},
		{"date", "2024-05-15", false, "a date"},
		{"departure", "2024-05-15T10:00:00Z", false, "a timestamp"},
		{"version", "v1.2.3", false, "a version"},
		{"width", "10px", false, "a quantity"},
		{"timeout", "1h30m", false, "a duration"},
		{"size", "1.5GB", false, "a size"},
		{"path", "src/main.go", false, "a path"},
		{"file", "setup.py", false, "a file name"},
		{"query", "flights to SFO on 5/15", false, "free text"},
		{"note", "call back", false, "words"},
		{"code", "print(x1)", false, "code"},
		{"services", "netflix,prime_video", false, "a list in one string"},
		{"genre", "20", false, "a number under a key that names no id"},
		{"reservation_id", "null", false, "a setting, not a name"},
		{"reservation_id", "main", false, "a branch name used as a default"},
		{"id", "x", false, "too short"},
		{"security_risk", "LOW", false, "an enum"},
	}
	for _, tt := range tests {
		t.Run(tt.key+"="+tt.value, func(t *testing.T) {
			assert.Equal(t, tt.want, isIdentifier(tt.key, tt.value), tt.why)
		})
	}
}

func TestCallIDs(t *testing.T) {
	tests := []struct {
		name, args string
		want       []idArg
	}{
		{"scalars in key order", `{"user_id":"mia_li_3668","reservation_id":"ZFA04Y","cabin":"economy"}`,
			[]idArg{{"reservation_id", "ZFA04Y"}, {"user_id", "mia_li_3668"}}},
		{"nested lists of objects keep the innermost key",
			`{"flights":[{"flight_number":"HAT082","date":"2024-05-17"}],"payment_methods":[{"payment_id":"gift_card_1","amount":50}]}`,
			[]idArg{{"flight_number", "HAT082"}, {"payment_id", "gift_card_1"}}},
		{"numbers count under an id key only", `{"issue_number":4588,"line_number":12,"amount":300,"pr":7}`,
			[]idArg{{"issue_number", "4588"}, {"pr", "7"}}},
		{"a list of scalars", `{"ids":["a1","b2"]}`, []idArg{{"ids", "a1"}, {"ids", "b2"}}},
		{"prose, code and paths are not searched",
			`{"command":"git show 9fceb02","new_str":"x = HAT082","path":"/repo/v2/a.go","message":"order W2378156"}`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var args map[string]any
			require.NoError(t, json.Unmarshal([]byte(tt.args), &args))
			assert.Equal(t, tt.want, callIDs(args))
		})
	}
}

func TestIsMeasure(t *testing.T) {
	for v, want := range map[string]bool{
		"2024-05-15T10:00Z": true, "10:30am": true, "3.11": true, "30s": true, "4x": true, "1h30m": true,
		"HAT082": false, "a1b2c3": false, "x86_64": false, "gpt-4o": false,
	} {
		assert.Equal(t, want, isMeasure(v), v)
	}
}
