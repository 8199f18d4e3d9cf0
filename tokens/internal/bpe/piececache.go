package bpe

import "sync/atomic"

// cacheSlots is the number of piece counts a Cache keeps: enough
// for the identifiers, paths and rare words one conversation repeats, at
// 48 bytes a slot.
const cacheSlots = 1 << 10

// cacheKeyBytes is the longest piece a Cache keeps. Longer
// pieces are rare and seldom repeat.
const cacheKeyBytes = 32

// Cache remembers how many tokens short pieces that are not one token
// merge into, so that a piece a conversation repeats (an identifier, a
// path) is merged once. It is direct-mapped: a piece has one slot, and a
// newer piece replaces an older one.
//
// It is safe for concurrent use without locks and never allocates. Each
// slot is a sequence lock over words read and written atomically: a writer
// makes the sequence odd, writes, and makes it even again; a reader that
// saw the sequence odd or changed ignores what it read. A writer that finds
// the slot busy gives up: the cache may forget, but never returns another
// piece's count, since every slot holds its piece's bytes and a hit
// compares them all.
type Cache struct {
	slots [cacheSlots]cacheSlot
}

type cacheSlot struct {
	seq  atomic.Uint32
	meta atomic.Uint64 // the hash's top 48 bits, the piece's length, its count; 0 when empty
	key  [cacheKeyBytes / 8]atomic.Uint64
}

// slot returns the slot of a piece of hash h, and the meta word it holds
// when it holds that piece with n tokens.
func (c *Cache) slot(p string, h uint64, n int) (*cacheSlot, uint64) {
	return &c.slots[(h>>16)%cacheSlots], h&^0xffff | uint64(len(p))<<8 | uint64(n)
}

// get returns the count of p, whose hash is h, if the cache holds it.
func (c *Cache) get(p string, h uint64) (int, bool) {
	s, want := c.slot(p, h, 0)
	seq := s.seq.Load()
	if seq&1 != 0 {
		return 0, false
	}
	meta := s.meta.Load()
	if meta&^0xff != want {
		return 0, false
	}
	for w := range s.key {
		if s.key[w].Load() != keyWord(p, w) {
			return 0, false
		}
	}
	if s.seq.Load() != seq {
		return 0, false
	}
	return int(meta & 0xff), true
}

// put records that p, whose hash is h, merges into n tokens, unless
// another goroutine is writing the slot.
func (c *Cache) put(p string, h uint64, n int) {
	s, meta := c.slot(p, h, n)
	seq := s.seq.Load()
	if seq&1 != 0 || !s.seq.CompareAndSwap(seq, seq+1) {
		return
	}
	s.meta.Store(meta)
	for w := range s.key {
		s.key[w].Store(keyWord(p, w))
	}
	s.seq.Store(seq + 2)
}

// keyWord returns bytes 8w to 8w+7 of p, zero beyond its end, as one word.
func keyWord(p string, w int) uint64 {
	i := 8 * w
	if i+8 <= len(p) {
		b := p[i : i+8]
		return uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
			uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
	}
	var x uint64
	for k := len(p) - 1; k >= i; k-- {
		x = x<<8 | uint64(p[k])
	}
	return x
}
