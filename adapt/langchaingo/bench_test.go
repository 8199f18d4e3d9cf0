package langchaingo

import (
	"testing"
)

// BenchmarkRoundTrip converts a 1,011-message history (200 rounds of
// parallel tool calls after every part type) and restores the engine's
// unchanged output: the cost Compress adds around an engine on every call
// that compacts.
func BenchmarkRoundTrip(b *testing.B) {
	msgs := longHistory(b, 200)
	b.ReportAllocs()
	for b.Loop() {
		conv, err := Convert(msgs)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := conv.Restore(conv.Messages); err != nil {
			b.Fatal(err)
		}
	}
}
