package genai

import (
	"testing"
)

// BenchmarkRoundTrip converts an 809-content history (200 rounds of
// parallel function calls after every part type) and restores the
// engine's unchanged output: the cost Compress adds around an engine on
// every call that compacts.
func BenchmarkRoundTrip(b *testing.B) {
	h := longHistory(b, 200)
	b.ReportAllocs()
	for b.Loop() {
		conv, err := Convert(h)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := conv.Restore(conv.Messages); err != nil {
			b.Fatal(err)
		}
	}
}
