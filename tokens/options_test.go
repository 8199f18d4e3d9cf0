package tokens

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// An option given an invalid value changes nothing: the default stays in
// force, and Adjusted says which option was refused and what was kept.
func TestInvalidOptionValuesKeepTheDefaultAndAreReported(t *testing.T) {
	tests := []struct {
		name string
		opt  Option
		want string
	}{
		{"cache size", WithCacheSize(-1), "WithCacheSize(-1): invalid, 65536 kept"},
		{"image tokens", WithImageTokens(-1), "WithImageTokens(-1): invalid, 765 kept"},
	}
	def := newCounter(t, EncodingO200KBase)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := ForModel("gpt-4o", tt.opt)
			require.NoError(t, err)
			assert.Equal(t, []string{tt.want}, c.Adjusted())
			assert.Equal(t, def.genSize, c.genSize)
			assert.Equal(t, def.imageTokens, c.imageTokens)
		})
	}
	c, err := ForModel("gpt-4o", WithCacheSize(0), WithImageTokens(0), nil)
	require.NoError(t, err)
	assert.Nil(t, c.Adjusted(), "valid values are taken")
	assert.Zero(t, c.genSize)
	assert.Zero(t, c.imageTokens)
}
