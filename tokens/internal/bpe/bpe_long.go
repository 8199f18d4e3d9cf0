package bpe

import "slices"

// mergeScratch holds the buffers mergeLarge reuses, so that merging a long
// piece allocates nothing once a scratch has served one as long.
type mergeScratch struct {
	next, prev []int32  // the parts: a linked list by start offset
	rank       []uint32 // the rank of each part joined with the next one

	head      []int32  // by rank: its newest candidate merge, or -1
	entryPos  []int32  // by candidate: the offset of its left part
	entryNext []int32  // by candidate: the one before it of its rank, or -1
	touched   []uint32 // the ranks whose head was set, to clear after
	ranks     rankHeap // the ranks that have candidates
	batch     []int32  // the candidates of the rank being merged

	heap mergeHeap // mergeByHeap's candidates
}

// mergeLarge merges a long piece in time that grows as n log n, where the
// scan of mergeSmall grows as n². It merges by rank buckets, and falls back
// to a heap of every candidate when a piece makes the buckets do more
// than len(p) extra work; both find the merges in tiktoken's order.
func (t *rankTable) mergeLarge(p string, sc *mergeScratch) int {
	if n, ok := t.mergeBuckets(p, sc, len(p)); ok {
		return n
	}
	return t.mergeByHeap(p, sc)
}

// startParts makes every byte of p a part, with the rank of each pair of
// adjacent bytes, and calls candidate for each pair that is a token.
func (sc *mergeScratch) startParts(t *rankTable, p string, candidate func(r uint32, pos int32)) {
	n := len(p)
	sc.next, sc.prev, sc.rank = resize(sc.next, n), resize(sc.prev, n), resize(sc.rank, n)
	next, prev, rank := sc.next, sc.prev, sc.rank
	for i := 0; i < n; i++ {
		next[i], prev[i], rank[i] = int32(i+1), int32(i-1), noRank
	}
	for i := 0; i < n-1; i++ {
		if r := t.pairs[int(p[i])<<8|int(p[i+1])] - 1; r != noRank {
			rank[i] = r
			candidate(r, int32(i))
		}
	}
}

// joinAt merges the part at offset i with the next one, and calls
// candidate for each merge that makes possible: the new part with the one
// after it, and the one before it with the new part.
func (sc *mergeScratch) joinAt(t *rankTable, p string, i int32, candidate func(r uint32, pos int32)) {
	n := int32(len(p))
	next, prev, rank := sc.next, sc.prev, sc.rank
	j := next[i]
	k := next[j] // the new part is p[i:k]
	next[i] = k
	if k < n {
		prev[k] = i
	}
	rank[i], rank[j] = noRank, noRank
	if k < n {
		if r := t.rank(p[i:next[k]]); r != noRank {
			rank[i] = r
			candidate(r, i)
		}
	}
	if l := prev[i]; l >= 0 {
		r := t.rank(p[l:k])
		rank[l] = r
		if r != noRank {
			candidate(r, l)
		}
	}
}

// mergeBuckets merges p with its candidate merges in buckets by rank, and
// a heap of the ranks that have candidates. The least rank's bucket is
// merged in one pass, leftmost first: a merge only ever makes candidates
// of other ranks (a part joined with a neighbour is longer than the token
// just made), so the pass sees all of its rank. Candidates a merge made
// stale are skipped where they lie. This is tiktoken's order, lowest rank
// and then leftmost, without a heap of every candidate: a long run of one
// character makes candidates of a few ranks only.
//
// A merge may make a candidate of a lower rank than its own, since longer
// tokens do not all rank above their parts ("    " ranks above "   " in
// both encodings). The pass then stops and puts the rest of its bucket
// back, so that the lower rank goes first. That costs the rest's length;
// when the cost passes budget, mergeBuckets gives up and returns false.
func (t *rankTable) mergeBuckets(p string, sc *mergeScratch, budget int) (int, bool) {
	if len(sc.head) < len(t.offsets) {
		sc.head = make([]int32, len(t.offsets))
		for i := range sc.head {
			sc.head[i] = -1
		}
	}
	sc.entryPos, sc.entryNext, sc.touched, sc.ranks = sc.entryPos[:0], sc.entryNext[:0], sc.touched[:0], sc.ranks[:0]
	defer sc.clearBuckets()
	sc.startParts(t, p, sc.add)
	parts := len(p)
	for len(sc.ranks) > 0 {
		r := sc.ranks.pop()
		batch := sc.takeBucket(r)
		for b, i := range batch {
			if sc.rank[i] != r { // stale: the part changed or was merged away
				continue
			}
			sc.joinAt(t, p, i, sc.add)
			parts--
			if len(sc.ranks) > 0 && sc.ranks[0] < r {
				rest := batch[b+1:]
				if budget -= len(rest); budget < 0 {
					return 0, false
				}
				for _, q := range rest {
					sc.add(r, q)
				}
				break
			}
		}
	}
	return parts, true
}

