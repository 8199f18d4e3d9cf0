package trigger

import (
	"math"
	"sync/atomic"

	"github.com/contextkit/compact/tokens"
	openai "github.com/sashabaranov/go-openai"
)

// Calibration bounds: a provider's reports move the factor by at most the
// square root of what one report says (smoothing one odd request), and
// never outside [MinCalibration, MaxCalibration] (no real tokenizer is
// half or thrice as dense as o200k_base on the same text).
const (
	MinCalibration = 0.5
	MaxCalibration = 3.0
)

// Counter is the counter a Compressor builds for itself when the host sets
// none: the exact counter of its model's encoding, its counts scaled by a
// calibration factor when the model's own tokenizer is not one we have.
// Switch swaps the encoding and Calibrate tunes the factor, both while
// other goroutines count.
type Counter struct {
	cur atomic.Pointer[counterState]
}

// counterState is one state of a Counter, never modified once made.
type counterState struct {
	base        *tokens.Exact
	encoding    string
	factor      float64 // 1 when the count is exact
	calibrating bool    // the model's tokenizer is not ours: reports tune factor
}

func (s *counterState) scale(n int) int {
	if s.factor == 1 {
		return n
	}
	return int(math.Round(float64(n) * s.factor))
}

// NewCounter returns a Counter of base's counts, named encoding, scaled by
// factor; calibrating says whether usage reports tune the factor.
func NewCounter(base *tokens.Exact, encoding string, factor float64, calibrating bool) *Counter {
	c := &Counter{}
	c.Switch(base, encoding, factor, calibrating)
	return c
}

// Switch moves c to another encoding and factor.
func (c *Counter) Switch(base *tokens.Exact, encoding string, factor float64, calibrating bool) {
	c.cur.Store(&counterState{base: base, encoding: encoding, factor: factor, calibrating: calibrating})
}

// CountText counts s with the encoding, scaled by the calibration.
func (c *Counter) CountText(s string) int {
	st := c.cur.Load()
	return st.scale(st.base.CountText(s))
}

// CountMessage counts m with the encoding, scaled by the calibration.
func (c *Counter) CountMessage(m openai.ChatCompletionMessage) int {
	st := c.cur.Load()
	return st.scale(st.base.CountMessage(m))
}

// Encoding names the encoding counted with.
func (c *Counter) Encoding() string { return c.cur.Load().encoding }

// Base is the exact counter of the encoding, unscaled.
func (c *Counter) Base() *tokens.Exact { return c.cur.Load().base }

// Factor is the calibration factor counts are scaled by (1 when exact).
func (c *Counter) Factor() float64 { return c.cur.Load().factor }

// Calibrate moves the factor toward what a provider reported for a
// request c counted as counted tokens, and returns that count at the new
// factor. A counter that is not calibrating, or nil, returns counted as it
// is.
func (c *Counter) Calibrate(reported, counted int) int {
	if c == nil {
		return counted
	}
	old := c.cur.Load()
	if !old.calibrating || reported <= 0 || counted <= 0 {
		return counted
	}
	f := old.factor * math.Sqrt(float64(reported)/float64(counted))
	f = min(max(f, MinCalibration), MaxCalibration)
	next := *old
	next.factor = f
	c.cur.CompareAndSwap(old, &next)
	return int(math.Round(float64(counted) * f / old.factor))
}
