package pgstore_test

import (
	"fmt"
	"testing"

	"github.com/contextkit/compact/session/internal/storebench"
)

// COMPACT_PG_DSN=... go test -run '^$' -bench . -benchmem ./session/pgstore
func BenchmarkTurn(b *testing.B) {
	st := open(b)
	for _, n := range []int{1_000, 10_000} {
		b.Run(fmt.Sprintf("messages=%d", n), func(b *testing.B) { storebench.Turn(b, st, n) })
	}
}

func BenchmarkCompaction(b *testing.B) {
	st := open(b)
	b.Run("tokens=200k", func(b *testing.B) { storebench.Compaction(b, st, 200_000) })
}

func BenchmarkSearch(b *testing.B) {
	st := open(b)
	b.Run("tokens=1M", func(b *testing.B) { storebench.Search(b, st, 1_000_000) })
}
