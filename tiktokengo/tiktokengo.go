// Package tiktokengo counts tokens with github.com/pkoukk/tiktoken-go, as a
// tokens.Counter a host may choose instead of the root package's own
// counter.
//
// Package tokens' Exact counter gives the same counts, much faster, and
// embeds only the two encodings it serves. This package is what it is
// checked against, and is for a host that wants counts from tiktoken-go
// itself. Importing it links tiktoken-go, its regular expression engine and
// the four encodings tiktoken-go-loader embeds (about 7 MB).
//
// The encodings are built from tiktoken-go-loader's embedded rank files:
// nothing is downloaded, and tiktoken-go's global loader is never used or
// changed.
package tiktokengo

import (
	"fmt"
	"sync"

	"github.com/contextkit/compact/tokens"
	tiktoken "github.com/pkoukk/tiktoken-go"
	loader "github.com/pkoukk/tiktoken-go-loader"
)

// The regular expressions that split text into pieces before byte-pair
// merging, as openai/tiktoken publishes them (tiktoken_ext/openai_public.py)
// and tiktoken-go v0.1.8 copies them (encoding.go).
const (
	// O200KBasePattern is o200k_base's split pattern: its seven
	// alternatives joined with "|".
	O200KBasePattern = `[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?` +
		`|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?` +
		`|\p{N}{1,3}` +
		`| ?[^\s\p{L}\p{N}]+[\r\n/]*` +
		`|\s*[\r\n]+` +
		`|\s+(?!\S)` +
		`|\s+`

	// CL100KBasePattern is cl100k_base's split pattern.
	CL100KBasePattern = `(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`
)

// The ids of the encodings' special tokens. Counting treats their text as
// text, but tiktoken-go's encoder needs them.
const (
	o200kEndOfText   = 199999
	o200kEndOfPrompt = 200018

	cl100kEndOfText   = 100257
	cl100kFIMPrefix   = 100258
	cl100kFIMMiddle   = 100259
	cl100kFIMSuffix   = 100260
	cl100kEndOfPrompt = 100276
)

// Each encoding is built at most once per process, on first use, and
// shared: building o200k_base decodes 200,000 ranks and compiles its
// pattern, a few hundred milliseconds. The result is immutable and safe for
// concurrent use.
var (
	o200k = sync.OnceValues(func() (*tiktoken.Tiktoken, error) {
		return build(tokens.EncodingO200KBase, O200KBasePattern, map[string]int{
			tiktoken.ENDOFTEXT:   o200kEndOfText,
			tiktoken.ENDOFPROMPT: o200kEndOfPrompt,
		})
	})
	cl100k = sync.OnceValues(func() (*tiktoken.Tiktoken, error) {
		return build(tokens.EncodingCL100KBase, CL100KBasePattern, map[string]int{
			tiktoken.ENDOFTEXT:   cl100kEndOfText,
			tiktoken.FIM_PREFIX:  cl100kFIMPrefix,
			tiktoken.FIM_MIDDLE:  cl100kFIMMiddle,
			tiktoken.FIM_SUFFIX:  cl100kFIMSuffix,
			tiktoken.ENDOFPROMPT: cl100kEndOfPrompt,
		})
	})
)

// build builds an encoding from the ranks embedded in tiktoken-go-loader,
// with NewCoreBPE: the offline loader reads the asset named by the file's
// base name, and tiktoken-go's global loader is left alone.
func build(name, pattern string, special map[string]int) (*tiktoken.Tiktoken, error) {
	ranks, err := loader.NewOfflineLoader().LoadTiktokenBpe(name + ".tiktoken")
	if err != nil {
		return nil, fmt.Errorf("tiktokengo: loading %s ranks: %w", name, err)
	}
	bpe, err := tiktoken.NewCoreBPE(ranks, special, pattern)
	if err != nil {
		return nil, fmt.Errorf("tiktokengo: building %s: %w", name, err)
	}
	specialSet := make(map[string]any, len(special))
	for k := range special {
		specialSet[k] = true
	}
	enc := &tiktoken.Encoding{
		Name:           name,
		PatStr:         pattern,
		MergeableRanks: ranks,
		SpecialTokens:  special,
	}
	return tiktoken.NewTiktoken(bpe, enc, specialSet), nil
}

// Counter is a tokens.Counter that counts with tiktoken-go. It is
// safe for concurrent use. Create one with New; the zero value is not
// usable.
//
// Its counts of text are tiktoken-go's EncodeOrdinary counts: text that
// spells a special token counts as text. Its counts of messages follow
// tokens.MessageTokens, with images at 765 tokens, the root package's
// default. It remembers nothing between calls.
//
// tiktoken-go's byte-pair merge takes time quadratic in the length of a
// piece of text without boundaries: 100 KB of one letter, or of base64,
// takes it seconds. Prefer the root package's counter for untrusted text.
type Counter struct {
	enc      *tiktoken.Tiktoken
	encoding string
}

var _ tokens.Counter = (*Counter)(nil)

// New returns a counter that uses the named encoding,
// tokens.EncodingO200KBase or tokens.EncodingCL100KBase. Any other name is
// an error that wraps tokens.ErrUnknownEncoding. The encoding is built on
// first use and shared by every counter in the process.
func New(encoding string) (*Counter, error) {
	var build func() (*tiktoken.Tiktoken, error)
	switch encoding {
	case tokens.EncodingO200KBase:
		build = o200k
	case tokens.EncodingCL100KBase:
		build = cl100k
	default:
		return nil, fmt.Errorf("%w: %q (tiktokengo serves %s, %s)",
			tokens.ErrUnknownEncoding, encoding, tokens.EncodingO200KBase, tokens.EncodingCL100KBase)
	}
	enc, err := build()
	if err != nil {
		return nil, err
	}
	return &Counter{enc: enc, encoding: encoding}, nil
}

// Encoding returns the name of the encoding c counts with.
func (c *Counter) Encoding() string { return c.encoding }

// CountText returns the number of tokens in s as plain text.
func (c *Counter) CountText(s string) int {
	if s == "" {
		return 0
	}
	return len(c.enc.EncodeOrdinary(s))
}

// imageTokens is what an image of detail "high" or "auto" costs, the same
// figure the root package's counters use by default.
const imageTokens = 765

// CountMessage returns the number of tokens m adds to a chat request.
func (c *Counter) CountMessage(m tokens.Message) int {
	return tokens.MessageTokens(m, c.CountText, imageTokens)
}

// Encode returns the ids of the tokens of s as plain text, as tiktoken-go's
// EncodeOrdinary returns them.
func (c *Counter) Encode(s string) []int {
	return c.enc.EncodeOrdinary(s)
}
