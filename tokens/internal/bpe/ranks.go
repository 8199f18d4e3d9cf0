package bpe

import (
	_ "embed" // the rank tables
	"errors"
	"fmt"
	"hash/maphash"
	"math/bits"
)

//go:generate go run ../rankgen -out ranks

// The tokens of o200k_base and cl100k_base in rank order, as
// tokens/internal/rankgen writes them from tiktoken's published rank files after
// checking their SHA-256. The package reads them in place: they are never
// copied and never written.
var (
	//go:embed ranks/o200k_base.bin
	o200kRanks string

	//go:embed ranks/cl100k_base.bin
	cl100kRanks string
)

// rankMagic opens every table tokens/internal/rankgen writes.
const rankMagic = "ckranks1"

// noRank is the rank of a byte string that is no token.
const noRank = ^uint32(0)

// errBadTable reports an embedded table that tokens/internal/rankgen did not
// write: a build from a corrupt checkout.
var errBadTable = errors.New("bpe: corrupt embedded rank table")

// rankTable maps each token of an encoding (a byte string) to its rank, the
// order in which byte-pair merging made it. It is built once per process
// and encoding, and is immutable and safe for concurrent use afterwards.
//
// Every single byte is a token. Tokens of two bytes are found in a direct
// table, since byte-pair merging starts by ranking every pair of adjacent
// bytes. Tokens of three to seven bytes, most of the rest, are found by
// open addressing on their bytes packed into one word, so that a probe
// compares words and reads one cache line. Longer tokens are found by open
// addressing on a hash of their bytes, each slot holding a token's rank and
// some bits of its hash, so that most probes of a string that is no token
// end without comparing bytes.
type rankTable struct {
	tokens  string   // every token's bytes, in rank order
	offsets []uint32 // token r is tokens[offsets[r]:offsets[r+1]]
	maxLen  int      // the longest token, in bytes

	pairs []uint32 // rank+1 of the two-byte token a<<8|b, or 0

	short      []shortSlot // tokens of 3 to maxShort bytes
	shortShift uint        // a packed key's slot is the top bits of its hash

	seed     maphash.Seed
	slots    []uint32 // longer tokens: tag<<rankBits | rank+1, or 0 when empty
	mask     uint64   // len(slots)-1
	rankBits uint     // bits a rank+1 takes in a slot
	tagShift uint     // a hash's tag is its top 32-rankBits bits
}

// maxShort is the longest token found by its packed bytes: seven bytes and
// the length fill a word.
const maxShort = 7

// shortSlot holds a token of 3 to maxShort bytes, or nothing when key is 0.
type shortSlot struct {
	key  uint64 // packShort of the token
	rank uint32
}

// packShort packs s, of 3 to maxShort bytes, into a word: its bytes
// little-endian, its length in the top byte. Distinct strings pack apart,
// and none packs to 0.
func packShort(s string) uint64 {
	k := uint64(len(s)) << 56
	for i := len(s) - 1; i >= 0; i-- {
		k |= uint64(s[i]) << (8 * i)
	}
	return k
}

// mixShort hashes a packed key; its top bits pick the key's slot.
func mixShort(k uint64) uint64 {
	h := k * 0x9e3779b97f4a7c15 // 2^64 divided by the golden ratio
	return h ^ h>>29
}