// add makes the parts at offset pos and the next a candidate of rank r.
func (sc *mergeScratch) add(r uint32, pos int32) {
	if sc.head[r] < 0 {
		sc.touched = append(sc.touched, r)
		sc.ranks.push(r)
	}
	sc.entryPos = append(sc.entryPos, pos)
	sc.entryNext = append(sc.entryNext, sc.head[r])
	sc.head[r] = int32(len(sc.entryPos) - 1)
}

// takeBucket empties the bucket of rank r and returns its candidates'
// offsets in increasing order.
func (sc *mergeScratch) takeBucket(r uint32) []int32 {
	batch := sc.batch[:0]
	for e := sc.head[r]; e >= 0; e = sc.entryNext[e] {
		batch = append(batch, sc.entryPos[e])
	}
	sc.head[r] = -1
	// Candidates come newest first, and most buckets fill left to right.
	slices.Reverse(batch)
	if !slices.IsSorted(batch) {
		slices.Sort(batch)
	}
	sc.batch = batch
	return batch
}

// clearBuckets empties every bucket.
func (sc *mergeScratch) clearBuckets() {
	for _, r := range sc.touched {
		sc.head[r] = -1
	}
}

// mergeByHeap merges p with every candidate merge in one min-heap, keyed by
// rank and then offset, so the least is tiktoken's next merge. A merge
// pushes the candidates it makes; the ones it made stale are skipped when
// they come to the top. Each merge costs a few heap operations, so the
// time grows as n log n whatever the piece.
func (t *rankTable) mergeByHeap(p string, sc *mergeScratch) int {
	sc.heap = sc.heap[:0]
	push := func(r uint32, pos int32) { sc.heap = append(sc.heap, uint64(r)<<32|uint64(pos)) }
	sc.startParts(t, p, push)
	sc.heap.init()
	push = func(r uint32, pos int32) { sc.heap.push(uint64(r)<<32 | uint64(pos)) }
	parts := len(p)
	for len(sc.heap) > 0 {
		top := sc.heap.pop()
		i, r := int32(uint32(top)), uint32(top>>32)
		if sc.rank[i] != r { // stale
			continue
		}
		sc.joinAt(t, p, i, push)
		parts--
	}
	return parts
}

// resize returns b resized to n, reusing its storage when it is large
// enough.
func resize[T any](b []T, n int) []T {
	if cap(b) >= n {
		return b[:n]
	}
	return make([]T, n)
}

// rankHeap is a binary min-heap of ranks.
type rankHeap []uint32

func (h *rankHeap) push(x uint32) { *h = heapPush(*h, x) }
func (h *rankHeap) pop() uint32   { return heapPop(h) }

// mergeHeap is a binary min-heap of candidate merges, each its rank and
// then the offset of its left part.
type mergeHeap []uint64

func (h mergeHeap) init() {
	for i := len(h)/2 - 1; i >= 0; i-- {
		heapDown(h, i, h[i])
	}
}

func (h *mergeHeap) push(x uint64) { *h = heapPush(*h, x) }
func (h *mergeHeap) pop() uint64   { return heapPop(h) }

func heapPush[T uint32 | uint64](s []T, x T) []T {
	s = append(s, x)
	i := len(s) - 1
	for i > 0 {
		parent := (i - 1) / 2
		if s[parent] <= x {
			break
		}
		s[i] = s[parent]
		i = parent
	}
	s[i] = x
	return s
}

func heapPop[S ~[]T, T uint32 | uint64](h *S) T {
	s := *h
	top, last := s[0], s[len(s)-1]
	s = s[:len(s)-1]
	*h = s
	if len(s) > 0 {
		heapDown(s, 0, last)
	}
	return top
}

// heapDown places x, which goes at s[i], where it belongs below i.
func heapDown[T uint32 | uint64](s []T, i int, x T) {
	for {
		c := 2*i + 1
		if c >= len(s) {
			break
		}
		if c+1 < len(s) && s[c+1] < s[c] {
			c++
		}
		if x <= s[c] {
			break
		}
		s[i] = s[c]
		i = c
	}
	s[i] = x
}
