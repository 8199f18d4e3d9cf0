package bpe

import (
	"sync"
	"unicode/utf8"
)

// Encoding counts tokens as tiktoken's encode_ordinary does: it splits
// text into pieces by the encoding's pattern, and byte-pair merges each
// piece over the encoding's ranks, counting the parts left. It only counts:
// token ids are never needed. It is immutable and safe for concurrent use.
type Encoding struct {
	name  string
	next  func(s string, i int) int // the end of the piece at s[i]
	ranks *rankTable

	// scratch holds the buffers of long pieces' merges.
	scratch sync.Pool
}

// Count returns the number of tokens in s, with cache (nil for none)
// remembering the counts of short pieces that are not one token.
func (e *Encoding) Count(s string, cache *Cache) int {
	if !utf8.ValidString(s) {
		s = replaceInvalid(s)
	}
	n := 0
	for i := 0; i < len(s); {
		j := e.next(s, i)
		if j <= i { // never: every rune starts a piece; but never loop
			_, size := utf8.DecodeRuneInString(s[i:])
			j = i + size
		}
		n += e.pieceTokens(s[i:j], cache)
		i = j
	}
	return n
}

// pieceTokens returns the number of tokens in one piece.
func (e *Encoding) pieceTokens(p string, cache *Cache) int {
	t := e.ranks
	var h uint64 // the piece's hash, for the cache
	switch {
	case len(p) == 1:
		return 1
	case len(p) == 2:
		if t.pairs[int(p[0])<<8|int(p[1])] != 0 {
			return 1
		}
		return 2
	case len(p) <= maxShort:
		k := packShort(p)
		if t.findShort(k) != noRank {
			return 1
		}
		h = mixShort(k)
	case len(p) <= t.maxLen:
		h = t.hash(p)
		if t.findLong(p, h) != noRank {
			return 1
		}
	}
	if cache == nil || len(p) > cacheKeyBytes {
		return e.merge(p)
	}
	if n, ok := cache.get(p, h); ok {
		return n
	}
	n := e.merge(p)
	cache.put(p, h, n)
	return n
}

// replaceInvalid returns s with each byte of invalid UTF-8 replaced by
// U+FFFD, as converting s to runes reads it.
func replaceInvalid(s string) string {
	b := make([]byte, 0, len(s)+len(s)/2)
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		b = utf8.AppendRune(b, r)
		i += n
	}
	return string(b)
}

// smallPiece is the longest piece merged by mergeSmall, in fixed arrays on
// the stack, in time that grows as n²; longer ones go to mergeLarge, whose
// time grows as n log n.
const smallPiece = 64

// merge returns the number of tokens byte-pair merging makes of p, which
// is longer than one byte. It merges as tiktoken does: while any two
// adjacent parts join into a token, join the pair whose token has the
// lowest rank, the leftmost of equals.
func (e *Encoding) merge(p string) int {
	if len(p) <= smallPiece {
		return e.ranks.mergeSmall(p)
	}
	sc, _ := e.scratch.Get().(*mergeScratch)
	if sc == nil {
		sc = new(mergeScratch)
	}
	n := e.ranks.mergeLarge(p, sc)
	e.scratch.Put(sc)
	return n
}

// mergeSmall merges a piece of at most smallPiece bytes, keeping parts in
// arrays and finding each merge by a scan, as tiktoken does.
func (t *rankTable) mergeSmall(p string) int {
	var start [smallPiece + 1]uint8 // part i is p[start[i]:start[i+1]]
	var rank [smallPiece]uint32     // the rank of parts i and i+1 joined
	n := len(p)                     // parts
	for i := 0; i <= n; i++ {
		start[i] = uint8(i)
	}
	for i := 0; i < n-1; i++ {
		rank[i] = t.pairs[int(p[i])<<8|int(p[i+1])] - 1
	}
	for n > 1 {
		best, at := noRank, -1
		for i, r := range rank[:n-1] {
			if r < best {
				best, at = r, i
			}
		}
		if at < 0 {
			break
		}
		copy(start[at+1:n], start[at+2:n+1])
		copy(rank[at:n-2], rank[at+1:n-1])
		n--
		if at+1 < n {
			rank[at] = t.rank(p[start[at]:start[at+2]])
		} else {
			rank[at] = noRank
		}
		if at > 0 {
			rank[at-1] = t.rank(p[start[at-1]:start[at+1]])
		}
	}
	return n
}
