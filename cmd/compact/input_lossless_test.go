package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestCheckLossless names the place of each problem as a path.
func TestCheckLossless(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{`"plain"`, ""},
		{`{"a":[1,true,null,{"b":"\ud83d\ude00"}],"c":-1.5e3}`, ""},
		{`{"a":{"b":{"a":1}},"b":2}`, ""},
		{`"\ud800"`, `a lone UTF-16 surrogate \ud800, which would come back as U+FFFD`},
		{`{"a":[0,{"b":"\ud800x"}]}`, `a[1].b: a lone UTF-16 surrogate \ud800`},
		{`{"odd key":{"c":"\udc00"}}`, `["odd key"].c: a lone UTF-16 surrogate \udc00`},
		{`{"a":{"b":1,"b":2}}`, `a: key "b" appears twice; only the last would be kept`},
		{"[\"\x80\"]", `[0]: invalid UTF-8 (byte 0x80)`},
		{`{"\ud800":1}`, `a key has a lone UTF-16 surrogate \ud800`},
	} {
		err := checkLossless([]byte(tt.in))
		if tt.want == "" {
			assert.NoError(t, err, tt.in)
			continue
		}
		if assert.Error(t, err, tt.in) {
			assert.True(t, strings.HasPrefix(err.Error(), tt.want), "%s: %q\nwant it to start %q", tt.in, err, tt.want)
		}
	}
}
