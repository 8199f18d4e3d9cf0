package tokens

import (
	"hash/maphash"
	"sync"

	"github.com/contextkit/compact/internal/memo"
	"github.com/contextkit/compact/tokens/internal/bpe"
)

// Exact is the exact [Counter]: it counts with one of OpenAI's tiktoken
// encodings (o200k_base or cl100k_base), whose ranks are embedded in the
// binary, so it never needs the network. It is safe for concurrent use.
// Create one with [ForModel] or [ForEncoding]; the zero value is not
// usable.
//
// Its counts of text are tiktoken's encode_ordinary counts, exactly: the
// package's own encoder splits text as each encoding's pattern does and
// byte-pair merges over its ranks as tiktoken does, in time that grows as
// n log n with the longest unbroken run (such as base64 or minified data),
// so no text makes it slow. Its counts of messages add the overhead OpenAI
// documents, which is exact for text messages and an estimate for tool
// calls and images (see [MessageTokens]).
//
// CountMessage remembers the count of each message it has seen, keyed by a
// hash of every field of the message, so recounting a history that grew by
// one message tokenises only the new message. The memo is bounded (see
// [WithCacheSize]). The hash is 64 bits with a per-counter random seed; two
// different messages share a count only by a collision of that hash. Each
// counter also remembers the counts of about a thousand short pieces of
// text that are not one token (identifiers, paths), by their bytes.
type Exact struct {
	enc         *bpe.Encoding
	pieces      *bpe.Cache
	encoding    string
	imageTokens int
	seed        maphash.Seed
	genSize     int // entries per memo generation; 0 disables the memo
	adjusted    []string

	mu  sync.Mutex
	cur map[uint64]int // the generation being filled
	old map[uint64]int // the previous generation, read and promoted from
}

// ForModel returns an exact counter for model, using the encoding
// [EncodingForModel] names. Any model name works: an unknown one gets
// o200k_base, the encoding of every current OpenAI chat model.
func ForModel(model string, opts ...Option) (*Exact, error) {
	return ForEncoding(EncodingForModel(model), opts...)
}

// ForEncoding returns an exact counter that uses the named encoding,
// [EncodingO200KBase] or [EncodingCL100KBase]. Any other name is an error
// that wraps [ErrUnknownEncoding]. The encoding is built from its embedded
// ranks on first use and shared by every counter in the process; building
// it takes a few milliseconds, once.
func ForEncoding(encoding string, opts ...Option) (*Exact, error) {
	enc, err := loadEncoding(encoding)
	if err != nil {
		return nil, err
	}
	cfg := newConfig(opts)
	genSize := 0
	if cfg.cacheSize > 0 {
		genSize = max(cfg.cacheSize/2, 1)
	}
	return &Exact{
		enc:         enc,
		pieces:      new(bpe.Cache),
		encoding:    encoding,
		imageTokens: cfg.imageTokens,
		seed:        maphash.MakeSeed(),
		genSize:     genSize,
		adjusted:    cfg.adjusted,
	}, nil
}

// Adjusted names each option the counter was given an invalid value, and
// the value kept in force instead ("WithImageTokens(-1): invalid, 765
// kept"). It is nil when every value was taken.
func (c *Exact) Adjusted() []string { return append([]string(nil), c.adjusted...) }

// Encoding returns the name of the encoding c counts with.
func (c *Exact) Encoding() string { return c.encoding }

// CountText returns the number of tokens in s as plain text.
func (c *Exact) CountText(s string) int {
	if s == "" {
		return 0
	}
	return c.enc.Count(s, c.pieces)
}

// CountMessage returns the number of tokens m adds to a chat request,
// remembering it for the next time c sees the same message.
func (c *Exact) CountMessage(m Message) int {
	if c.genSize == 0 {
		return messageTokens(c, m, c.imageTokens)
	}
	key := c.hash(m)
	if n, ok := c.lookup(key); ok {
		return n
	}
	n := messageTokens(c, m, c.imageTokens)
	c.mu.Lock()
	c.putLocked(key, n)
	c.mu.Unlock()
	return n
}

func (c *Exact) lookup(key uint64) (int, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if n, ok := c.cur[key]; ok {
		return n, true
	}
	if n, ok := c.old[key]; ok {
		c.putLocked(key, n)
		return n, true
	}
	return 0, false
}

func (c *Exact) putLocked(key uint64, n int) {
	if len(c.cur) >= c.genSize {
		c.old, c.cur = c.cur, nil
	}
	if c.cur == nil {
		c.cur = make(map[uint64]int)
	}
	c.cur[key] = n
}

// hash returns the memo key of m: memo.Hash of every field, under the
// counter's seed.
func (c *Exact) hash(m Message) uint64 { return memo.Hash(c.seed, m) }
