package session_test

import (
	"fmt"
	"testing"

	"github.com/contextkit/compact/session/internal/storebench"
	"github.com/contextkit/compact/session/store"
)

// The store.Memory's figures, beside which the durable stores' compare.
func BenchmarkMemoryStoreTurn(b *testing.B) {
	st := store.NewMemory()
	for _, n := range []int{1_000, 10_000} {
		b.Run(fmt.Sprintf("messages=%d", n), func(b *testing.B) { storebench.Turn(b, st, n) })
	}
}

func BenchmarkMemoryStoreCompaction(b *testing.B) {
	b.Run("tokens=200k", func(b *testing.B) { storebench.Compaction(b, store.NewMemory(), 200_000) })
}

func BenchmarkMemoryStoreSearch(b *testing.B) {
	b.Run("tokens=1M", func(b *testing.B) { storebench.Search(b, store.NewMemory(), 1_000_000) })
}
