package compact

import (
	"fmt"

	"github.com/contextkit/compact/internal/trigger"
	"github.com/contextkit/compact/models"
	"github.com/contextkit/compact/tokens"
)

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
func newModelCounter(setup modelSetup, cfg config) (*trigger.Counter, error) {
	base, err := tokens.ForEncoding(setup.encoding, cfg.counterOpts...)
	if err != nil {
		return nil, err
	}
	return trigger.NewCounter(base, setup.encoding, setup.factor, setup.calibrating), nil
}

// switchCounter moves m to setup's encoding and factor. It keeps the
// exact counter (and its memo) when the encoding does not change.
func switchCounter(m *trigger.Counter, setup modelSetup, cfg config) error {
	base := m.Base()
	if setup.encoding != m.Encoding() {
		b, err := tokens.ForEncoding(setup.encoding, cfg.counterOpts...)
		if err != nil {
			return err
		}
		base = b
	}
	m.Switch(base, setup.encoding, setup.factor, setup.calibrating)
	return nil
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