// newRankTable decodes a table written by internal/rankgen.
func newRankTable(data string) (*rankTable, error) {
	const header = len(rankMagic) + 4
	if len(data) < header || data[:len(rankMagic)] != rankMagic {
		return nil, errBadTable
	}
	n := int(uint32(data[8]) | uint32(data[9])<<8 | uint32(data[10])<<16 | uint32(data[11])<<24)
	if n < 256 || len(data) < header+n {
		return nil, errBadTable
	}
	lengths, tokens := data[header:header+n], data[header+n:]
	t := &rankTable{
		tokens:  tokens,
		offsets: make([]uint32, n+1),
		seed:    maphash.MakeSeed(),
		pairs:   make([]uint32, 1<<16),
	}
	off, short, long := 0, 0, 0
	for r := 0; r < n; r++ {
		t.offsets[r] = uint32(off)
		size := int(lengths[r])
		off += size
		t.maxLen = max(t.maxLen, size)
		switch {
		case size > maxShort:
			long++
		case size > 2:
			short++
		}
	}
	t.offsets[n] = uint32(off)
	if off != len(tokens) {
		return nil, errBadTable
	}

	// The tables at most about half full, and never full: a probe for a
	// string that is no token stops at an empty slot.
	shortBits := bits.Len(uint(short * 9 / 5))
	t.short = make([]shortSlot, 1<<shortBits)
	t.shortShift = uint(64 - shortBits)
	t.rankBits = uint(bits.Len(uint(n)))
	t.tagShift = 64 - (32 - t.rankBits)
	t.slots = make([]uint32, 1<<bits.Len(uint(2*long)))
	t.mask = uint64(len(t.slots) - 1)

	singles := 0
	for r := 0; r < n; r++ {
		tok := t.token(uint32(r))
		switch {
		case len(tok) == 0:
			return nil, errBadTable
		case len(tok) == 1:
			singles++
		case len(tok) == 2:
			t.pairs[int(tok[0])<<8|int(tok[1])] = uint32(r) + 1
		case len(tok) <= maxShort:
			k := packShort(tok)
			mask := uint64(len(t.short) - 1)
			i := mixShort(k) >> t.shortShift
			for t.short[i].key != 0 {
				i = (i + 1) & mask
			}
			t.short[i] = shortSlot{key: k, rank: uint32(r)}
		default:
			h := maphash.String(t.seed, tok)
			i := h & t.mask
			for t.slots[i] != 0 {
				i = (i + 1) & t.mask
			}
			t.slots[i] = uint32(h>>t.tagShift)<<t.rankBits | uint32(r+1)
		}
	}
	if singles != 256 {
		return nil, fmt.Errorf("%w: %d single-byte tokens, want 256", errBadTable, singles)
	}
	return t, nil
}

// token returns the bytes of the token of rank r.
func (t *rankTable) token(r uint32) string {
	return t.tokens[t.offsets[r]:t.offsets[r+1]]
}

// rank returns the rank of s, or noRank when s is no token. s is at least
// two bytes long.
func (t *rankTable) rank(s string) uint32 {
	switch {
	case len(s) == 2:
		return t.pairs[int(s[0])<<8|int(s[1])] - 1
	case len(s) <= maxShort:
		return t.findShort(packShort(s))
	case len(s) > t.maxLen:
		return noRank
	}
	return t.findLong(s, t.hash(s))
}

// findShort returns the rank of the token packShort packed into k, or
// noRank.
func (t *rankTable) findShort(k uint64) uint32 {
	mask := uint64(len(t.short) - 1)
	for i := mixShort(k) >> t.shortShift; ; i = (i + 1) & mask {
		switch t.short[i].key {
		case k:
			return t.short[i].rank
		case 0:
			return noRank
		}
	}
}

// hash returns the hash findLong files s under.
func (t *rankTable) hash(s string) uint64 {
	return maphash.String(t.seed, s)
}

// findLong returns the rank of s, longer than maxShort bytes, whose hash is
// h, or noRank.
func (t *rankTable) findLong(s string, h uint64) uint32 {
	tag := uint32(h >> t.tagShift)
	rankMask := uint32(1)<<t.rankBits - 1
	for i := h & t.mask; ; i = (i + 1) & t.mask {
		e := t.slots[i]
		if e == 0 {
			return noRank
		}
		if e>>t.rankBits == tag {
			if r := e&rankMask - 1; t.token(r) == s {
				return r
			}
		}
	}
}

// memoryBytes returns the heap the table holds beyond the embedded tokens.
func (t *rankTable) memoryBytes() int {
	return 4*(len(t.offsets)+len(t.pairs)+len(t.slots)) + 16*len(t.short)
}
