package tokens

import (
	"errors"
	"fmt"
	"strings"

	"github.com/contextkit/compact/tokens/internal/bpe"
)

// Token encodings the package embeds. They are the names tiktoken gives
// them, and the names [ForEncoding] accepts.
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

// ErrUnknownEncoding reports a token encoding name that is not embedded.
var ErrUnknownEncoding = errors.New("tokens: unknown encoding")

// loadEncoding returns the shared encoding called name. Each encoding is
// built at most once per process, on first use, and shared by every
// counter: building o200k_base indexes its 200,000 embedded ranks (a few
// milliseconds), and the result is immutable and safe for concurrent use.
func loadEncoding(name string) (*bpe.Encoding, error) {
	enc, ok, err := bpe.Load(name)
	if !ok {
		return nil, fmt.Errorf("%w: %q (embedded: %s, %s)",
			ErrUnknownEncoding, name, EncodingO200KBase, EncodingCL100KBase)
	}
	return enc, err
}
