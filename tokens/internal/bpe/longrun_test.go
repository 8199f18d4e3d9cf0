package bpe

import (
	"encoding/base64"
	"math/rand"
	"strings"
	"testing"
	"time"

	"github.com/contextkit/compact/internal/racetest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// longRuns are texts of size bytes without boundaries, as tool output
// carries them (base64, minified data, separators, padding), where a
// byte-pair merge that scans for each merge, as tiktoken's does, takes
// seconds at 100 KB.
func longRuns(size int) map[string]string {
	rng := rand.New(rand.NewSource(1))
	blob := make([]byte, size/4*3)
	rng.Read(blob)
	return map[string]string{
		"letters":    strings.Repeat("a", size),
		"mixed-case": strings.Repeat("AbCdEfGhIj", size/10),
		"base64":     base64.StdEncoding.EncodeToString(blob),
		"cjk":        strings.Repeat("你", size/3),
		"spaces":     strings.Repeat(" ", size),
		"newlines":   strings.Repeat("\n", size),
		"symbols":    strings.Repeat("=", size),
		"pairs":      strings.Repeat("ab", size/2),
	}
}

// TestLongRunsAreCountedExactly counts each 100 KB run (20 KB under the
// race detector) whole, with no cut:
// the count is the sum over the scanner's pieces of the heap merge, an
// independent n log n merge (TestMergesAgreeWithTheReference checks both
// merges against the reference on shorter runs, and the external tests
// check counts against tiktoken-go). The time is logged, not asserted:
// BenchmarkCountTextLongRun measures it.
func TestLongRunsAreCountedExactly(t *testing.T) {
	for _, encName := range []string{O200KBase, CL100KBase} {
		enc, err := loadEncoding(encName)
		require.NoError(t, err)
		c := newCounter(t, encName)
		sc := new(mergeScratch)
		size := 100 << 10
		if racetest.Enabled {
			size = 20 << 10
		}
		inputs := longRuns(size)
		for _, name := range sortedKeys(inputs) {
			s := inputs[name]
			want, longest := 0, 0
			for i := 0; i < len(s); {
				j := enc.next(s, i)
				longest = max(longest, j-i)
				if j-i == 1 {
					want++
				} else {
					want += enc.ranks.mergeByHeap(s[i:j], sc)
				}
				i = j
			}
			start := time.Now()
			got := c.CountText(s)
			t.Logf("%s %-10s %6d bytes, longest piece %6d: %5d tokens in %v", encName, name, len(s), longest, got, time.Since(start))
			assert.Equal(t, want, got, "%s %s", encName, name)
		}
	}
}
