package redact

import (
	"testing"

	"github.com/contextkit/compact/internal/sharedtest"
)

// TestMain runs the tests, then prints one line for each reason some were
// skipped (see sharedtest.Main).
func TestMain(m *testing.M) { sharedtest.Main(m) }
