package compact

import (
	"fmt"
	"strings"
	"sync"
)

// Token encodings the package embeds. They are the names tiktoken gives
// them, and the names NewEncodingCounter accepts.
const (
	// EncodingO200KBase is the encoding of gpt-4o, gpt-4.1, gpt-4.5, gpt-5
	// and the o-series reasoning models.
	EncodingO200KBase = "o200k_base"

	// EncodingCL100KBase is the encoding of gpt-4 (before gpt-4o) and
	// gpt-3.5-turbo.
	EncodingCL100KBase = "cl100k_base"
)

// EncodingForModel returns the name of the token encoding model uses.
//
// A provider prefix ("openai/", "azure/", "openrouter/openai/") and a
// fine-tune prefix ("ft:") are dropped, and case is ignored. gpt-4 and its
// dated and sized variants (gpt-4-0613, gpt-4-turbo, gpt-4-32k), gpt-3.5
// (including Azure's spelling gpt-35-turbo) and the text-embedding models
// use cl100k_base. Everything else uses o200k_base: gpt-4o, gpt-4.1,
// gpt-4.5, gpt-5, the o-series, and any name this table does not know,
// including the empty name, because every current OpenAI chat model uses it.
//
// The table is the package's own, so that a model tiktoken has not heard of
// still gets the encoding its family uses.
func EncodingForModel(model string) string {
	name := strings.ToLower(strings.TrimSpace(model))
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		name = name[i+1:]
	}
	name = strings.TrimPrefix(name, "ft:")
	switch {
	case hasAnyPrefix(name, "gpt-4o", "gpt-4.1", "gpt-4.5"):
		return EncodingO200KBase
	case name == "gpt-4" || strings.HasPrefix(name, "gpt-4-"):
		return EncodingCL100KBase
	case hasAnyPrefix(name, "gpt-3.5", "gpt-35", "text-embedding-ada-002", "text-embedding-3-"):
		return EncodingCL100KBase
	default:
		return EncodingO200KBase
	}
}

func hasAnyPrefix(s string, prefixes ...string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// Each encoding is built at most once per process, on first use, and shared
// by every counter: building o200k_base indexes its 200,000 embedded ranks
// (a few milliseconds), and the result is immutable and safe for concurrent
// use. Lazily built immutable data like this is the only package-level
// state the package keeps.
var (
	o200kEncoding = sync.OnceValues(func() (*bpeEncoding, error) {
		return buildEncoding(EncodingO200KBase, o200kRanks, nextO200k)
	})
	cl100kEncoding = sync.OnceValues(func() (*bpeEncoding, error) {
		return buildEncoding(EncodingCL100KBase, cl100kRanks, nextCL100k)
	})
)

// loadEncoding returns the shared encoding called name.
func loadEncoding(name string) (*bpeEncoding, error) {
	switch name {
	case EncodingO200KBase:
		return o200kEncoding()
	case EncodingCL100KBase:
		return cl100kEncoding()
	default:
		return nil, fmt.Errorf("%w: %q (embedded: %s, %s)",
			ErrUnknownEncoding, name, EncodingO200KBase, EncodingCL100KBase)
	}
}

// buildEncoding builds an encoding from its embedded rank table and the
// scanner that splits text as its pattern does.
func buildEncoding(name, table string, next func(string, int) int) (*bpeEncoding, error) {
	ranks, err := newRankTable(table)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return &bpeEncoding{name: name, next: next, ranks: ranks}, nil
}
