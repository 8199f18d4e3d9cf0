package textcut

import (
	"encoding/json"
	"testing"
)

// numberReference is NumberEnd's answer for a whole text, by the standard
// library: s is one JSON number when it decodes into a json.Number and
// opens with a digit or a minus (json also takes surrounding space).
func numberReference(s string) bool {
	if s == "" || s[0] != '-' && (s[0] < '0' || s[0] > '9') || s[len(s)-1] < '0' || s[len(s)-1] > '9' {
		return false
	}
	var n json.Number
	return json.Unmarshal([]byte(s), &n) == nil
}

func TestNumberEnd(t *testing.T) {
	for _, tc := range []struct {
		s    string
		i    int
		end  int
		want bool
	}{
		{"0", 0, 1, true},
		{"-12.5e+3,", 0, 8, true},
		{"x:10}", 2, 4, true},
		{"01", 0, 1, true}, // a zero ends the integer part
		{"1.", 0, 1, false},
		{"1e", 0, 2, false},
		{"-", 0, 1, false},
		{"-x", 0, 1, false},
		{"", 0, 0, false},
		{"7", 1, 1, false}, // at the end of s: nothing there
		{"7", 5, 5, false}, // past it
		{"abc", 0, 0, false},
	} {
		end, ok := NumberEnd(tc.s, tc.i)
		if end != tc.end || ok != tc.want {
			t.Errorf("NumberEnd(%q, %d) = %d, %v; want %d, %v", tc.s, tc.i, end, ok, tc.end, tc.want)
		}
	}
}

// FuzzNumberEnd checks NumberEnd against encoding/json: a text it reads
// whole is a JSON number, and a JSON number it reads whole.
func FuzzNumberEnd(f *testing.F) {
	for _, s := range []string{"0", "-1.5E-7", "12e", "1.", "--1", "0x1", "", "-"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		end, ok := NumberEnd(s, 0)
		whole := ok && end == len(s)
		if whole != numberReference(s) {
			t.Fatalf("NumberEnd(%q, 0) = %d, %v; encoding/json says a number: %v", s, end, ok, numberReference(s))
		}
		if end < 0 || end > len(s) {
			t.Fatalf("NumberEnd(%q, 0) = %d, outside the text", s, end)
		}
	})
}
