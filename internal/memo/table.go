package memo

import "sync"

// Table remembers a value per message for the messages its owner saw in
// its last two rounds (see Round), and serves it to a message Equal to the
// one it was worked out from, never on a hash's word. It files messages by
// a key of their fields' lengths and a few of their bytes, which costs a
// few nanoseconds a field whatever their length; two messages that share a
// key take turns in its slot. It holds a deep copy of each message it
// remembers (sharing the strings, which nothing changes), so a host that
// changes or replaces a message in place, or reuses the slice that held
// it, is served afresh. It is safe for concurrent use; a nil *Table
// remembers nothing.
type Table[V any] struct {
	limit int

	mu    sync.Mutex
	round uint32
	slots map[uint64]*slot[V]
}

type slot[V any] struct {
	m     Message
	v     V
	round uint32 // the last round that saw it
}

// NewTable returns an empty Table that holds at most about limit messages
// (at least 1): past it, a Put forgets first the messages the current
// round has not seen, then all but the one it puts.
func NewTable[V any](limit int) *Table[V] {
	return &Table[V]{limit: max(limit, 1), slots: map[uint64]*slot[V]{}}
}

// Get returns the value put for a message Equal to m, and whether there
// was one; it counts m as seen in this round.
func (t *Table[V]) Get(m Message) (V, bool) {
	var zero V
	if t == nil {
		return zero, false
	}
	k := key(m)
	t.mu.Lock()
	defer t.mu.Unlock()
	s := t.slots[k]
	if s == nil || !Equal(s.m, m) {
		return zero, false
	}
	s.round = t.round
	return s.v, true
}

// Put remembers v for m, seen in this round.
func (t *Table[V]) Put(m Message, v V) {
	if t == nil {
		return
	}
	k, c := key(m), Clone(m)
	t.mu.Lock()
	defer t.mu.Unlock()
	if _, ok := t.slots[k]; !ok && len(t.slots) >= t.limit {
		t.sweepLocked(t.round)
		if len(t.slots) >= t.limit {
			clear(t.slots)
		}
	}
	t.slots[k] = &slot[V]{m: c, v: v, round: t.round}
}

// Round starts a new round and forgets the messages neither it nor the
// round before saw: a Table whose owner starts a round per call (a
// compaction, a check) holds what its last two calls saw, which is what a
// host's next call passes again.
func (t *Table[V]) Round() {
	if t == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.round++
	t.sweepLocked(t.round - 1)
}

// Len returns how many messages t remembers.
func (t *Table[V]) Len() int {
	if t == nil {
		return 0
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.slots)
}

// sweepLocked forgets the messages no round since since has seen.
func (t *Table[V]) sweepLocked(since uint32) {
	for k, s := range t.slots {
		if s.round < since {
			delete(t.slots, k)
		}
	}
}

// key files m: the length of every field, and the first and last eight
// bytes of its texts and calls' arguments, mixed. Equal messages share a
// key.
func key(m Message) uint64 {
	const prime = 0x100000001b3
	k := uint64(len(m.Role)) | uint64(len(m.Name))<<16 | uint64(len(m.ToolCallID))<<32 | uint64(len(m.MultiContent))<<48
	k = k*prime ^ uint64(len(m.Refusal)) ^ uint64(len(m.ReasoningContent))<<32
	text := func(s string) {
		k = k*prime ^ uint64(len(s))
		if len(s) > 0 {
			k = (k*prime ^ word(s, 0)) * prime
			k ^= word(s, len(s)-8)
		}
	}
	if len(m.Role) > 0 {
		k = k*prime ^ uint64(m.Role[0])
	}
	text(m.Content)
	for _, p := range m.MultiContent {
		text(p.Text)
		if p.ImageURL != nil {
			text(p.ImageURL.URL)
		}
	}
	for _, c := range m.ToolCalls {
		k = k*prime ^ uint64(len(c.ID)) ^ uint64(len(c.Function.Name))<<32
		text(c.Function.Arguments)
	}
	if fc := m.FunctionCall; fc != nil {
		k = k*prime ^ uint64(len(fc.Name)) ^ 1<<63
		text(fc.Arguments)
	}
	return mix(k)
}

// word returns up to eight bytes of s from s[i] (i clamped into s), as a
// word.
func word(s string, i int) uint64 {
	if len(s) < 8 {
		var w uint64
		for j := len(s) - 1; j >= 0; j-- {
			w = w<<8 | uint64(s[j])
		}
		return w
	}
	i = min(max(i, 0), len(s)-8)
	_ = s[i+7]
	return uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
		uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
}

// mix scrambles k (the finaliser of SplitMix64).
func mix(k uint64) uint64 {
	k ^= k >> 30
	k *= 0xbf58476d1ce4e5b9
	k ^= k >> 27
	k *= 0x94d049bb133111eb
	return k ^ k>>31
}
