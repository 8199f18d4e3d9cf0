package prune

import (
	"testing"

	"github.com/contextkit/compact/internal/msg"
	"github.com/contextkit/compact/internal/msgtest"
	"github.com/contextkit/compact/tokens"
)

// pruneBenchHistory is a history of about size tokens by tc: the chained
// transcripts (repeated if needed, or agent runs when they are absent),
// cut at a message boundary and repaired.
func pruneBenchHistory(b *testing.B, size int, tc tokens.Counter) []Message {
	src := msgtest.SharedChain(b, true)
	if src == nil {
		src = agentRun(200)
	}
	var out []Message
	total := 0
	for total < size {
		for _, m := range src {
			if total >= size {
				break
			}
			out = append(out, m)
			total += tc.CountMessage(m)
		}
	}
	out, _ = msg.RepairToolPairs(out)
	return out
}

// BenchmarkPrune prunes a history of about 200k tokens with the default
// options: with the estimating counter (Prune's default), and with the
// exact counter a Compressor would pass, warm as it is on a history it has
// counted before.
func BenchmarkPrune(b *testing.B) {
	exact, err := tokens.ForModel("gpt-4o")
	if err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct {
		name string
		tc   tokens.Counter
	}{{"estimate", tokens.Estimator{}}, {"exact", exact}} {
		b.Run(bc.name, func(b *testing.B) {
			msgs := pruneBenchHistory(b, 200_000, bc.tc)
			res := Apply(msgs, WithTokenCounter(bc.tc)) // warms the exact counter's memo
			b.ResetTimer()
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				Apply(msgs, WithTokenCounter(bc.tc))
			}
			b.ReportMetric(float64(res.TokensBefore), "tokens-before")
			b.ReportMetric(float64(res.TokensAfter), "tokens-after")
			b.ReportMetric(float64(len(msgs)), "messages")
		})
	}
}
