package bpe

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/contextkit/compact/internal/racetest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPieceCacheRemembersByBytes(t *testing.T) {
	var c Cache
	_, ok := c.get("ShouldCompress", 42)
	assert.False(t, ok, "an empty cache holds nothing")

	c.put("ShouldCompress", 42, 3)
	n, ok := c.get("ShouldCompress", 42)
	assert.True(t, ok)
	assert.Equal(t, 3, n)

	// Pieces that share a slot, or even a whole hash, are told apart by
	// their bytes and length.
	for _, other := range []string{"ShouldCompresz", "ShouldCompres", "ShouldCompress\x00", "shouldCompress"} {
		_, ok := c.get(other, 42)
		assert.False(t, ok, "%q is not %q", other, "ShouldCompress")
	}
	c.put("AnotherPieceInTheSameSlot", 42, 5)
	_, ok = c.get("ShouldCompress", 42)
	assert.False(t, ok, "a newer piece replaces an older one in its slot")
	n, _ = c.get("AnotherPieceInTheSameSlot", 42)
	assert.Equal(t, 5, n)

	long := strings.Repeat("x", cacheKeyBytes)
	c.put(long, 7, 9)
	n, ok = c.get(long, 7)
	assert.True(t, ok && n == 9, "a piece of cacheKeyBytes fits")
}

// TestPieceCacheIsSafeForConcurrentUse has goroutines write and read
// pieces that fight for few slots: a read returns a piece's own count or
// nothing, never another's. Run it with the race detector.
func TestPieceCacheIsSafeForConcurrentUse(t *testing.T) {
	var c Cache
	pieces := make([]string, 64)
	for i := range pieces {
		pieces[i] = fmt.Sprintf("piece-%02d-%s", i, strings.Repeat("z", i%20))
	}
	countOf := func(i int) int { return 1 + i%30 }
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for k := 0; k < 2000; k++ {
				i := (k*7 + g) % len(pieces)
				h := uint64(i%4) << 16 // four slots for 64 pieces
				if k%3 == 0 {
					c.put(pieces[i], h, countOf(i))
					continue
				}
				if n, ok := c.get(pieces[i], h); ok && !assert.Equal(t, countOf(i), n, "%q: cached", pieces[i]) {
					return
				}
			}
		}(g)
	}
	wg.Wait()
}

func TestCountingAllocatesNothingInSteadyState(t *testing.T) {
	text := strings.Repeat("func (c *TiktokenCounter) CountText(s string) int { return c.enc.count(s, c.pieces) } // ShouldCompressMessages, é, 你好\n", 20)
	long := strings.Repeat("QUFBQUFB", 1000) // one 8 KB piece: the long merge
	for _, enc := range []string{O200KBase, CL100KBase} {
		c := newCounter(t, enc)
		c.CountText(text)
		c.CountText(long)
		allocs := testing.AllocsPerRun(20, func() { c.CountText(text) })
		assert.Zero(t, allocs, "%s: ordinary text", enc)
		if !racetest.Enabled {
			allocs = testing.AllocsPerRun(20, func() { c.CountText(long) })
			assert.Less(t, allocs, 1.0, "%s: a long piece reuses its buffers", enc)
		}
		require.Positive(t, c.CountText(text))
	}
}
