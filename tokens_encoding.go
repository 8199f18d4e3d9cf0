package compact

import (
	"fmt"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	tiktoken "github.com/pkoukk/tiktoken-go"
	tiktoken_loader "github.com/pkoukk/tiktoken-go-loader"
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
// The table is the package's own, so that a model tiktoken-go has not heard
// of still gets the encoding its family uses.
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

// The regular expressions that split text into pieces before byte-pair
// merging, and the ids of the special tokens. They are public facts of the
// encodings, as published in openai/tiktoken (tiktoken_ext/openai_public.py)
// and copied by tiktoken-go v0.1.8 (encoding.go).
const (
	// o200kPattern is o200k_base's split pattern: its seven alternatives
	// joined with "|".
	o200kPattern = `[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?` +
		`|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?` +
		`|\p{N}{1,3}` +
		`| ?[^\s\p{L}\p{N}]+[\r\n/]*` +
		`|\s*[\r\n]+` +
		`|\s+(?!\S)` +
		`|\s+`

	// cl100kPattern is cl100k_base's split pattern.
	cl100kPattern = `(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`

	// o200kEndOfText and o200kEndOfPrompt are o200k_base's special tokens.
	o200kEndOfText   = 199999
	o200kEndOfPrompt = 200018

	// cl100kEndOfText through cl100kEndOfPrompt are cl100k_base's special
	// tokens.
	cl100kEndOfText   = 100257
	cl100kFIMPrefix   = 100258
	cl100kFIMMiddle   = 100259
	cl100kFIMSuffix   = 100260
	cl100kEndOfPrompt = 100276
)

// Each encoding is built at most once per process, on first use, and shared
// by every counter: building o200k_base decodes 200,000 ranks and takes a
// few hundred milliseconds, and the result is immutable and safe for
// concurrent use. Lazily built immutable data like this is the only
// package-level state the package keeps.
var (
	o200kEncoding = sync.OnceValues(func() (*tiktoken.Tiktoken, error) {
		return buildEncoding(EncodingO200KBase, o200kPattern, map[string]int{
			tiktoken.ENDOFTEXT:   o200kEndOfText,
			tiktoken.ENDOFPROMPT: o200kEndOfPrompt,
		})
	})
	cl100kEncoding = sync.OnceValues(func() (*tiktoken.Tiktoken, error) {
		return buildEncoding(EncodingCL100KBase, cl100kPattern, map[string]int{
			tiktoken.ENDOFTEXT:   cl100kEndOfText,
			tiktoken.FIM_PREFIX:  cl100kFIMPrefix,
			tiktoken.FIM_MIDDLE:  cl100kFIMMiddle,
			tiktoken.FIM_SUFFIX:  cl100kFIMSuffix,
			tiktoken.ENDOFPROMPT: cl100kEndOfPrompt,
		})
	})
)

// loadEncoding returns the shared encoding called name.
func loadEncoding(name string) (*tiktoken.Tiktoken, error) {
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

// buildEncoding builds an encoding from the ranks embedded in
// tiktoken-go-loader. It never touches the network and never changes
// tiktoken-go's global loader: the offline loader reads the asset named by
// the file's base name.
func buildEncoding(name, pattern string, special map[string]int) (*tiktoken.Tiktoken, error) {
	ranks, err := tiktoken_loader.NewOfflineLoader().LoadTiktokenBpe(name + ".tiktoken")
	if err != nil {
		return nil, fmt.Errorf("compact: loading %s ranks: %w", name, err)
	}
	bpe, err := tiktoken.NewCoreBPE(ranks, special, pattern)
	if err != nil {
		return nil, fmt.Errorf("compact: building %s: %w", name, err)
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

// maxRunBytes is the longest run of one character class (letters and
// marks, whitespace, or other symbols) that reaches the encoder in one
// piece. tiktoken-go's byte-pair merge is quadratic in the length of a
// piece: a 100 KB run of letters takes it seconds, and base64 or minified
// data make such runs. A longer run is cut at a rune boundary and its parts
// are encoded separately, which over-counts by about one token per cut.
// 256 bytes is twice the longest token of either encoding (128 bytes), so a
// run that is one token is never cut, and no ordinary prose, code or JSON
// has a run that long: their counts stay exact.
const maxRunBytes = 256

// Character classes for maxRunBytes. They use the Unicode categories the
// split patterns use (\p{L}, \p{M}, \p{N}, and \s as unicode.IsSpace), so a
// piece never spans more than two runs plus one character.
const (
	classLetter = iota
	classNumber
	classSpace
	classOther
)

func runeClass(r rune) int {
	if r < utf8.RuneSelf {
		switch {
		case 'a' <= r && r <= 'z', 'A' <= r && r <= 'Z':
			return classLetter
		case '0' <= r && r <= '9':
			return classNumber
		case r == ' ', '\t' <= r && r <= '\r':
			return classSpace
		default:
			return classOther
		}
	}
	switch {
	case unicode.IsLetter(r) || unicode.IsMark(r):
		return classLetter
	case unicode.IsNumber(r):
		return classNumber
	case unicode.IsSpace(r):
		return classSpace
	default:
		return classOther
	}
}

// nextCut returns the length of the longest prefix of s that has no run
// longer than maxRunBytes: len(s) when s has none, otherwise the start of
// the rune that would make a run too long. Numbers are never cut: the split
// patterns take digits at most three at a time.
func nextCut(s string) int {
	start, class := 0, -1
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		c := runeClass(r)
		if c != class {
			start, class = i, c
		} else if c != classNumber && i+size-start > maxRunBytes {
			return i
		}
		i += size
	}
	return len(s)
}

// countOrdinary returns the number of tokens enc encodes s into, as
// ordinary text: a special token's text, such as "<|endoftext|>", counts as
// the text it is. Runs longer than maxRunBytes are encoded in parts.
func countOrdinary(enc *tiktoken.Tiktoken, s string) int {
	n := 0
	for s != "" {
		cut := nextCut(s)
		n += len(enc.EncodeOrdinary(s[:cut]))
		s = s[cut:]
	}
	return n
}
