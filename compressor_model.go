package compact

import (
	"fmt"
	"math"
	"sync/atomic"

	"github.com/contextkit/compact/models"
	"github.com/contextkit/compact/tokens"
)

// Calibration bounds: a provider's reports move the factor by at most the
// square root of what one report says (smoothing one odd request), and
// never outside [minCalibration, maxCalibration] (no real tokenizer is
// half or thrice as dense as o200k_base on the same text).
const (
	minCalibration = 0.5
	maxCalibration = 3.0
)

// modelCounter is the counter a Compressor builds for itself when the host
// sets none: the exact counter of its model's encoding, its counts scaled
// by a calibration factor when the model's own tokenizer is not one we
// have. SwitchModel swaps the encoding and UpdateUsage tunes the factor,
// both while other goroutines count.
type modelCounter struct {
	cur atomic.Pointer[modelCount]
}

// modelCount is one state of a modelCounter, never modified once made.
type modelCount struct {
	base        *tokens.Exact
	encoding    string
	factor      float64 // 1 when the count is exact
	calibrating bool    // the model's tokenizer is not ours: reports tune factor
}

func (m *modelCount) scale(n int) int {
	if m.factor == 1 {
		return n
	}
	return int(math.Round(float64(n) * m.factor))
}

// CountText counts s with the model's encoding, scaled by the calibration.
func (m *modelCounter) CountText(s string) int {
	c := m.cur.Load()
	return c.scale(c.base.CountText(s))
}

// CountMessage counts msg with the model's encoding, scaled by the
// calibration.
func (m *modelCounter) CountMessage(msg Message) int {
	c := m.cur.Load()
	return c.scale(c.base.CountMessage(msg))
}

// Encoding names the encoding counted with.
func (m *modelCounter) Encoding() string { return m.cur.Load().encoding }

// modelSetup is what the model table says of a model, as a Compressor uses
// it: the window (0 when unknown), the encoding and the starting factor.
type modelSetup struct {
	known       bool
	window      int
	encoding    string
	factor      float64
	calibrating bool
	pricing     models.Pricing // the table's; unknown when it has none
}

// setupFor looks model up in the table. A model the table does not know is
// counted with the encoding EncodingForModel names, calibrated from the
// provider's reports unless it is empty (no model named).
func setupFor(model string) modelSetup {
	if m, ok := models.Lookup(model); ok {
		if m.Encoding != "" {
			return modelSetup{known: true, window: m.Window, encoding: m.Encoding, factor: 1, pricing: m.Pricing}
		}
		return modelSetup{known: true, window: m.Window, encoding: tokens.EncodingO200KBase, factor: m.Calibration, calibrating: true, pricing: m.Pricing}
	}
	return modelSetup{encoding: tokens.EncodingForModel(model), factor: 1, calibrating: model != ""}
}

// newModelCounter builds the counter for setup, or returns nil when the
// encoding cannot be built.
func newModelCounter(setup modelSetup, cfg config) (*modelCounter, error) {
	base, err := tokens.ForEncoding(setup.encoding, cfg.counterOpts...)
	if err != nil {
		return nil, err
	}
	m := &modelCounter{}
	m.cur.Store(&modelCount{base: base, encoding: setup.encoding, factor: setup.factor, calibrating: setup.calibrating})
	return m, nil
}

// switchTo moves m to setup's encoding and factor. It keeps the counter
// (and its memo) when the encoding does not change.
func (m *modelCounter) switchTo(setup modelSetup, cfg config) error {
	old := m.cur.Load()
	base := old.base
	if setup.encoding != old.encoding {
		b, err := tokens.ForEncoding(setup.encoding, cfg.counterOpts...)
		if err != nil {
			return err
		}
		base = b
	}
	m.cur.Store(&modelCount{base: base, encoding: setup.encoding, factor: setup.factor, calibrating: setup.calibrating})
	return nil
}

// calibrate moves the factor toward what a provider reported for a request
// this counter counted as counted tokens.
func (m *modelCounter) calibrate(reported, counted int) {
	old := m.cur.Load()
	if !old.calibrating || reported <= 0 || counted <= 0 {
		return
	}
	f := old.factor * math.Sqrt(float64(reported)/float64(counted))
	f = min(max(f, minCalibration), maxCalibration)
	next := *old
	next.factor = f
	m.cur.CompareAndSwap(old, &next)
}

// modelNote says what Status should of the model in force.
func modelNote(model string, setup modelSetup) string {
	switch {
	case model == "":
		return ""
	case !setup.known:
		return fmt.Sprintf("model %q is not in the model table: default window unless set, counting with %s, calibrated from usage reports", model, setup.encoding)
	case setup.calibrating:
		return fmt.Sprintf("model %q: its tokenizer is not one we have; counting with o200k_base times a calibration factor tuned by usage reports", model)
	}
	return ""
}
