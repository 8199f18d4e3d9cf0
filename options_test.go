package compact

import (
	"testing"
	"time"

	"github.com/contextkit/compact/prune"
	"github.com/contextkit/compact/tokens"
	"github.com/stretchr/testify/assert"
)

// An option given an invalid value changes nothing: the default stays in
// force, and Status says which option was refused and what was kept.
func TestInvalidOptionValuesKeepTheDefaultAndStatusSaysSo(t *testing.T) {
	tests := []struct {
		name string
		opt  Option
		want string
	}{
		{"window", WithContextWindow(0), "WithContextWindow(0): invalid, 128000 kept"},
		{"reserve", WithReserveTokens(-1), "WithReserveTokens(-1): invalid, the default kept"},
		{"threshold", WithThreshold(1.5), "WithThreshold(1.5): invalid, 0.75 kept"},
		{"bounds", WithThresholdBounds(-1, 5), "WithThresholdBounds(-1, 5): invalid, 0, 256000 kept"},
		{"head", WithHeadMessages(-2), "WithHeadMessages(-2): invalid, 3 kept"},
		{"tail", WithTail(1.2, 0), "WithTail(1.2, 0): invalid, 0.2, 4 kept"},
		{"carried", WithCarriedUserTokens(-5), "WithCarriedUserTokens(-5): invalid, 20000 kept"},
		{"summary", WithSummaryTokens(3), "WithSummaryTokens(3): invalid, 8000 kept"},
		{"policy", WithFailurePolicy(FailurePolicy(9)), "WithFailurePolicy(9): invalid, 0 kept"},
		{"clock", WithClock(nil), "WithClock(nil): invalid, time.Now kept"},
		{"backoff", WithBackoff(time.Second, -time.Second), "WithBackoff([1s -1s]): invalid, [1m0s 5m0s 15m0s] kept"},
		{"strikes", WithStrikeLimit(-1), "WithStrikeLimit(-1): invalid, 2 kept"},
		{"timeout", WithSummaryTimeout(-time.Second), "WithSummaryTimeout(-1s): invalid, 0s kept"},
		{"keep tool uses", WithPruneOptions(prune.WithKeepToolUses(-1)), "WithKeepToolUses(-1): invalid, 3 kept"},
		{"argument chars", WithPruneOptions(prune.WithArgumentChars(-1)), "WithArgumentChars(-1): invalid, 2000 kept"},
		{"clear at least", WithPruneOptions(prune.WithClearAtLeast(-1)), "WithClearAtLeast(-1): invalid, 2000 kept"},
		{"pressure", WithPruneOptions(prune.WithPressure(-1)), "WithPressure(-1): invalid, 0 kept"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := New(WithTokenCounter(tokens.Estimator{})).Status()
			got := New(WithTokenCounter(tokens.Estimator{}), tt.opt).Status()
			assert.Equal(t, []string{tt.want}, got.Adjusted)
			got.Adjusted = nil
			assert.Equal(t, want, got, "the defaults stay in force")
		})
	}
}

// The options of the counter a Compressor builds for itself are checked
// too; given with a counter of the host's, they are reported as ignored.
func TestInvalidCounterOptionsAreReported(t *testing.T) {
	tests := []struct {
		name string
		opts []Option
		want []string
	}{
		{"cache", []Option{WithCounterOptions(tokens.WithCacheSize(-1))}, []string{"WithCacheSize(-1): invalid, 65536 kept"}},
		{"images", []Option{WithCounterOptions(tokens.WithImageTokens(-1))}, []string{"WithImageTokens(-1): invalid, 765 kept"}},
		{"valid", []Option{WithCounterOptions(tokens.WithImageTokens(85), tokens.WithCacheSize(0))}, nil},
		{"with a host's counter", []Option{WithTokenCounter(tokens.Estimator{}), WithCounterOptions(tokens.WithCacheSize(0))},
			[]string{"WithCounterOptions: ignored, the counter WithTokenCounter set is used as it is"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, New(tt.opts...).Status().Adjusted)
		})
	}
}

// Valid values are taken and leave Status.Adjusted empty.
func TestValidOptionValuesAreTaken(t *testing.T) {
	c := New(WithTokenCounter(tokens.Estimator{}), WithContextWindow(32_000), WithThreshold(0.5),
		WithThresholdBounds(0, 0), WithReserveTokens(0))
	st := c.Status()
	assert.Empty(t, st.Adjusted)
	assert.Equal(t, 32_000, st.Window)
	assert.Equal(t, 16_000, st.Threshold)
}

// No Compressor can change another's defaults: each gets its own backoff.
func TestDefaultsAreNotShared(t *testing.T) {
	a, b := New(), New()
	a.cfg.backoff[0] = time.Hour
	assert.Equal(t, time.Minute, b.cfg.backoff[0])
}
