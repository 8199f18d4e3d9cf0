package prune

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// An option given an invalid value changes nothing: the default stays in
// force, and Adjusted (of the Pruner and of its Results) says which option
// was refused and what was kept.
func TestInvalidOptionValuesKeepTheDefaultAndAreReported(t *testing.T) {
	tests := []struct {
		name string
		opt  Option
		want string
	}{
		{"keep tool uses", WithKeepToolUses(-1), "WithKeepToolUses(-1): invalid, 3 kept"},
		{"argument chars", WithArgumentChars(-1), "WithArgumentChars(-1): invalid, 2000 kept"},
		{"clear at least", WithClearAtLeast(-1), "WithClearAtLeast(-1): invalid, 2000 kept"},
		{"pressure", WithPressure(-1), "WithPressure(-1): invalid, 0 kept"},
		{"kinds", WithKinds(Masked, Kind(9)), "WithKinds([masked tool result Kind(9)]): invalid, every kind kept"},
		{"range start", WithRange(-1, 4), "WithRange(-1, 4): invalid, the whole history but its last messages kept"},
		{"range end", WithRange(5, 4), "WithRange(5, 4): invalid, the whole history but its last messages kept"},
	}
	in := agentRun(12)
	want := New().Apply(in)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := New(tt.opt)
			assert.Equal(t, []string{tt.want}, p.Adjusted())
			got := p.Apply(in)
			assert.Equal(t, []string{tt.want}, got.Adjusted)
			got.Adjusted = nil
			assert.Equal(t, want, got, "the defaults stay in force")
		})
	}
}

// Valid values are taken and leave Adjusted empty.
func TestValidOptionValuesAreTaken(t *testing.T) {
	p := New(WithKeepToolUses(0), WithArgumentChars(0), WithClearAtLeast(0), WithPressure(0),
		WithKinds(Masked), WithRange(0, 0), WithToolRules(ToolRule{Name: "bash"}), WithTokenCounter(nil))
	assert.Nil(t, p.Adjusted())
	assert.Nil(t, p.Apply(agentRun(3)).Adjusted)
}
