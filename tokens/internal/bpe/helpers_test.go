package bpe

import (
	"fmt"
	"sort"
	"testing"

	"github.com/stretchr/testify/require"
)

// loadEncoding returns an embedded encoding, or an error for any other
// name.
func loadEncoding(name string) (*Encoding, error) {
	enc, ok, err := Load(name)
	if !ok {
		return nil, fmt.Errorf("no encoding %q", name)
	}
	return enc, err
}

// counter counts with an encoding and a piece cache, as package tokens
// does.
type counter struct {
	enc   *Encoding
	cache *Cache
}

func (c counter) CountText(s string) int { return c.enc.Count(s, c.cache) }

// newCounter returns a counter for the named encoding.
func newCounter(tb testing.TB, name string) counter {
	tb.Helper()
	enc, err := loadEncoding(name)
	require.NoError(tb, err)
	return counter{enc: enc, cache: new(Cache)}
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
