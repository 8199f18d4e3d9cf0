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
// text that are not one token (identifiers, paths), by their bytes, and,
// in a memo of the same bound, the counts of the chunks of every text of
// 256 bytes or more (a few lines each, cut where the encoding never puts
// a piece across the cut), by a hash of their bytes: a text assembled from
// parts counted before, such as a summary that carries earlier user
// messages, costs their hashes and the lines around the joins.
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

	// The counts of the chunks of long texts (see CountText), keyed by a
	// hash of their bytes, in two generations as the messages' are.
	chunkMu            sync.Mutex
	chunkCur, chunkOld map[uint64]int
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

// CountText returns the number of tokens in s as plain text. A text of
// chunkedText bytes or more is counted in chunks cut where the encoding's
// pieces never straddle the cut (see bpe.Seam), each chunk's count
// remembered by a hash of its bytes: the same count as the whole's, and a
// text made of parts counted before (a summary carrying user messages, a
// history rendered again) costs their hashes.
func (c *Exact) CountText(s string) int {
	if s == "" {
		return 0
	}
	if c.genSize == 0 || len(s) < chunkedText {
		return c.enc.Count(s, c.pieces)
	}
	n := 0
	for len(s) > 0 {
		end := chunkEnd(s)
		n += c.countChunk(s[:end])
		s = s[end:]
	}
	return n
}

// chunkedText is the shortest text CountText counts in remembered chunks;
// a chunk ends at the first seam whose eight bytes before it hash to 0
// modulo chunkSpread, so chunks run a few lines, and a part of a text cuts
// where it cut alone from its first such seam on.
const (
	chunkedText = 256
	chunkSpread = 8
)

// chunkEnd returns the end of the first chunk of s.
func chunkEnd(s string) int {
	for i := 0; i < len(s); {
		p := i + bpe.Seam(s[i:])
		if p >= len(s) || p >= 8 && mix8(s[p-8:p])%chunkSpread == 0 {
			return p
		}
		i = p
	}
	return len(s)
}

// mix8 hashes eight bytes.
func mix8(b string) uint64 {
	k := uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
		uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
	k *= 0x9e3779b97f4a7c15
	return k >> 40
}

// countChunk counts one chunk, remembered by its hash.
func (c *Exact) countChunk(s string) int {
	key := maphash.String(c.seed, s)
	c.chunkMu.Lock()
	n, ok := c.chunkCur[key]
	if !ok {
		if n, ok = c.chunkOld[key]; ok {
			c.putChunkLocked(key, n)
		}
	}
	c.chunkMu.Unlock()
	if ok {
		return n
	}
	n = c.enc.Count(s, c.pieces)
	c.chunkMu.Lock()
	c.putChunkLocked(key, n)
	c.chunkMu.Unlock()
	return n
}

func (c *Exact) putChunkLocked(key uint64, n int) {
	if len(c.chunkCur) >= c.genSize {
		c.chunkOld, c.chunkCur = c.chunkCur, nil
	}
	if c.chunkCur == nil {
		c.chunkCur = make(map[uint64]int)
	}
	c.chunkCur[key] = n
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
