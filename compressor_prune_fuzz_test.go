package compact

import (
	"testing"

	"github.com/contextkit/compact/internal/msgtest"
	"github.com/contextkit/compact/prune"
	"github.com/contextkit/compact/tokens"
)

// FuzzCompressPruned: a Compressor that prunes keeps every contract, on
// histories worth pruning, forced or not.
func FuzzCompressPruned(f *testing.F) {
	msgtest.Seeds(f)
	f.Add([]byte{16, 2, 1, 1, 0, 0, 0, 4, 5, 4, 5, 4, 6, 4, 5, 7, 4, 5, 4, 5, 3, 1, 7, 3, 1})
	f.Fuzz(func(t *testing.T, data []byte) {
		data = knownRoles(data[:min(len(data), maxFuzzMessages)])
		in, _ := RepairToolPairs(withSummary(data, randomHistory(data)))
		in = msgtest.Inflate(in, data)
		if Validate(in) != nil || len(in) == 0 {
			return
		}
		c := New(WithContextWindow(2000+int(data[0])*40), WithTokenCounter(tokens.Estimator{}),
			WithPruning(true), WithPruneOptions(prune.WithClearAtLeast(int(data[0]%2)*200)), WithHeadMessages(int(data[0]%4)))
		var opts []CompressOption
		if data[0]&8 != 0 {
			opts = append(opts, Force())
		}
		compressAndCheck(t, c, in, opts...)
	})
}
